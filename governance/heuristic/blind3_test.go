package heuristic_test

import "testing"

// TestDurableBlind3 reports detection on the third blind batch
// (testdata/durable_blind3.tsv), written without reading the detector, its
// corpora or the earlier blind batches, and run once after the extractor's
// last change: en precision 0.927, recall 0.809; zh 0.935, 0.915. Chinese
// meets the targets (0.9 / 0.85); English recall does not. Since
// then the batch is development data: after the scope-in-other-words
// classes (issue 13) it reads en 1.000 / 1.000, zh 1.000 / 0.936, and the
// test fails when detection falls below that.
func TestDurableBlind3(t *testing.T) {
	turns := readCorpus(t, "durable_blind3.tsv")
	floor := map[string][2]float64{"en": {1.000, 1.000}, "zh": {1.000, 0.936}}
	for _, lang := range []string{"en", "zh"} {
		p, r, n := scoreCorpus(t, turns, lang)
		t.Logf("blind3 %s: %d turns, precision %.3f, recall %.3f", lang, n, p, r)
		if p < floor[lang][0]-0.0005 || r < floor[lang][1]-0.0005 {
			t.Errorf("blind3 %s: precision %.3f, recall %.3f, below the floor %.3f / %.3f", lang, p, r, floor[lang][0], floor[lang][1])
		}
	}
}
