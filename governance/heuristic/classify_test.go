package heuristic

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/governance/heuristic/internal/ngram"
)

// TestClassifierReproducible retrains the classifier from the corpora and
// checks the embedded weights are what the training command writes: the
// model is a function of the repository, and a corpus change without a
// retrain (go run ./governance/heuristic/internal/train) fails here.
func TestClassifierReproducible(t *testing.T) {
	corpora, err := ngram.LoadCorpora(filepath.Join("testdata"))
	if err != nil {
		t.Fatal(err)
	}
	train, _ := ngram.Split(corpora.Labelled)
	var b bytes.Buffer
	if err := ngram.Train(ngram.Examples(train), ngram.TrainOptions{}).Write(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != standingWeights {
		t.Fatal("model/standing.tsv is stale: run go run ./governance/heuristic/internal/train")
	}
}

// TestClassifierHeldOut reports the classifier alone on its test split and
// on the held-out batch, against fixed thresholds.
func TestClassifierHeldOut(t *testing.T) {
	corpora, err := ngram.LoadCorpora(filepath.Join("testdata"))
	if err != nil {
		t.Fatal(err)
	}
	_, test := ngram.Split(corpora.Labelled)
	m := standingModel()
	for _, set := range []struct {
		name  string
		turns []ngram.Turn
	}{{"test split", test}, {"held-out batch", corpora.HeldOut}} {
		for _, lang := range []string{"en", "zh"} {
			s := ngram.Evaluate(m, set.turns, lang, 0.5)
			t.Logf("classifier alone, %s %s: %d turns, precision %.3f, recall %.3f", set.name, lang, s.N, s.Precision, s.Recall)
			if s.Precision < 0.85 || s.Recall < 0.7 {
				t.Errorf("classifier alone, %s %s: precision %.3f, recall %.3f (want ≥ 0.85 / 0.7)", set.name, lang, s.Precision, s.Recall)
			}
		}
	}
}
