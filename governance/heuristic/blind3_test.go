package heuristic_test

import "testing"

// TestDurableBlind3 reports detection on the third blind batch
// (testdata/durable_blind3.tsv), written without reading the detector, its
// corpora or the earlier blind batches, and run once after the extractor's
// last change: en precision 0.927, recall 0.809; zh 0.935, 0.915. Chinese
// meets the targets (0.9 / 0.85); English recall does not. The
// test fails only when detection falls below that first run.
func TestDurableBlind3(t *testing.T) {
	turns := readCorpus(t, "durable_blind3.tsv")
	floor := map[string][2]float64{"en": {0.927, 0.809}, "zh": {0.935, 0.915}}
	for _, lang := range []string{"en", "zh"} {
		p, r, n := scoreCorpus(t, turns, lang)
		t.Logf("blind3 %s: %d turns, precision %.3f, recall %.3f", lang, n, p, r)
		if p < floor[lang][0]-0.0005 || r < floor[lang][1]-0.0005 {
			t.Errorf("blind3 %s: precision %.3f, recall %.3f, below the first run's %.3f / %.3f", lang, p, r, floor[lang][0], floor[lang][1])
		}
	}
}
