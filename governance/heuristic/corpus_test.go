package heuristic_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic/internal/ngram"
)

// corpusTurn is one labelled user turn.
type corpusTurn struct {
	lang, label, text string
}

func readCorpus(tb testing.TB, name string) []corpusTurn {
	tb.Helper()
	turns, err := ngram.ReadTurns(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]corpusTurn, len(turns))
	for i, t := range turns {
		out[i] = corpusTurn{t.Lang, t.Label, t.Text}
	}
	return out
}

// detectsDurable reports whether the extractor takes the turn, alone in a
// session, as a durable instruction.
func detectsDurable(tb testing.TB, text string) bool {
	tb.Helper()
	ex := mustExtract(tb, session("user", text))
	for _, it := range ex.Items {
		if it.Type == governance.TypePreference && it.Durable {
			return true
		}
	}
	return false
}

// checkDurable fails the test for each of durable not taken as a standing
// instruction and each of lookAlikes taken as one.
func checkDurable(t *testing.T, durable, lookAlikes []string) {
	t.Helper()
	for _, s := range durable {
		if !detectsDurable(t, s) {
			t.Errorf("not taken as a standing instruction: %s", s)
		}
	}
	for _, s := range lookAlikes {
		if detectsDurable(t, s) {
			t.Errorf("taken as a standing instruction: %s", s)
		}
	}
}

// scoreCorpus returns precision and recall of durable-instruction detection
// for one language, logging every miss.
func scoreCorpus(tb testing.TB, turns []corpusTurn, lang string) (precision, recall float64, n int) {
	tb.Helper()
	var tp, fp, fn int
	for _, c := range turns {
		if c.lang != lang {
			continue
		}
		n++
		got, want := detectsDurable(tb, c.text), c.label == "durable"
		switch {
		case got && want:
			tp++
		case got && !want:
			fp++
			tb.Logf("false positive (%s): %s", c.label, c.text)
		case !got && want:
			fn++
			tb.Logf("missed: %s", c.text)
		}
	}
	precision, recall = 1, 1
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	return precision, recall, n
}

// TestDurableReports reports durable-instruction detection on every
// labelled set of testdata (durable_*.tsv: the corpus the marker rules were
// first tuned on, the development and blind batches of coding turns, the
// development batch across other domains, and the held-out batches) against
// fixed thresholds — precision ≥ 0.9 and recall ≥ 0.8 in each language on
// the sets developed on, precision ≥ 0.9 and recall ≥ 0.5 on the held-out
// batches — not against the figures of any run. The held-out batches' misses are not
// logged: they are measured, never read for tuning.
func TestDurableReports(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "durable_*.tsv"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no labelled set: %v", err)
	}
	total := 0
	for _, name := range names {
		base := filepath.Base(name)
		turns := readCorpus(t, base)
		total += len(turns)
		var tb testing.TB = t
		minP, minR := 0.9, 0.8
		if strings.HasPrefix(base, "durable_heldout") {
			// Measured, never tuned on: the floor catches a broken
			// extractor; the figures are the report.
			tb, minP, minR = quiet{t}, 0.9, 0.5
		}
		for _, lang := range []string{"en", "zh"} {
			p, r, n := scoreCorpus(tb, turns, lang)
			t.Logf("%s %s: %d turns, precision %.3f, recall %.3f", base, lang, n, p, r)
			if p < minP || r < minR {
				t.Errorf("%s %s: precision %.3f, recall %.3f (want ≥ %.1f / %.1f)", base, lang, p, r, minP, minR)
			}
		}
	}
	if total < 2000 {
		t.Errorf("the labelled sets hold %d turns, want at least 2000", total)
	}
}

// quiet is a testing.TB that does not log: the held-out batch's misses stay
// unread.
type quiet struct{ *testing.T }

func (quiet) Logf(string, ...any) {}
