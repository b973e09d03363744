package recall

import (
	"math"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
)

// matchStrength says whether the best events answer the task as asked:
// how much of the task's content the best MatchDepth events (by score)
// of one session hold between them, in the session that holds the most. Each of the task's terms weighs its idf over the
// scope's events; a term no event holds weighs what a term found nowhere
// would, the most any term weighs: a question about a city, a device or
// an employer the memory never mentions is the question memory cannot
// answer, however well the rest of its words match. Coverage below
// StrongMatch is a weak match (governance.RecallMatch); so is a task
// none of whose terms any event holds. A task without terms, or
// MatchDepth 0: nil, nothing is said.
func matchStrength(events []*recallCandidate, terms queryTerms, idf []float64, docs int, stats *governance.TermStats, w governance.RecallWeights) *governance.RecallMatch {
	if w.MatchDepth <= 0 || len(terms) == 0 {
		return nil
	}
	if len(idf) == 0 { // no event holds a term of the task
		return &governance.RecallMatch{Missing: len(terms), Weak: true}
	}
	n := max(docs, len(events))
	if stats != nil {
		n = max(stats.Docs, len(events))
	}
	if n == 0 {
		return nil
	}
	absent := math.Log(1 + (float64(n)+0.5)/0.5)
	weight := make([]float64, len(idf))
	m := &governance.RecallMatch{}
	var mass float64
	for i, v := range idf {
		if v == 0 {
			v = absent
			m.Missing++
		}
		weight[i] = v
		mass += v
	}
	var best []*recallCandidate
	for _, c := range events {
		if c.eligible && c.tf != nil && c.relevance > 0 {
			best = append(best, c)
		}
	}
	slices.SortStableFunc(best, byScore)
	best = best[:min(len(best), w.MatchDepth)]
	// The best events of one session together: a question and its
	// answer are often two turns of one exchange.
	var sessions []string
	held := map[string][]bool{}
	for _, c := range best {
		h, ok := held[c.session]
		if !ok {
			h = make([]bool, len(idf))
			held[c.session] = h
			sessions = append(sessions, c.session)
		}
		for i, f := range c.tf {
			if f > 0 {
				h[i] = true
			}
		}
	}
	var covered float64
	for _, s := range sessions {
		var v float64
		for i, h := range held[s] {
			if h {
				v += weight[i]
			}
		}
		covered = max(covered, v/mass)
	}
	m.Events = len(best)
	m.Coverage = round3(covered)
	m.Weak = m.Coverage < w.StrongMatch
	return m
}
