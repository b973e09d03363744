package gate

import (
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// traditional writes s in traditional characters: each simplified
// character hantFold reads a traditional one as is replaced by the first
// such traditional character.
func traditional(s string) (string, bool) {
	inverse := map[rune]rune{}
	for t, s := range hantFold {
		if old, ok := inverse[s]; !ok || t < old {
			inverse[s] = t
		}
	}
	changed := false
	out := []rune(s)
	for i, r := range out {
		if t, ok := inverse[r]; ok {
			out[i], changed = t, true
		}
	}
	return string(out), changed
}

// TestScan_Traditional: every Chinese line of the corpora, written in
// traditional characters, meets the same findings and the same placement
// as in simplified ones (the blocking rules, the risk features, the
// low-risk classes and the placement shapes all read the folded text).
func TestScan_Traditional(t *testing.T) {
	n := 0
	for _, line := range corpusLines(t) {
		trad, ok := traditional(line)
		if !ok {
			continue
		}
		n++
		want, got := Scan(line), Scan(trad)
		pw, pg := findingPatterns(want), findingPatterns(got)
		if !slices.Equal(pw, pg) || want.LowRisk != got.LowRisk {
			t.Errorf("%q: findings %v placed %q; in traditional characters %q: findings %v placed %q", line, pw, want.LowRisk, trad, pg, got.LowRisk)
		}
	}
	if n < 300 {
		t.Errorf("%d corpus lines rewritten in traditional characters, want 300 at least", n)
	}
	t.Logf("%d Chinese corpus lines read the same in traditional characters", n)
}

// findingPatterns lists the patterns of r's findings, sorted.
func findingPatterns(r governance.GateResult) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Category+"/"+f.Pattern)
	}
	slices.Sort(out)
	return out
}
