package recall

import (
	"math"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Relevance is Okapi BM25 over the terms of the tokenizer package (English
// stems, CJK characters and character pairs), computed per kind of memory
// (rules, episodes, events) with the statistics of the request's own scope:
// a term most of this subject's memories share weighs little, a rare one a
// lot, whatever other projects hold.
//
// The score is divided by the most a document could score, (k1 + 1) × Σ idf
// over the query's terms the corpus holds, so relevance is in [0, 1) and
// comparable between requests: a document of average length holding each
// such term once scores 1 / (k1 + 1).

// queryTerms are the distinct terms of a task.
type queryTerms map[string]int // term → position in the query

func newQueryTerms(text string) queryTerms {
	q := queryTerms{}
	tokenizer.Tokens(text, func(t string, _ int) {
		if _, ok := q[t]; !ok {
			q[t] = len(q)
		}
	})
	return q
}

// termCounts are a document's length (in terms) and the frequencies of the
// query's terms in it.
type termCounts struct {
	length int
	tf     []int // by query position; nil when no query term occurs
}

func (q queryTerms) count(text string) termCounts {
	var c termCounts
	tokenizer.Tokens(text, func(t string, _ int) {
		c.length++
		if i, ok := q[t]; ok {
			if c.tf == nil {
				c.tf = make([]int, len(q))
			}
			c.tf[i]++
		}
	})
	return c
}

// bm25Relevance scores docs (one kind's candidates, all in scope) against q;
// it also returns each query term's idf (by query position).
// docs is the size of the scope's corpus of that kind when the store knows
// it (0: the candidates are the corpus). The store offers every in-scope
// document holding a query term, so document frequencies counted over the
// candidates are the scope's own — unless it offers only the best of
// many; then stats (the scope's own counts, which the store keeps) give
// the frequencies and the corpus size. A frequency is never taken below
// the candidates' own count.
func bm25Relevance(q queryTerms, counts []termCounts, docs int, stats *governance.TermStats, w governance.RecallWeights) ([]float64, []float64) {
	out := make([]float64, len(counts))
	if len(q) == 0 || len(counts) == 0 {
		return out, nil
	}
	n := max(docs, len(counts))
	df := make([]int, len(q))
	if stats != nil {
		n = max(stats.Docs, len(counts))
		for t, i := range q {
			df[i] = stats.DF[t]
		}
	}
	cand := make([]int, len(q))
	total := 0
	for _, c := range counts {
		total += c.length
		for i, f := range c.tf {
			if f > 0 {
				cand[i]++
			}
		}
	}
	for i := range df {
		df[i] = min(max(df[i], cand[i]), n)
	}
	avgdl := max(1, float64(total)/float64(len(counts)))
	idf := make([]float64, len(q))
	var ideal float64 // Σ idf
	for i, d := range df {
		if d == 0 {
			continue
		}
		idf[i] = math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
		ideal += idf[i]
	}
	if ideal == 0 {
		return out, idf
	}
	k1, b := w.BM25K1, w.BM25B
	for j, c := range counts {
		if c.tf == nil {
			continue
		}
		norm := k1 * (1 - b + b*float64(c.length)/avgdl)
		var s float64
		for i, f := range c.tf {
			if f > 0 {
				s += idf[i] * float64(f) * (k1 + 1) / (float64(f) + norm)
			}
		}
		out[j] = s / ((k1 + 1) * ideal)
	}
	return out, idf
}
