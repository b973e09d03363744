package heuristic

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/mnemo-console/mnemo/governance/heuristic/internal/ngram"
)

// The statistical component: a logistic regression over word and
// character n-grams (internal/ngram), trained on the labelled corpora of
// testdata by `go run ./governance/heuristic/internal/train`, its weights
// embedded. It never decides alone: it settles only the sentences the
// reader leaves open (reading.weak). docs/extractor.md has its held-out
// figures.

//go:embed model/standing.tsv
var standingWeights string

var standingModel = sync.OnceValue(func() *ngram.Model {
	m, err := ngram.Read(strings.NewReader(standingWeights))
	if err != nil {
		panic("heuristic: embedded classifier: " + err.Error())
	}
	return m
})

// standingProb is the classifier's probability that text is a standing
// instruction.
func standingProb(text string) float64 { return standingModel().Prob(text) }

// weakThreshold: a sentence the structure leaves open is a standing
// instruction at or above this probability (chosen on out-of-fold
// probabilities of the development sets).
const weakThreshold = 0.25
