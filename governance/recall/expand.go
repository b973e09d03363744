package recall

import (
	"cmp"
	"math"
	"slices"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// expandRelevance is recall's second hop over the events. A question whose
// answer is spread over several sessions ("where has she camped?") is
// matched by one of its turns in the words of the task, and the others
// share the words of that turn ("the beach", "the mountains") more than
// the task's. So the terms of the best ExpandDepth events (by the first
// hop's score) that the task does not hold, each weighed by the first
// hop's relevance of the events holding it and by its idf over the
// candidates, become a second query of the ExpandTerms heaviest; every
// candidate gains ExpandShare of its BM25 relevance to them
// (RecallScore.Expansion). The first hop's best ExpandKeep events keep
// their places: nothing the second hop lifts passes them, so what the task's
// own words found first still comes first. It reads the candidates the
// first hop was offered, no other query.
func expandRelevance(events []*recallCandidate, terms queryTerms, speaker governance.Role, w governance.RecallWeights) {
	if speaker != "" || w.ExpandDepth <= 0 || w.ExpandTerms <= 0 || w.ExpandShare <= 0 || len(events) <= max(1, w.ExpandKeep) {
		return
	}
	ranked := slices.Clone(events)
	slices.SortStableFunc(ranked, byScore)
	best := ranked[0].relevance
	if best <= 0 {
		return
	}
	// The terms of the best events the task does not hold, each with the
	// relevance of the events holding it (the best one's counting 1).
	held := map[string]float64{}
	for _, c := range ranked[:min(len(ranked), w.ExpandDepth)] {
		if c.relevance <= 0 {
			break
		}
		share := c.relevance / best
		seen := map[string]bool{}
		tokenizer.Tokens(c.text, func(t string, _ int) {
			if _, ok := terms[t]; ok || seen[t] {
				return
			}
			seen[t] = true
			held[t] += share
		})
	}
	if len(held) == 0 {
		return
	}
	second := make(queryTerms, len(held))
	for t := range held {
		second[t] = len(second)
	}
	counts := make([]termCounts, len(ranked))
	df := make([]int, len(second))
	total := 0
	for i, c := range ranked {
		counts[i] = second.count(c.text)
		total += counts[i].length
		for j, f := range counts[i].tf {
			if f > 0 {
				df[j]++
			}
		}
	}
	type weighed struct {
		term   string
		at     int
		weight float64
	}
	query := make([]weighed, 0, len(second))
	n := float64(len(ranked))
	for t, i := range second {
		idf := math.Log(1 + (n-float64(df[i])+0.5)/(float64(df[i])+0.5))
		query = append(query, weighed{t, i, held[t] * idf})
	}
	slices.SortFunc(query, func(a, b weighed) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	query = query[:min(len(query), w.ExpandTerms)]
	var ideal float64
	for _, q := range query {
		ideal += q.weight
	}
	if ideal <= 0 {
		return
	}
	keep := min(max(0, w.ExpandKeep), len(ranked))
	ceiling := math.Inf(1)
	if keep > 0 {
		ceiling = ranked[keep-1].sortScore
	}
	avgdl := max(1, float64(total)/n)
	k1, b := w.BM25K1, w.BM25B
	for i, c := range ranked[keep:] {
		cnt := counts[keep+i]
		if cnt.tf == nil {
			continue
		}
		norm := k1 * (1 - b + b*float64(cnt.length)/avgdl)
		var s float64
		for _, q := range query {
			if f := float64(cnt.tf[q.at]); f > 0 {
				s += q.weight * f * (k1 + 1) / (f + norm)
			}
		}
		gain := w.ExpandShare * s / ((k1 + 1) * ideal)
		if w.Relevance > 0 {
			// Below the last kept event: its place is the first hop's.
			gain = min(gain, (ceiling-c.sortScore)/w.Relevance*(1-1e-9))
		}
		gain = min(gain, 1-c.relevance)
		if gain <= 0 {
			continue
		}
		c.entry.Score.Expansion = round3(gain)
		c.setRelevance(c.relevance+gain, w)
	}
}
