// Package searchquery is how both stores read the text of an event
// search before they turn it into SQL: "quoted phrases" are exact, the
// rest is words (any of which may match) and CJK runs, all as the
// tokenizer's terms. A store gives the form each phrase takes in its
// index (Parse's part) and the terms its index can hold (keep).
package searchquery

import (
	"strings"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Query is a parsed search: phrases that must all match, parts of which
// any may (single terms, and the phrases first when both are given),
// exact substrings (the quoted text) and what to highlight.
type Query[P any] struct {
	Phrases   []P
	Any       []P
	Exact     []string
	Highlight []string
}

// Parse reads text. part makes a phrase of its terms in the store's form;
// a loose term is a phrase of one, kept when keep says so (nil keeps
// every term) and once however often it stands.
func Parse[P any](text string, keep func(term string) bool, part func(terms []string) P) Query[P] {
	var q Query[P]
	seen := map[string]bool{}
	loose := func(s string) {
		tokenizer.PhraseTokens(s, func(t string, _ int) {
			if !seen[t] && (keep == nil || keep(t)) {
				seen[t] = true
				q.Any = append(q.Any, part([]string{t}))
			}
		})
		q.Highlight = append(q.Highlight, Terms(s)...)
	}
	for {
		before, rest, quoted := strings.Cut(text, `"`)
		loose(before)
		if !quoted {
			break
		}
		phrase, after, _ := strings.Cut(rest, `"`)
		text = after
		phrase = strings.TrimSpace(phrase)
		if phrase == "" {
			continue
		}
		var toks []string
		tokenizer.PhraseTokens(phrase, func(t string, _ int) { toks = append(toks, t) })
		if len(toks) > 0 {
			q.Phrases = append(q.Phrases, part(toks))
		}
		q.Exact = append(q.Exact, phrase)
		q.Highlight = append(q.Highlight, phrase)
	}
	if len(q.Phrases) > 0 && len(q.Any) > 0 {
		// The phrases select; loose words then only add to the rank.
		q.Any = append(append([]P{}, q.Phrases...), q.Any...)
	}
	return q
}

// Terms splits a query on white space, dropping quotes and empties.
func Terms(q string) []string {
	var out []string
	for _, t := range strings.Fields(q) {
		t = strings.Trim(t, `"`)
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}
