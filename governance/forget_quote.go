package governance

import (
	"strings"
)

// Which sentences of an episode summary restate a forgotten text
// (Restates, the detector that also finds the lines restating a forgotten
// rule), and the summary without them: a forget rewrites the episodes that
// restate what it removes (every store backend, with this one code).

// RewriteSummary drops the sentences of an episode summary that restate any
// of the forgotten texts; when nothing is left the summary is blanked.
func RewriteSummary(summary string, forgotten []string) string {
	if summary == "" || summary == RedactedText {
		return summary
	}
	var (
		out     []string
		dropped bool
	)
	for _, s := range SplitSentences(summary) {
		if restatesAny(s, forgotten) {
			if len(out) == 0 || out[len(out)-1] != RedactedText {
				out = append(out, RedactedText)
			}
			dropped = true
			continue
		}
		out = append(out, s)
	}
	if !dropped {
		return summary
	}
	kept := false
	for _, s := range out {
		kept = kept || s != RedactedText
	}
	if !kept {
		return RedactedText
	}
	return strings.TrimSpace(strings.Join(out, " "))
}

func restatesAny(sentence string, forgotten []string) bool {
	for _, f := range forgotten {
		if Restates(sentence, f) {
			return true
		}
	}
	return false
}
