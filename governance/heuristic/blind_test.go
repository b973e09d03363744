package heuristic_test

import "testing"

// TestDurableBlind reports detection on the blind batch
// (testdata/durable_blind.tsv), written by someone who had not read the
// detector and run once: en precision 0.921, recall 0.625; zh 0.857,
// 0.808. Its file header keeps those first-run figures. The test fails
// only when detection falls below them: the batch is development data now.
func TestDurableBlind(t *testing.T) {
	turns := readCorpus(t, "durable_blind.tsv")
	floor := map[string][2]float64{"en": {0.921, 0.625}, "zh": {0.857, 0.808}}
	for _, lang := range []string{"en", "zh"} {
		p, r, n := scoreCorpus(t, turns, lang)
		t.Logf("blind %s: %d turns, precision %.3f, recall %.3f", lang, n, p, r)
		if p < floor[lang][0]-0.0005 || r < floor[lang][1]-0.0005 {
			t.Errorf("blind %s: precision %.3f, recall %.3f, below the first run's %.3f / %.3f", lang, p, r, floor[lang][0], floor[lang][1])
		}
	}
}
