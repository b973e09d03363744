package governance

import (
	"encoding/json"
	"strings"
)

// WithholdForgotten replaces each string of a JSON document (an eval
// result's detail) that is a forgotten statement with RedactedText.
// suppressed answers, from the store, which of the given fingerprints
// (Fingerprint of every non-blank string in the document) a forget has
// suppressed. A detail that is not JSON comes back as it is: there is
// nothing structured to check. Both stores call it inside the write of a
// result, so a case that read a text before its forget and stores it
// after does not write it back.
func WithholdForgotten(detail string, suppressed func(fingerprints []string) (map[string]bool, error)) (string, error) {
	var doc any
	if err := json.Unmarshal([]byte(detail), &doc); err != nil {
		return detail, nil
	}
	seen := map[string]bool{}
	var list []string
	walkStrings(doc, func(s string) string {
		if strings.TrimSpace(s) != "" {
			if fp := Fingerprint(s); !seen[fp] {
				seen[fp] = true
				list = append(list, fp)
			}
		}
		return s
	})
	if len(list) == 0 {
		return detail, nil
	}
	forgotten, err := suppressed(list)
	if err != nil || len(forgotten) == 0 {
		return detail, err
	}
	doc = walkStrings(doc, func(s string) string {
		if forgotten[Fingerprint(s)] {
			return RedactedText
		}
		return s
	})
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// walkStrings replaces every string value of a decoded JSON document by
// fn's answer (object keys stay).
func walkStrings(v any, fn func(string) string) any {
	switch v := v.(type) {
	case string:
		return fn(v)
	case []any:
		for i := range v {
			v[i] = walkStrings(v[i], fn)
		}
	case map[string]any:
		for k := range v {
			v[k] = walkStrings(v[k], fn)
		}
	}
	return v
}
