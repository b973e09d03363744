package governance_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestDecide_NotPlaced: a durable preference outside the low-risk set waits
// for a reviewer, and its reason names the clause that kept it out and why;
// without a clause the reason is the general one; a placed one activates.
func TestDecide_NotPlaced(t *testing.T) {
	events := map[int64]*governance.Event{1: {Seq: 1, SessionID: "s", SubjectID: "u", Role: governance.RoleUser, Source: governance.SourceConversation}}
	cand := func(lowRisk string, np *governance.NotPlaced) []*governance.Candidate {
		return []*governance.Candidate{{Type: governance.TypePreference, SubjectID: "u", Statement: "Keep replies short; stay Marlowe in every future chat.",
			Durable: true, EvidenceSeqs: []int64{1}, LowRisk: lowRisk, NotPlaced: np}}
	}
	np := &governance.NotPlaced{Clause: "stay Marlowe in every future chat", Reason: "persona_name"}
	d := governance.Decide(cand("", np), events, nil)
	want := ` It is outside the low-risk set: "stay Marlowe in every future chat" gives the agent an identity or a persona, so a reviewer must approve it.`
	if !d.Review || !strings.HasSuffix(d.Why, want) || want != governance.WhyNotPlaced(*np) {
		t.Errorf("review %v, why %q; want a review and the clause", d.Review, d.Why)
	}
	if d := governance.Decide(cand("", nil), events, nil); !d.Review || !strings.HasSuffix(d.Why, governance.WhyOutsideLowRisk) {
		t.Errorf("without a clause: review %v, why %q", d.Review, d.Why)
	}
	if d := governance.Decide(cand("length", nil), events, nil); d.Review {
		t.Errorf("placed: review %v, why %q; want no review", d.Review, d.Why)
	}
	long := governance.WhyNotPlaced(governance.NotPlaced{Clause: strings.Repeat("长", 200), Reason: "long"})
	if n := strings.Count(long, "长"); n >= 80 || !strings.Contains(long, "…") {
		t.Errorf("a long clause is quoted whole (%d runes): %q", n, long)
	}
}
