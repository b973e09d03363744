package heuristic_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// corpusTurn is one labelled user turn.
type corpusTurn struct {
	lang, label, text string
}

func readCorpus(tb testing.TB, name string) []corpusTurn {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []corpusTurn
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 || (parts[0] != "en" && parts[0] != "zh") {
			tb.Fatalf("%s line %d: want lang<TAB>label<TAB>text", name, n)
		}
		out = append(out, corpusTurn{parts[0], parts[1], parts[2]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
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

// TestDurableCorpus measures durable-instruction detection on the labelled
// corpus the extractor was tuned on (testdata/durable_corpus.tsv).
func TestDurableCorpus(t *testing.T) {
	turns := readCorpus(t, "durable_corpus.tsv")
	if len(turns) < 300 {
		t.Fatalf("corpus has %d turns, want at least 300", len(turns))
	}
	for _, lang := range []string{"en", "zh"} {
		p, r, n := scoreCorpus(t, turns, lang)
		t.Logf("%s: %d turns, precision %.3f, recall %.3f", lang, n, p, r)
		if p < 0.9 || r < 0.85 {
			t.Errorf("%s: precision %.3f (want ≥ 0.9), recall %.3f (want ≥ 0.85)", lang, p, r)
		}
	}
}

// TestDurableUnseen reports detection on a second batch written after the
// extractor was final (testdata/durable_unseen.tsv); it was run once, and
// its misses were not tuned away.
func TestDurableUnseen(t *testing.T) {
	turns := readCorpus(t, "durable_unseen.tsv")
	if len(turns) < 100 {
		t.Fatalf("unseen batch has %d turns, want at least 100", len(turns))
	}
	for _, lang := range []string{"en", "zh"} {
		p, r, n := scoreCorpus(t, turns, lang)
		t.Logf("unseen %s: %d turns, precision %.3f, recall %.3f", lang, n, p, r)
		if p < 0.9 || r < 0.85 {
			t.Errorf("unseen %s: precision %.3f (want ≥ 0.9), recall %.3f (want ≥ 0.85)", lang, p, r)
		}
	}
}

// TestDurableDevBatches measures detection on the development batches
// (testdata/durable_dev*.tsv): turns written before the extractor saw
// them, most of them look-alikes that carry the words of a standing
// instruction without being one. Each batch's first-run figures, and the
// classes fixed after it, are in the batch file's header; what is checked
// here is that every batch stays at the targets.
func TestDurableDevBatches(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "durable_dev*.tsv"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no development batch: %v", err)
	}
	total := 0
	for _, name := range names {
		turns := readCorpus(t, filepath.Base(name))
		total += len(turns)
		for _, lang := range []string{"en", "zh"} {
			p, r, n := scoreCorpus(t, turns, lang)
			t.Logf("%s %s: %d turns, precision %.3f, recall %.3f", filepath.Base(name), lang, n, p, r)
			if p < 0.9 || r < 0.85 {
				t.Errorf("%s %s: precision %.3f (want ≥ 0.9), recall %.3f (want ≥ 0.85)", filepath.Base(name), lang, p, r)
			}
		}
	}
	if total < 150 {
		t.Errorf("development batches hold %d turns, want at least 150", total)
	}
}
