package governance_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func harmful(id, trace, rule int64, session string) *governance.OutcomeReport {
	return &governance.OutcomeReport{ID: id, TraceID: trace, RuleID: rule, Verdict: governance.OutcomeMisled, SessionID: session}
}

// TestPlanOutcomeReviews: a rule goes to review once its harmful reports
// come from the threshold's different sessions (a session, or a recall
// without one, counts once); a newer statement makes the review a
// replacement; an open review takes new reports; a rule out of use closes
// its review; helpful reports and rules out of use never open one.
func TestPlanOutcomeReviews(t *testing.T) {
	active := func(id int64) *governance.Rule {
		return &governance.Rule{ID: id, Status: governance.RuleActive, Version: 2}
	}
	proposal := func(id, supersedes int64) *governance.Rule {
		return &governance.Rule{ID: id, Status: governance.RuleProposed, Supersedes: supersedes}
	}
	policy := governance.DefaultOutcomePolicy(1)
	for _, tc := range []struct {
		name string
		in   governance.OutcomeReviewInput
		want string
	}{
		{"OneSessionTwice", governance.OutcomeReviewInput{Policy: policy, Rules: []*governance.Rule{active(7)},
			Reports: []*governance.OutcomeReport{harmful(1, 10, 7, "s"), harmful(2, 11, 7, "s")}}, ""},
		{"TwoSessions", governance.OutcomeReviewInput{Policy: policy, Rules: []*governance.Rule{active(7)},
			Reports: []*governance.OutcomeReport{harmful(1, 10, 7, "s"), harmful(2, 11, 7, "")}}, "open 7 v2 by 0 [1 2] 2"},
		{"NewestReplacement", governance.OutcomeReviewInput{Policy: policy, Rules: []*governance.Rule{active(7), proposal(8, 7), proposal(9, 7), proposal(5, 6)},
			Reports: []*governance.OutcomeReport{harmful(1, 10, 7, ""), harmful(2, 11, 7, "")}}, "open 7 v2 by 9 [1 2] 2"},
		{"Threshold3", governance.OutcomeReviewInput{Policy: governance.OutcomePolicy{Threshold: 3}, Rules: []*governance.Rule{active(7)},
			Reports: []*governance.OutcomeReport{harmful(1, 10, 7, ""), harmful(2, 11, 7, "")}}, ""},
		{"Threshold1", governance.OutcomeReviewInput{Policy: governance.OutcomePolicy{Threshold: 1}, Rules: []*governance.Rule{active(7)},
			Reports: []*governance.OutcomeReport{harmful(1, 10, 7, "")}}, "open 7 v2 by 0 [1] 1"},
		{"Helpful", governance.OutcomeReviewInput{Policy: policy, Rules: []*governance.Rule{active(7)},
			Reports: []*governance.OutcomeReport{{ID: 1, TraceID: 10, RuleID: 7, Verdict: governance.OutcomeHelped},
				{ID: 2, TraceID: 11, RuleID: 7, Verdict: governance.OutcomeNotUsed}}}, ""},
		{"OutOfUse", governance.OutcomeReviewInput{Policy: policy, Rules: []*governance.Rule{proposal(9, 7)},
			Reports: []*governance.OutcomeReport{harmful(1, 10, 7, ""), harmful(2, 11, 7, "")}}, ""},
		{"MoreEvidence", governance.OutcomeReviewInput{Policy: policy, Rules: []*governance.Rule{active(7)},
			Reports: []*governance.OutcomeReport{harmful(3, 12, 7, "x")},
			Open:    []*governance.OutcomeReview{{ID: 4, RuleID: 7, RuleVersion: 1, Sessions: 2}}}, "add 4 7 v1 by 0 [3] 3"},
		{"Closed", governance.OutcomeReviewInput{Policy: policy,
			Open: []*governance.OutcomeReview{{ID: 4, RuleID: 7, Sessions: 2}}}, "close [4]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := planString(governance.PlanOutcomeReviews(&tc.in)); got != tc.want {
				t.Errorf("plan = %q, want %q", got, tc.want)
			}
		})
	}
}

func planString(p *governance.OutcomeReviewPlan) string {
	var parts []string
	for _, d := range p.Drafts {
		s := "open "
		if d.ReviewID != 0 {
			s = "add " + itoa(d.ReviewID) + " "
		}
		parts = append(parts, s+itoa(d.RuleID)+" v"+itoa(int64(d.RuleVersion))+" by "+itoa(d.ReplacementID)+" "+ids(d.ReportIDs)+" "+itoa(int64(d.Sessions)))
	}
	if len(p.Close) > 0 {
		parts = append(parts, "close "+ids(p.Close))
	}
	return strings.Join(parts, "; ")
}

