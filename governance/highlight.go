package governance

import (
	"strings"
	"unicode"
)

// Highlight splits text into fragments where every case-insensitive
// occurrence of a term is marked. Long texts are cut to a window of about
// width runes around the first match. The result is plain text; templates
// render Match fragments inside <mark>.
func Highlight(text string, terms []string, width int) []Fragment {
	runes := []rune(text)
	lower := []rune(strings.ToLower(text))
	if len(lower) != len(runes) { // case folding changed lengths: match on the original
		lower = runes
	}
	marks := make([]bool, len(runes))
	first := -1
	for _, t := range terms {
		tr := []rune(strings.ToLower(t))
		if len(tr) == 0 {
			continue
		}
		for i := 0; i+len(tr) <= len(lower); i++ {
			if equalRunes(lower[i:i+len(tr)], tr) {
				for j := i; j < i+len(tr); j++ {
					marks[j] = true
				}
				if first < 0 || i < first {
					first = i
				}
			}
		}
	}
	start, end := 0, len(runes)
	if width > 0 && len(runes) > width {
		start = max(0, first-width/3)
		end = min(len(runes), start+width)
	}
	var out []Fragment
	if start > 0 {
		out = append(out, Fragment{Text: "…"})
	}
	for i := start; i < end; {
		j := i
		for j < end && marks[j] == marks[i] {
			j++
		}
		out = append(out, Fragment{Text: string(runes[i:j]), Match: marks[i]})
		i = j
	}
	if end < len(runes) {
		out = append(out, Fragment{Text: "…"})
	}
	return out
}

func equalRunes(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] && unicode.ToLower(a[i]) != b[i] {
			return false
		}
	}
	return true
}
