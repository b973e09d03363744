package gate_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance/gate"
)

// BenchmarkScanStatementP95 times the gate on every corpus statement (base
// attacks, their variants and benign lines) and reports the median and the
// 95th percentile per statement.
func BenchmarkScanStatementP95(b *testing.B) {
	var texts []string
	for _, l := range readCorpus(b, "testdata/gate/benign.txt") {
		texts = append(texts, l.text)
	}
	for _, a := range attackCorpus(b, "testdata/gate/attacks.txt", true) {
		texts = append(texts, a.text)
	}
	durations := make([]time.Duration, 0, b.N*len(texts))
	for b.Loop() {
		for _, text := range texts {
			start := time.Now()
			gate.Scan(text)
			durations = append(durations, time.Since(start))
		}
	}
	slices.Sort(durations)
	p := func(q float64) float64 {
		return float64(durations[int(q*float64(len(durations)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(p(0.5), "p50-µs")
	b.ReportMetric(p(0.95), "p95-µs")
	b.ReportMetric(p(0.99), "p99-µs")
	b.ReportMetric(float64(len(texts)), "statements")
}

// gateBenchTexts returns the base lines of the attack corpus and the
// benign corpus. GATE_ATTACKS and GATE_BENIGN point an older checkout at
// this checkout's corpora, so both gates time the same statements.
func gateBenchTexts(b *testing.B) []string {
	attacks, benign := os.Getenv("GATE_ATTACKS"), os.Getenv("GATE_BENIGN")
	if attacks == "" {
		attacks, benign = "testdata/gate/attacks.txt", "testdata/gate/benign.txt"
	}
	var texts []string
	for _, name := range []string{attacks, benign} {
		for _, l := range readCorpus(b, name) {
			if _, t, ok := strings.Cut(l.text, "\t"); ok && strings.HasSuffix(name, "attacks.txt") {
				l.text = t
			}
			texts = append(texts, l.text)
		}
	}
	return texts
}

// timePerStatement runs f over every text once per round and reports the
// 50th and 95th percentile of single timings (p50-µs, p95-µs) and of each
// statement's fastest round (p50-min-µs, p95-min-µs). On a shared machine
// single timings include other processes' time slices; the fastest of
// several rounds is the statement's own cost.
func timePerStatement(b *testing.B, texts []string, f func(string)) {
	best := make([]time.Duration, len(texts))
	var all []time.Duration
	for b.Loop() {
		for i, t := range texts {
			st := time.Now()
			f(t)
			d := time.Since(st)
			all = append(all, d)
			if best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	pct := func(ds []time.Duration, q float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[int(q*float64(len(ds)-1))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(pct(all, 0.5), "p50-µs")
	b.ReportMetric(pct(all, 0.95), "p95-µs")
	b.ReportMetric(pct(best, 0.5), "p50-min-µs")
	b.ReportMetric(pct(best, 0.95), "p95-min-µs")
	b.ReportMetric(float64(len(texts)), "statements")
}

// BenchmarkScanBaseP95 times Scan per statement over the base lines of the
// attack corpus and the benign corpus (the same files for the old and the
// new gate). Run it with -benchtime 20x or more: the min figures need
// several rounds.
func BenchmarkScanBaseP95(b *testing.B) {
	timePerStatement(b, gateBenchTexts(b), func(t string) { gate.Scan(t) })
}

// BenchmarkScanBaseline times, over the same statements, what the
// simplest pattern list costs: the text lower-cased and searched for one
// phrase. The gate's figures are read as ratios to it, from the same run.
func BenchmarkScanBaseline(b *testing.B) {
	timePerStatement(b, gateBenchTexts(b), func(t string) {
		_ = strings.Contains(strings.ToLower(t), "ignore previous instructions")
	})
}

// BenchmarkClassifyBaseP95 is BenchmarkScanBaseP95 through the classifier
// seam every caller uses (gate.Patterns: patterns, risk features and the
// low-risk set).
func BenchmarkClassifyBaseP95(b *testing.B) {
	ctx := context.Background()
	timePerStatement(b, gateBenchTexts(b), func(t string) {
		if _, err := gate.Patterns.Classify(ctx, t); err != nil {
			b.Fatal(err)
		}
	})
}