func ids(v []int64) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = itoa(id)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestReceipt: the hash covers the policy and every item's id, version and
// text hash, in order; a tampered receipt no longer checks as intact; an
// item is unchanged, edited (new version or text) or forgotten (absent).
func TestReceipt(t *testing.T) {
	items := []governance.ReceiptItem{governance.ReceiptItemOf("rule:7", 2, "nap 14:00"), governance.ReceiptItemOf("episode:3", 0, "summary")}
	r := governance.NewReceipt("recall-a", items)
	if !r.Intact() || !strings.HasPrefix(r.Hash, "sha256:") {
		t.Fatalf("receipt %+v", r)
	}
	for name, other := range map[string]*governance.RecallReceipt{
		"policy":  governance.NewReceipt("recall-b", items),
		"version": governance.NewReceipt("recall-a", []governance.ReceiptItem{governance.ReceiptItemOf("rule:7", 3, "nap 14:00"), items[1]}),
		"text":    governance.NewReceipt("recall-a", []governance.ReceiptItem{governance.ReceiptItemOf("rule:7", 2, "nap 13:00"), items[1]}),
		"order":   governance.NewReceipt("recall-a", []governance.ReceiptItem{items[1], items[0]}),
	} {
		if other.Hash == r.Hash {
			t.Errorf("changing the %s keeps the hash", name)
		}
	}
	tampered := *r
	tampered.Items = append([]governance.ReceiptItem(nil), r.Items...)
	tampered.Items[0].Version = 9
	if tampered.Intact() {
		t.Error("a tampered receipt checks as intact")
	}
	checks := governance.CheckReceipt(r, map[string]governance.ReceiptItem{
		"rule:7": governance.ReceiptItemOf("rule:7", 3, "nap 13:00"),
	})
	if checks[0].State != governance.ReceiptEdited || checks[0].CurrentVersion != 3 ||
		checks[1] != (governance.ReceiptCheck{ID: "episode:3", State: governance.ReceiptForgotten}) {
		t.Errorf("checks = %+v", checks)
	}
	if c := governance.CheckReceipt(r, map[string]governance.ReceiptItem{"rule:7": items[0], "episode:3": items[1]}); c[0].State != governance.ReceiptUnchanged || c[1].State != governance.ReceiptUnchanged {
		t.Errorf("unchanged items check as %+v", c)
	}
}

// TestCheckOutcome: a report names an item the package included (not one
// it left out) and, when it gives a task, the recall's own task.
func TestCheckOutcome(t *testing.T) {
	tr := &governance.OutcomeTarget{TraceID: 5, TaskHash: governance.TaskHash("去上海"), Included: []string{"rule:7", "episode:2"}}
	for _, tc := range []struct {
		in   governance.OutcomeInput
		rule int64
		ok   bool
	}{
		{governance.OutcomeInput{ItemID: "rule:7", Verdict: governance.OutcomeMisled, Task: "去上海"}, 7, true},
		{governance.OutcomeInput{Verdict: governance.OutcomeHelped}, 0, true},
		{governance.OutcomeInput{ItemID: "episode:2", Verdict: governance.OutcomeHelped}, 0, true},
		{governance.OutcomeInput{ItemID: "rule:8", Verdict: governance.OutcomeMisled}, 0, false},
		{governance.OutcomeInput{ItemID: "rule:7", Verdict: governance.OutcomeMisled, Task: "去北京"}, 0, false},
	} {
		rule, err := governance.CheckOutcome(tr, tc.in)
		if (err == nil) != tc.ok || rule != tc.rule {
			t.Errorf("CheckOutcome(%+v) = %d, %v", tc.in, rule, err)
		}
	}
	bad := governance.OutcomeInput{Verdict: "great"}
	bad.Normalize()
	if governance.ErrorCode(bad.Validate()) != governance.EINVALID {
		t.Error("an unknown verdict validates")
	}
}

// TestDraftRegressionCase: the newest report's task, in its recall's
// scope; the rule's own text when no report gave one.
func TestDraftRegressionCase(t *testing.T) {
	rv := &governance.OutcomeReview{ID: 3, RuleID: 7, ReplacementID: 9}
	r := &governance.Rule{ID: 7, Text: "nap 14:00–16:00"}
	c := governance.DraftRegressionCase(rv, r, []*governance.OutcomeReport{
		{ID: 1, Task: "old task", SubjectID: "a"}, {ID: 4, Task: "new task", SubjectID: "b"}, {ID: 2, Task: "mid", SubjectID: "c"}})
	if c.ID != "outcome-3" || c.Task != "new task" || c.SubjectID != "b" || c.Exclude != 7 || c.Include != 9 {
		t.Errorf("case %+v", c)
	}
	if c := governance.DraftRegressionCase(rv, r, nil); c.Task != r.Text {
		t.Errorf("case without tasks asks %q", c.Task)
	}
}
