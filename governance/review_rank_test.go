package governance

import (
	"slices"
	"testing"
)

// The rank orders what a reviewer approves first: an explicit instruction
// said by several people above a one-session lesson, a clear statement
// above an unreadable one, a clean one above one the gate marks; every
// reason shows.
func TestRankProposal(t *testing.T) {
	rule := func(reason PromotionReason, text string, fs ...Finding) *Rule {
		return &Rule{Kind: TypePreference, PromotionReason: reason, Text: text, Findings: fs}
	}
	clear := "Run the linter before every push"
	rank := func(r *Rule, sessions, subjects int) Rank {
		return RankProposal(RankInput{Rule: r, Sessions: sessions, Subjects: subjects})
	}
	best := rank(rule(ReasonExplicit, clear), 3, 2)
	codes := func(r Rank) []string {
		var out []string
		for _, x := range r.Reasons {
			out = append(out, x.Code)
		}
		return out
	}
	for _, c := range []string{RankExplicit, RankSessions, RankPeople, RankClear} {
		if !slices.Contains(codes(best), c) {
			t.Errorf("reasons %v lack %s", codes(best), c)
		}
	}
	order := []Rank{
		best,
		rank(rule(ReasonToolFailure, clear), 1, 1),
		rank(rule(ReasonRepeated, clear, Finding{Category: GateAuthority}), 2, 1),
		rank(rule(ReasonExplicit, `run {"cmd": "git push --force"} now`), 1, 1),
		rank(rule(ReasonExplicit, clear, Finding{Category: GateExfiltration}), 1, 1),
	}
	for i := 1; i < len(order); i++ {
		if order[i].Score >= order[i-1].Score {
			t.Errorf("rank %d (%v %.2f) not below rank %d (%v %.2f)", i, codes(order[i]), order[i].Score, i-1, codes(order[i-1]), order[i-1].Score)
		}
	}
	for _, r := range order {
		if r.Score < 0 || r.Score > 1 || len(r.Reasons) == 0 {
			t.Errorf("rank %+v", r)
		}
		for i := 1; i < len(r.Reasons); i++ {
			if abs(r.Reasons[i].Weight) > abs(r.Reasons[i-1].Weight) {
				t.Errorf("reasons not strongest first: %+v", r.Reasons)
			}
		}
	}
	rules := []*Rule{{ID: 1}, {ID: 2}, {ID: 3}}
	RankedOrder(rules, map[int64]Rank{1: {Score: 0.5}, 2: {Score: 0.9}, 3: {Score: 0.5}})
	if rules[0].ID != 2 || rules[1].ID != 3 || rules[2].ID != 1 {
		t.Errorf("order = %d %d %d, want 2 3 1", rules[0].ID, rules[1].ID, rules[2].ID)
	}
}

func abs(f float64) float64 { return max(f, -f) }
