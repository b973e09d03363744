package governance

import (
	"fmt"
	"slices"
	"strings"
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

// rankProbes are proposals of every shape the rank reads: channels,
// spreads, findings, and texts readability takes or refuses (clear, long,
// JSON, a command line, a path, a fragment, CJK).
var rankProbes = []struct {
	reason             PromotionReason
	text               string
	sessions, subjects int
	findings           []Finding
}{
	{ReasonExplicit, "Run the linter before every push", 3, 2, nil},
	{ReasonToolFailure, "When go test fails because relation does not exist, apply the pending migrations", 1, 1, nil},
	{ReasonRepeated, "Book aisle seats on long flights", 2, 1, []Finding{{Category: GateAuthority}}},
	{ReasonReviewer, "Write the trip report to the shared drive", 4, 4, nil},
	{ReasonExplicit, `run {"cmd": "git push --force"} now`, 1, 1, nil},
	{ReasonExplicit, "Send the invoice to billing", 1, 1, []Finding{{Category: GateExfiltration}}},
	{ReasonRepeated, "powershell.exe -Command Get-Content C:\\Users\\ana\\commit-msg.txt | git commit -F -", 2, 2, nil},
	{ReasonToolFailure, "Change /home/ana/app/config.yaml before running", 1, 1, nil},
	{ReasonRepeated, "Run this yourself.** Copy and paste into a terminal: before running", 2, 1, nil},
	{ReasonExplicit, "出行时优先安排高铁，酒店选在地铁站附近", 2, 2, nil},
	{ReasonExplicit, "给出方案前先用总费用核对预算，超出预算就先调整", 1, 1, nil},
	{ReasonRepeated, "Always check the total cost against the budget before presenting a plan to the traveller, and if the plan is over the budget, adjust the hotels first, then the transport, then the activities, and say what changed and why", 3, 1, nil},
	{ReasonToolFailure, "When create_charge fails because invalid integer, send `amount` as an integer number of cents", 2, 2, nil},
	{ReasonExplicit, "never commit without signing", 1, 1, nil},
	{ReasonRepeated, "ok", 5, 3, nil},
}

// RankVersion names RankProposal's output: stored ranks of an older
// version are computed again. This pins the output of the probes for the
// current version, so a change of the weights or of what readability
// refuses that moves a rank fails here until RankVersion is bumped (and
// the new output recorded).
func TestRankVersion(t *testing.T) {
	want := map[int]string{1: rankProbeOutputV1}[RankVersion]
	var b strings.Builder
	for _, p := range rankProbes {
		r := RankProposal(RankInput{Rule: &Rule{Kind: TypePreference, PromotionReason: p.reason, Text: p.text, Findings: p.findings},
			Sessions: p.sessions, Subjects: p.subjects})
		fmt.Fprintf(&b, "%.2f", r.Score)
		for _, x := range r.Reasons {
			fmt.Fprintf(&b, " %s", x.Code)
		}
		b.WriteString("\n")
	}
	if got := b.String(); got != want {
		t.Errorf("RankProposal's output on the probes changed; bump governance.RankVersion (stored ranks are then computed again) and record its output:\n%s", got)
	}
}

const rankProbeOutputV1 = `0.93 explicit sessions people clear
0.65 tool_failure one_session clear
0.55 authority repeated sessions clear
0.95 sessions people reviewer clear
0.35 unclear explicit one_session
0.30 risk explicit one_session clear
0.43 unclear repeated people sessions
0.30 unclear tool_failure one_session
0.35 unclear repeated sessions
0.88 explicit people sessions clear
0.70 explicit one_session clear
0.60 repeated sessions long
0.83 tool_failure people sessions clear
0.70 explicit one_session clear
0.60 unclear sessions people repeated
`
