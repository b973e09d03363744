package templates

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/mnemo-console/mnemo/locale"
)

// DetailPair is one field of an audit row's details as a page shows it.
type DetailPair struct {
	// Key is the field's name as stored (for tests and the title).
	Key string
	// Label is the field's label in the page's language: the catalog's
	// audit_detail label, or the name humanised ("rows_before" reads
	// "rows before") when the catalog has none.
	Label string
	Value string
}

// auditDetails reads an audit row's details (a JSON object, mostly) into
// label: value pairs in the page's language, in the order they were
// written. Nested objects read as "label: value" lists, arrays as their
// values joined, true and false as yes and no, null as a dash. Details
// that are no JSON object (a sentence, a name) are one pair without a
// label; none are shown as JSON.
func auditDetails(ctx context.Context, objectType, details string) []DetailPair {
	details = strings.TrimSpace(details)
	if details == "" {
		return nil
	}
	l := locale.From(ctx)
	dec := json.NewDecoder(strings.NewReader(details))
	dec.UseNumber()
	var raw json.RawMessage
	if !strings.HasPrefix(details, "{") || dec.Decode(&raw) != nil || dec.More() {
		return []DetailPair{{Value: details}}
	}
	pairs, ok := objectPairs(l, raw)
	if !ok {
		return []DetailPair{{Value: details}}
	}
	for i, p := range pairs {
		pairs[i].Value = detailEnum(l, objectType, p.Key, p.Value)
	}
	return pairs
}

// detailEnums name the enumerated type of the details fields that hold
// one; a status (from, to, was) is of the row's object type.
var detailEnums = map[string]string{
	"role": "account_role", "verdict": "outcome_verdict", "risk": "risk", "kind": "memory_type",
	"status": "status", "from": "status", "to": "status", "was": "status", "origin": "skill_origin",
}

// detailEnum labels a field's value when the field holds an enumerated
// value the catalogs label; other values are shown as written.
func detailEnum(l *locale.Localizer, objectType, key, value string) string {
	kind := detailEnums[key]
	if kind == "" {
		return value
	}
	if kind == "status" {
		kind = objectType + "_status"
	}
	if id := kind + "." + value; l.Has(id) {
		return l.T(id)
	}
	return value
}

// objectPairs reads a JSON object's fields in their order.
func objectPairs(l *locale.Localizer, raw json.RawMessage) ([]DetailPair, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []DetailPair
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, DetailPair{Key: key, Label: detailLabel(l, key), Value: detailValue(l, v)})
	}
	return out, true
}

// detailLabel is a details field's label: the catalog's, else its name
// with underscores as spaces.
func detailLabel(l *locale.Localizer, key string) string {
	return l.Enum("audit_detail", key)
}

// detailValue reads one JSON value for a page.
func detailValue(l *locale.Localizer, v json.RawMessage) string {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if dec.Decode(&x) != nil {
		return string(v)
	}
	switch x := x.(type) {
	case nil:
		return "—"
	case bool:
		if x {
			return l.T("common.yes")
		}
		return l.T("common.no")
	case string:
		return x
	case json.Number:
		return x.String() // ids and counts alike, without separators
	case []any:
		var items []json.RawMessage
		_ = json.Unmarshal(v, &items)
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = detailValue(l, it)
		}
		if len(parts) == 0 {
			return "—"
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		pairs, ok := objectPairs(l, v)
		if !ok {
			return string(v)
		}
		parts := make([]string, len(pairs))
		for i, p := range pairs {
			parts[i] = p.Label + ": " + p.Value
		}
		return strings.Join(parts, "; ")
	}
	return string(v)
}

// extractorLabel names the extractor that wrote a candidate or an episode:
// its family's label with the rest of its name, the version or the model
// ("heuristic/4" reads "heuristic extractor (4)"); a name of no known
// family is shown as it is.
func extractorLabel(ctx context.Context, name string) string {
	family, rest, _ := strings.Cut(name, "/")
	l := locale.From(ctx)
	if !l.Has("extractor." + family) {
		return name
	}
	if rest == "" {
		return l.T("extractor." + family)
	}
	return l.T("extractor."+family) + " (" + rest + ")"
}
