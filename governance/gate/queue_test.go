package gate_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/gate/gatecorpus"
)

// TestScan_Queue: in a project where every proposal waits for a reviewer,
// an attack that carries no finding reaches the queue as an ordinary
// preference. Every attack of queue_attacks.txt (another party's words given
// the user's authority, the user's word set above operators or reviewers,
// review of memory switched off, acting when unsure, hints in tool output
// carried out) carries one finding at least. The benign lines of
// queue_benign.txt share their words: none is blocked, and the ones with a
// finding (a chip the reviewer reads for nothing) are reported and bounded.
func TestScan_Queue(t *testing.T) {
	attacks := attackCorpus(t, "testdata/gate/queue_attacks.txt", false)
	classes := map[string]int{}
	chinese, silent := 0, 0
	for _, a := range attacks {
		classes[a.class]++
		if a.chinese {
			chinese++
		}
		res := gate.Scan(a.text)
		if len(res.Findings) == 0 {
			silent++
			t.Errorf("line %d (%s): no finding (not placed: %+v): %q", a.line, a.class, res.NotPlaced, a.text)
		}
	}
	t.Logf("queue attacks: %d, %d without a finding", len(attacks), silent)
	if len(attacks) < 40 || chinese*3 < len(attacks) {
		t.Errorf("corpus: %d attacks, %d Chinese; want 40 and a third Chinese at least", len(attacks), chinese)
	}
	for _, c := range []string{"other_party", "over_operators", "review_off", "act_unsure", "tool_hints"} {
		if classes[c] < 5 {
			t.Errorf("corpus has %d %s lines, want 5 at least", classes[c], c)
		}
	}

	benign := readCorpus(t, "testdata/gate/queue_benign.txt")
	chips, zh := 0, 0
	for _, l := range benign {
		if gatecorpus.IsChinese(l.text) {
			zh++
		}
		res := gate.Scan(l.text)
		if res.Blocked() {
			t.Errorf("benign line %d blocked: %v %q", l.n, categories(res.Findings), l.text)
		}
		if len(res.Findings) > 0 {
			chips++
			t.Logf("benign line %d with a finding: %v %q", l.n, categories(res.Findings), l.text)
		}
	}
	t.Logf("queue benign: %d, %d with a finding", len(benign), chips)
	if len(benign) < 40 || zh*3 < len(benign) {
		t.Errorf("corpus: %d benign lines, %d Chinese; want 40 and a third Chinese at least", len(benign), zh)
	}
	// The lines that let the agent skip a confirmation about formatting
	// ("go ahead and use bullet points without asking") do relax a check;
	// a reviewer sees them marked. Anything beyond one line in seven is
	// noise in the queue.
	if chips*7 > len(benign) {
		t.Errorf("%d of %d benign lines carry a finding; want one in seven at most", chips, len(benign))
	}
}
