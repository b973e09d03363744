package heuristic_test

import "testing"

// TestDurableBlind2 reports detection on the second blind batch
// (testdata/durable_blind2.tsv), written without reading the detector, its
// corpora or the first blind batch, and run once after the extractor's
// last change: en precision 0.970, recall 0.727; zh 0.881, 0.841 — the
// issue's targets (0.9 / 0.85) were not met. It is development data since:
// after the classes it found open were fixed (topic-prefixed and
// conditional rules, exasperated repeats, task-scoped look-alikes) it
// reads en 1.000 / 0.955, zh 1.000 / 1.000, and the test fails when
// detection falls below that.
func TestDurableBlind2(t *testing.T) {
	turns := readCorpus(t, "durable_blind2.tsv")
	floor := map[string][2]float64{"en": {1.000, 0.955}, "zh": {1.000, 1.000}}
	for _, lang := range []string{"en", "zh"} {
		p, r, n := scoreCorpus(t, turns, lang)
		t.Logf("blind2 %s: %d turns, precision %.3f, recall %.3f", lang, n, p, r)
		if p < floor[lang][0]-0.0005 || r < floor[lang][1]-0.0005 {
			t.Errorf("blind2 %s: precision %.3f, recall %.3f, below the floor %.3f / %.3f", lang, p, r, floor[lang][0], floor[lang][1])
		}
	}
}
