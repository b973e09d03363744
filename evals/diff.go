package evals

import (
	"bytes"
	"encoding/json"
	"strings"
)

// DiffLine is one line of an answer shown side by side with the other
// variant; Changed marks lines the other answer does not have.
type DiffLine struct {
	Text    string
	Changed bool
}

// SideBySide splits two answers into lines (JSON is pretty-printed first)
// and marks the lines that are not common to both, by a longest common
// subsequence of lines.
func SideBySide(a, b string) (left, right []DiffLine) {
	la, lb := answerLines(a), answerLines(b)
	const maxLines = 2000
	la, lb = la[:min(len(la), maxLines)], lb[:min(len(lb), maxLines)]
	n, m := len(la), len(lb)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if strings.TrimSpace(la[i]) == strings.TrimSpace(lb[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	common := make([]bool, n)
	commonB := make([]bool, m)
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case strings.TrimSpace(la[i]) == strings.TrimSpace(lb[j]):
			common[i], commonB[j] = true, true
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	for i, l := range la {
		left = append(left, DiffLine{Text: l, Changed: !common[i]})
	}
	for j, l := range lb {
		right = append(right, DiffLine{Text: l, Changed: !commonB[j]})
	}
	return left, right
}

func answerLines(s string) []string {
	o := ParseOutput(s)
	if o.IsJSON {
		if b, err := json.Marshal(o.Value); err == nil {
			var buf bytes.Buffer
			if json.Indent(&buf, b, "", "  ") == nil {
				s = buf.String()
			}
		}
	}
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
