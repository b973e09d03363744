package web

import (
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// maxDiffTokens bounds the diff of a version pair; longer texts show as
// replaced. A rule's text is at most governance.MaxRuleText characters,
// so only a row written before that cap can reach it.
const maxDiffTokens = governance.MaxRuleText

// diffText is a word diff between two versions of a rule: Latin words and
// numbers are one token each, every CJK character (and other symbol) is its
// own token, so Chinese diffs character by character. The diff is Myers'
// (diffmatchpatch) over the tokens, each standing as one rune: time
// O((N+M)·D) and memory linear in the tokens.
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
	// Token i of words stands as rune i+1: at most 2·maxDiffTokens
	// distinct tokens, far below the surrogates (U+D800), so every such
	// rune survives the library's conversions to string and back.
	ids := map[string]rune{}
	var words []string
	encode := func(tokens []string) []rune {
		out := make([]rune, len(tokens))
		for i, t := range tokens {
			r, ok := ids[t]
			if !ok {
				words = append(words, t)
				r = rune(len(words))
				ids[t] = r
			}
			out[i] = r
		}
		return out
	}
	ra, rb := encode(a), encode(b)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // the shortest diff, not the best found in a second: the same on every view
	var out []templates.DiffSegment
	for _, d := range dmp.DiffMainRunes(ra, rb, false) {
		op := "="
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = "+"
		case diffmatchpatch.DiffDelete:
			op = "-"
		}
		var text strings.Builder
		for _, r := range d.Text {
			text.WriteString(words[r-1])
		}
		out = append(out, templates.DiffSegment{Op: op, Text: text.String()})
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
