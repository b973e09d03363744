package store

import (
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Which sentences of an episode summary restate a forgotten text
// (governance.Restates, the detector that also finds the lines restating a
// forgotten rule), and the summary without them.

// rewriteSummary drops the sentences of an episode summary that restate any
// of the forgotten texts; when nothing is left the summary is blanked.
func rewriteSummary(summary string, forgotten []string) string {
	if summary == "" || summary == governance.RedactedText {
		return summary
	}
	var (
		out     []string
		dropped bool
	)
	for _, s := range governance.SplitSentences(summary) {
		if restatesAny(s, forgotten) {
			if len(out) == 0 || out[len(out)-1] != governance.RedactedText {
				out = append(out, governance.RedactedText)
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
		kept = kept || s != governance.RedactedText
	}
	if !kept {
		return governance.RedactedText
	}
	return strings.TrimSpace(strings.Join(out, " "))
}

func restatesAny(sentence string, forgotten []string) bool {
	for _, f := range forgotten {
		if governance.Restates(sentence, f) {
			return true
		}
	}
	return false
}
