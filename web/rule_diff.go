package web

import (
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/web/templates"
)

// maxDiffTokens bounds the quadratic diff; longer texts show as replaced.
const maxDiffTokens = 2000

// diffText is a word diff between two versions of a rule: Latin words and
// numbers are one token each, every CJK character (and other symbol) is its
// own token, so Chinese diffs character by character.
func diffText(old, new string) []templates.DiffSegment {
	return diffSeq(old, new, diffTokens(old), diffTokens(new))
}

// diffFileLines is a line diff, for files (a skill's SKILL.md, its scripts).
func diffFileLines(old, new string) []templates.DiffSegment {
	return diffSeq(old, new, strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n"))
}

// diffSeq diffs two texts cut into tokens a and b (the texts joined).
func diffSeq(old, new string, a, b []string) []templates.DiffSegment {
	if len(a) > maxDiffTokens || len(b) > maxDiffTokens {
		return merged([]templates.DiffSegment{{Op: "-", Text: old}, {Op: "+", Text: new}})
	}
	// Longest common subsequence table, from the end.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []templates.DiffSegment
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, templates.DiffSegment{Op: "=", Text: a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, templates.DiffSegment{Op: "-", Text: a[i]})
			i++
		default:
			out = append(out, templates.DiffSegment{Op: "+", Text: b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, templates.DiffSegment{Op: "-", Text: a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, templates.DiffSegment{Op: "+", Text: b[j]})
	}
	return merged(out)
}

// merged joins neighbouring segments of the same kind.
func merged(segs []templates.DiffSegment) []templates.DiffSegment {
	var out []templates.DiffSegment
	for _, s := range segs {
		if s.Text == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Op == s.Op {
			out[n-1].Text += s.Text
			continue
		}
		out = append(out, s)
	}
	return out
}

// diffTokens splits text into words (runs of Latin letters and digits),
// runs of white space, and single other runes (CJK characters, punctuation).
func diffTokens(text string) []string {
	var out []string
	rs := []rune(text)
	for i := 0; i < len(rs); {
		j := i + 1
		switch {
		case isWordRune(rs[i]):
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
		case unicode.IsSpace(rs[i]):
			for j < len(rs) && unicode.IsSpace(rs[j]) {
				j++
			}
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// isWordRune is true for letters and digits of scripts that separate words
// with spaces; CJK characters are tokens of their own.
func isWordRune(r rune) bool {
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}
