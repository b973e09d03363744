package postgres

import (
	"sort"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
	"github.com/mnemo-console/mnemo/store/internal/searchquery"
)

// PostgreSQL's limits on a tsvector entry: a lexeme's length in bytes, the
// positions kept per lexeme and the largest position.
const (
	maxLexemeBytes = 2046
	maxPositions   = 255
	maxPosition    = 16383
)

// tsvectorOf returns the text form of s's full-text entry: every term the
// tokenizer package cuts (the terms the SQLite store indexes, in the same
// order) with its positions. The store casts it with ::tsvector, which
// takes lexemes as written: PostgreSQL's parser and dictionaries never see
// the text, so both backends match exactly the same terms. Positions past
// PostgreSQL's largest count as the largest, as to_tsvector does.
func tsvectorOf(s string) string {
	pos := map[string][]int{}
	var order []string
	n := 0
	tokenizer.Tokens(s, func(t string, _ int) {
		n++
		if len(t) > maxLexemeBytes {
			return
		}
		p, seen := pos[t]
		if !seen {
			order = append(order, t)
		}
		if len(p) < maxPositions {
			pos[t] = append(p, min(n, maxPosition))
		}
	})
	sort.Strings(order)
	var b strings.Builder
	for i, t := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(t))
		b.WriteByte(':')
		last := -1
		for j, p := range pos[t] {
			if p == last { // positions clamped to the largest
				continue
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
			last = p
		}
	}
	return b.String()
}

// lexemeEscaper doubles quotes and escapes backslashes. Built once: a
// replacer builds its tables on first use, and building one per lexeme
// was a sixth of the console's CPU under concurrent ingest (every term of
// every event goes through quoteLexeme).
var lexemeEscaper = strings.NewReplacer(`\`, `\\`, `'`, `''`)

// quoteLexeme quotes a lexeme for tsvector and tsquery input: in single
// quotes, with quotes doubled and backslashes escaped.
func quoteLexeme(t string) string {
	return "'" + lexemeEscaper.Replace(t) + "'"
}

// tsPart is one part of a query: consecutive terms and their tsquery
// ('a' <-> 'b', a single lexeme for one term).
type tsPart struct {
	query string
	terms []string
}

func tsPhrase(terms []string) tsPart {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = quoteLexeme(t)
	}
	if len(q) == 1 {
		return tsPart{query: q[0], terms: terms}
	}
	return tsPart{query: "(" + strings.Join(q, " <-> ") + ")", terms: terms}
}

// searchQuery is a parsed search, the same reading as the SQLite store's:
// phrases that must all match, terms of which any may, exact substrings
// (quoted text, checked on the event text), what to highlight, and the
// parts relevance is summed over.
type searchQuery struct {
	phrases   []tsPart // phrases, all of which must match
	any       []tsPart // terms of which one must match (and the phrases, when both)
	exact     []string
	highlight []string
}

// parseSearch reads a query (searchquery.Parse), each phrase as its
// tsquery; a term longer than a lexeme can be is passed over.
func parseSearch(text string) searchQuery {
	p := searchquery.Parse(text, func(t string) bool { return len(t) <= maxLexemeBytes }, tsPhrase)
	return searchQuery{phrases: p.Phrases, any: p.Any, exact: p.Exact, highlight: p.Highlight}
}

// match is the tsquery an event must satisfy: every phrase, and one of the
// loose terms.
func (q searchQuery) match() string {
	var parts []string
	for _, p := range q.phrases {
		parts = append(parts, p.query)
	}
	if len(q.any) > 0 {
		alts := make([]string, len(q.any))
		for i, p := range q.any {
			alts[i] = p.query
		}
		parts = append(parts, "("+strings.Join(alts, " | ")+")")
	}
	return strings.Join(parts, " & ")
}

// ranked are the parts relevance sums over.
func (q searchQuery) ranked() []tsPart {
	if len(q.any) > 0 {
		return q.any
	}
	return q.phrases
}
