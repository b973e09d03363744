package governance

import (
	"strings"
	"unicode"
)

// Which sentences of an episode summary quote a forgotten text, and the
// summary without them: a forget rewrites the episodes that quote what it
// removes (every store backend, with this one code).

// RewriteSummary drops the sentences of an episode summary that quote any
// of the forgotten texts; when nothing is left the summary is blanked.
func RewriteSummary(summary string, forgotten []string) string {
	if summary == "" || summary == RedactedText {
		return summary
	}
	var (
		out     []string
		dropped bool
	)
	for _, s := range splitSummary(summary) {
		if quotesAny(s, forgotten) {
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

// splitSummary splits text after sentence ends (Chinese and English).
func splitSummary(text string) []string {
	var (
		out []string
		cur []rune
	)
	rs := []rune(text)
	for i, r := range rs {
		cur = append(cur, r)
		end := strings.ContainsRune("。！？；!?", r)
		if r == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
			end = true
		}
		if end {
			if s := strings.TrimSpace(string(cur)); s != "" {
				out = append(out, s)
			}
			cur = cur[:0]
		}
	}
	if s := strings.TrimSpace(string(cur)); s != "" {
		out = append(out, s)
	}
	return out
}

// quotesAny reports whether sentence shares a run of text with any forgotten
// text long enough to be a quote: 8 runes of Chinese (or the whole text if
// shorter), 24 of other scripts.
func quotesAny(sentence string, forgotten []string) bool {
	s := []rune(sentence)
	for _, f := range forgotten {
		fr := []rune(f)
		if len(fr) < 4 || f == RedactedText {
			continue
		}
		need := 24
		for _, r := range fr {
			if unicode.Is(unicode.Han, r) {
				need = 8
				break
			}
		}
		need = min(need, len(fr))
		if longestCommonRun(s, fr) >= need {
			return true
		}
	}
	return false
}

// longestCommonRun is the length of the longest common substring, in runes.
func longestCommonRun(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	best := 0
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}
