package storetest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// OutcomeStore is the outcomes part of a store (docs/outcomes.md).
type OutcomeStore interface {
	MemoryStore
	SaveOutcome(ctx context.Context, actor string, r *governance.OutcomeReport) error
	FindOutcomes(ctx context.Context, f governance.OutcomeFilter) ([]*governance.OutcomeReport, int, error)
	FindRuleOutcomes(ctx context.Context, ruleIDs []int64) (map[int64]governance.OutcomeCounts, error)
	FindOutcomePolicy(ctx context.Context, projectID int64) (governance.OutcomePolicy, error)
	SetOutcomePolicy(ctx context.Context, actor string, p governance.OutcomePolicy) error
	FindOutcomeReviews(ctx context.Context, f governance.OutcomeReviewFilter) ([]*governance.OutcomeReview, int, error)
	FindOutcomeReviewByID(ctx context.Context, id int64) (*governance.OutcomeReview, error)
	DecideOutcomeReview(ctx context.Context, actor string, id int64, accept bool, reason string, caseAdded bool) (*governance.OutcomeReview, error)
	LoadOutcomeReviewInput(ctx context.Context, projectID int64) (*governance.OutcomeReviewInput, error)
	ApplyOutcomeReviewPlan(ctx context.Context, plan *governance.OutcomeReviewPlan) error
	RecallItemsNow(ctx context.Context, projectID int64, ids []string) (map[string]governance.ReceiptItem, error)
	RulesStamp(ctx context.Context, projectID int64) (string, error)
	FindOutcomeTarget(ctx context.Context, traceID int64) (*governance.OutcomeTarget, error)
}

func openOutcomes(t *testing.T, open Opener) OutcomeStore {
	t.Helper()
	s, ok := OpenMemory(t, open).(OutcomeStore)
	if !ok {
		t.Fatalf("%T does not implement storetest.OutcomeStore", s)
	}
	return s
}

// recallTrace recalls task for family-1 and returns the package and its
// stored trace.
func recallTrace(t *testing.T, s OutcomeStore, p *governance.Project, subject, task string) (*governance.RecallPackage, *governance.RecallTraceInfo) {
	t.Helper()
	ctx := context.Background()
	pkg, err := s.Recall(ctx, "token:1", governance.RecallRequest{Task: task, ProjectID: p.ID, SubjectID: subject})
	if err != nil {
		t.Fatal(err)
	}
	traces, _, err := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ID: pkg.Trace.ID})
	if err != nil || len(traces) != 1 {
		t.Fatalf("trace %d: %v, %d found", pkg.Trace.ID, err, len(traces))
	}
	return pkg, traces[0]
}

func report(t *testing.T, s OutcomeStore, tr *governance.RecallTraceInfo, item string, ruleID int64, v governance.OutcomeVerdict,
	session, note, task string) *governance.OutcomeReport {
	t.Helper()
	r := &governance.OutcomeReport{ProjectID: tr.ProjectID, TraceID: tr.ID, SubjectID: tr.SubjectID, ItemID: item, RuleID: ruleID,
		Verdict: v, SessionID: session, Note: note, Task: task}
	if err := s.SaveOutcome(context.Background(), "token:1", r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOutcomes: a recall's receipt is stored with its trace and checked
// against memory later; reports count per rule, once per item; harmful
// reports from the threshold's sessions become a review that the
// reviewer's decision applies (a demotion, a replacement); forgets take
// the reports' words along.
func TestOutcomes(t *testing.T, open Opener) {
	ctx := context.Background()
	s := openOutcomes(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	p, rule := f.Project, f.Rules
	nap := governance.RecallRuleID(rule[RuleNap])
	task := "带女儿去上海玩两天，下午要留时间午睡吗？"
	pkg, tr := recallTrace(t, s, p, "family-1", task)

	t.Run("Receipt", func(t *testing.T) {
		rc := tr.Receipt
		if rc == nil || !rc.Intact() || rc.Hash != pkg.Receipt.Hash || len(rc.Items) != len(pkg.Items) {
			t.Fatalf("stored receipt %+v, package's %+v", rc, pkg.Receipt)
		}
		if !slices.ContainsFunc(rc.Items, func(it governance.ReceiptItem) bool {
			return it.ID == nap && it.TextHash == governance.TextHash(FixtureRuleTexts[RuleNap]) && it.Version == 1
		}) {
			t.Fatalf("receipt items %+v lack %s at version 1", rc.Items, nap)
		}
		ids := make([]string, len(rc.Items))
		for i, it := range rc.Items {
			ids[i] = it.ID
		}
		now, err := s.RecallItemsNow(ctx, p.ID, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range governance.CheckReceipt(rc, now) {
			if c.State != governance.ReceiptUnchanged {
				t.Errorf("%s is %s right after the recall", c.ID, c.State)
			}
		}
		target, err := s.FindOutcomeTarget(ctx, tr.ID)
		if err != nil || target.ProjectID != p.ID || target.SubjectID != "family-1" || target.TaskHash != governance.TaskHash(task) ||
			len(target.Included) != len(pkg.Items) || !slices.Contains(target.Included, nap) {
			t.Errorf("outcome target %+v, %v; package %v", target, err, ids)
		}
		_, err = s.FindOutcomeTarget(ctx, tr.ID+1000)
		wantCode(t, err, governance.ENOTFOUND)
		// Another project's ids are not this project's items.
		if other, _ := s.RecallItemsNow(ctx, p.ID+1000, ids); len(other) != 0 {
			t.Errorf("items of project %d found in another: %v", p.ID, other)
		}
	})

	first := report(t, s, tr, nap, rule[RuleNap], governance.OutcomeMisled, "agent-a", "nap is 13:00 now", task)
	t.Run("Concurrent", func(t *testing.T) {
		// Reports from many agents at once, two of them on the same
		// item: each one is stored once, and only the second of the pair
		// is refused.
		_, trC := recallTrace(t, s, p, "family-1", "下午午睡怎么安排？")
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() {
				item := ""
				if i%2 == 1 {
					item = nap
				}
				errs[i] = s.SaveOutcome(ctx, "token:1", &governance.OutcomeReport{ProjectID: p.ID, TraceID: trC.ID,
					ItemID: item, Verdict: governance.OutcomeNotUsed})
			})
		}
		wg.Wait()
		refused := 0
		for _, err := range errs {
			if err != nil {
				wantCode(t, err, governance.ECONFLICT)
				refused++
			}
		}
		if got, n, _ := s.FindOutcomes(ctx, governance.OutcomeFilter{TraceID: trC.ID}); n != 2 || refused != 6 {
			t.Errorf("%d stored (%+v), %d refused; want 2 and 6", n, got, refused)
		}
		err := s.SaveOutcome(ctx, "token:1", &governance.OutcomeReport{ProjectID: p.ID, TraceID: trC.ID + 100000, Verdict: governance.OutcomeHelped})
		wantCode(t, err, governance.ENOTFOUND)
	})
	t.Run("Reports", func(t *testing.T) {
		err := s.SaveOutcome(ctx, "token:1", &governance.OutcomeReport{ProjectID: p.ID, TraceID: tr.ID, ItemID: nap,
			RuleID: rule[RuleNap], Verdict: governance.OutcomeHelped})
		wantCode(t, err, governance.ECONFLICT)
		report(t, s, tr, "", 0, governance.OutcomeHelped, "", "", "")
		counts, err := s.FindRuleOutcomes(ctx, []int64{rule[RuleNap], rule[RuleFar]})
		if err != nil {
			t.Fatal(err)
		}
		if c := counts[rule[RuleNap]]; c.Misled != 1 || c.Total() != 1 {
			t.Errorf("nap counts %+v, want one misled", c)
		}
		if _, ok := counts[rule[RuleFar]]; ok {
			t.Errorf("counts of a rule nobody reported: %+v", counts)
		}
		got, total, err := s.FindOutcomes(ctx, governance.OutcomeFilter{TraceID: tr.ID})
		if err != nil || total != 2 || got[1].ID != first.ID || got[1].Note != "nap is 13:00 now" || got[1].Task != task {
			t.Fatalf("trace reports = %+v (%d), %v", got, total, err)
		}
		if e := lastAuditOf(t, s, "recall_trace"); e.Action != "outcome.report" || strings.Contains(e.Details, "13:00") {
			t.Errorf("last audit row %+v: want outcome.report without the note", e)
		}
		listed, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Sort: governance.RuleSortMisled, Limit: 3})
		if err != nil || len(listed) == 0 || listed[0].ID != rule[RuleNap] {
			t.Fatalf("rules by misled: first %v, %v", listed, err)
		}
	})

	t.Run("Review", func(t *testing.T) {
		plan := planOutcomes(t, s, p.ID)
		if !plan.Empty() {
			t.Fatalf("one session's report drafted %+v", plan)
		}
		_, tr2 := recallTrace(t, s, p, "family-1", "午睡时间怎么安排？")
		report(t, s, tr2, nap, rule[RuleNap], governance.OutcomeConflicted, "agent-b", "", "")
		plan = planOutcomes(t, s, p.ID)
		if len(plan.Drafts) != 1 || plan.Drafts[0].RuleID != rule[RuleNap] || plan.Drafts[0].ReplacementID != 0 || plan.Drafts[0].Sessions != 2 {
			t.Fatalf("plan %+v, want a demotion of the nap rule from 2 sessions", plan)
		}
		if err := s.ApplyOutcomeReviewPlan(ctx, plan); err != nil {
			t.Fatal(err)
		}
		if again := planOutcomes(t, s, p.ID); !again.Empty() {
			t.Errorf("a second beat plans %+v", again)
		}
		open, _, err := s.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{ProjectID: p.ID, Statuses: []governance.OutcomeReviewStatus{governance.ReviewOpen}})
		if err != nil || len(open) != 1 {
			t.Fatalf("open reviews %+v, %v", open, err)
		}
		ev, _, _ := s.FindOutcomes(ctx, governance.OutcomeFilter{ReviewID: open[0].ID})
		if len(ev) != 2 {
			t.Errorf("review evidence %d reports, want 2", len(ev))
		}
		_, err = s.DecideOutcomeReview(ctx, "alice", open[0].ID, true, "", true)
		wantCode(t, err, governance.EINVALID)
		rv, err := s.DecideOutcomeReview(ctx, "alice", open[0].ID, true, "The family changed the nap time.", true)
		if err != nil {
			t.Fatal(err)
		}
		if rv.Status != governance.ReviewAccepted || !rv.CaseAdded || rv.DecidedBy != "alice" {
			t.Errorf("decided review %+v", rv)
		}
		if r, _ := s.FindRuleByID(ctx, rule[RuleNap]); r.Status != governance.RuleStale {
			t.Errorf("nap rule is %s after the demotion, want stale", r.Status)
		}
		_, err = s.DecideOutcomeReview(ctx, "alice", open[0].ID, false, "again", false)
		wantCode(t, err, governance.ECONFLICT)
		if e := lastAuditOf(t, s, "outcome_review"); e.Action != "outcome.review_accept" {
			t.Errorf("last review audit %+v", e)
		}
	})

	t.Run("Replacement", func(t *testing.T) {
		if _, err := s.SupersedeRule(ctx, "alice", rule[RuleFar], rule[RuleProposed], "newer wording"); err != nil {
			t.Fatal(err)
		}
		far := governance.RecallRuleID(rule[RuleFar])
		for i, session := range []string{"x", "y"} {
			_, trN := recallTrace(t, s, p, "", []string{"远距离的大型景点怎么安排？", "同一区域的景点放在同一天吗？"}[i])
			if !slices.ContainsFunc(trN.Trace.Considered, func(e governance.RecallTraceEntry) bool { return e.ID == far && e.Included }) {
				t.Skipf("the fixture's far rule was not recalled for trace %d", trN.ID)
			}
			report(t, s, trN, far, rule[RuleFar], governance.OutcomeMisled, session, "", "")
		}
		plan := planOutcomes(t, s, p.ID)
		if len(plan.Drafts) != 1 || plan.Drafts[0].ReplacementID != rule[RuleProposed] {
			t.Fatalf("plan %+v, want a replacement by rule %d", plan, rule[RuleProposed])
		}
		if err := s.ApplyOutcomeReviewPlan(ctx, plan); err != nil {
			t.Fatal(err)
		}
		open, _, _ := s.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{RuleID: rule[RuleFar], Statuses: []governance.OutcomeReviewStatus{governance.ReviewOpen}})
		if len(open) != 1 {
			t.Fatalf("open reviews of the far rule: %+v", open)
		}
		if _, err := s.DecideOutcomeReview(ctx, "alice", open[0].ID, true, "replaced", false); err != nil {
			t.Fatal(err)
		}
		old, _ := s.FindRuleByID(ctx, rule[RuleFar])
		newer, _ := s.FindRuleByID(ctx, rule[RuleProposed])
		if old.Status != governance.RuleSuperseded || old.SupersededBy != newer.ID || newer.Status != governance.RuleActive {
			t.Errorf("after the replacement: old %s (by %d), newer %s", old.Status, old.SupersededBy, newer.Status)
		}
	})

	t.Run("Policy", func(t *testing.T) {
		if pol, err := s.FindOutcomePolicy(ctx, p.ID); err != nil || pol.Threshold != governance.DefaultOutcomeThreshold || pol.RequireNoRegression {
			t.Fatalf("default policy %+v, %v", pol, err)
		}
		wantCode(t, s.SetOutcomePolicy(ctx, "admin", governance.OutcomePolicy{ProjectID: p.ID, Threshold: 0}), governance.EINVALID)
		if err := s.SetOutcomePolicy(ctx, "admin", governance.OutcomePolicy{ProjectID: p.ID, Threshold: 3, RequireNoRegression: true}); err != nil {
			t.Fatal(err)
		}
		if pol, _ := s.FindOutcomePolicy(ctx, p.ID); pol.Threshold != 3 || !pol.RequireNoRegression {
			t.Errorf("policy %+v after setting it", pol)
		}
	})

	t.Run("Stamp", func(t *testing.T) {
		before, err := s.RulesStamp(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EditRule(ctx, "alice", rule[RuleCheck], governance.RuleEdit{Text: "每次出行程都附上路线检查结论。", Reason: "shorter"}); err != nil {
			t.Fatal(err)
		}
		if after, _ := s.RulesStamp(ctx, p.ID); after == before {
			t.Errorf("stamp %q unchanged by an edit", after)
		}
		check := governance.RecallRuleID(rule[RuleCheck])
		now, _ := s.RecallItemsNow(ctx, p.ID, []string{check})
		rc := governance.NewReceipt("p", []governance.ReceiptItem{governance.ReceiptItemOf(check, 1, FixtureRuleTexts[RuleCheck])})
		if c := governance.CheckReceipt(rc, now); c[0].State != governance.ReceiptEdited || c[0].CurrentVersion != 2 {
			t.Errorf("edited rule checks as %+v", c[0])
		}
	})

	t.Run("Forget", func(t *testing.T) {
		// A regression suite with a case of each family.
		body, err := evals.AddRegressionCase("", p.Slug, governance.RegressionCase{ID: "outcome-1", ReviewID: 1, SubjectID: "family-1",
			Task: task, Exclude: rule[RuleNap]})
		if err == nil {
			body, err = evals.AddRegressionCase(body, p.Slug, governance.RegressionCase{ID: "outcome-2", ReviewID: 2, SubjectID: "family-2",
				Task: "家里的另一个孩子几点午睡？", Exclude: rule[RuleOther]})
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpsertEvalSuite(ctx, &evals.SuiteRow{Name: evals.RegressionSuiteName(p.Slug), Origin: evals.OriginRegression, Body: body}, "alice"); err != nil {
			t.Fatal(err)
		}
		_, trO := recallTrace(t, s, p, "family-2", "家里的另一个孩子几点午睡？")
		quoting := report(t, s, trO, "", 0, governance.OutcomeNotUsed, "", "it said "+FixtureRuleTexts[RuleCheck], "")
		if _, err := s.ForgetRule(ctx, "alice", rule[RuleNap], false); err != nil {
			t.Fatal(err)
		}
		reps, _, _ := s.FindOutcomes(ctx, governance.OutcomeFilter{RuleID: rule[RuleNap]})
		for _, r := range reps {
			if r.Note != "" || r.Task != "" {
				t.Errorf("report %d of the forgotten rule keeps note %q, task %q", r.ID, r.Note, r.Task)
			}
		}
		if _, err := s.ForgetRule(ctx, "alice", rule[RuleCheck], false); err != nil {
			t.Fatal(err)
		}
		got, _, _ := s.FindOutcomes(ctx, governance.OutcomeFilter{TraceID: trO.ID})
		if len(got) != 1 || got[0].ID != quoting.ID || strings.Contains(got[0].Note, "附上路线检查") {
			t.Errorf("a note quoting a forgotten rule still reads %+v", got)
		}
		if _, err := s.ForgetSubject(ctx, "alice", p.ID, "family-1"); err != nil {
			t.Fatal(err)
		}
		fam := "family-1"
		if left, n, _ := s.FindOutcomes(ctx, governance.OutcomeFilter{ProjectID: p.ID, SubjectID: &fam}); n != 0 {
			t.Errorf("%d reports of the forgotten subject remain: %+v", n, left)
		}
		counts, _ := s.FindRuleOutcomes(ctx, []int64{rule[RuleNap]})
		if c := counts[rule[RuleNap]]; c.Total() != 0 {
			t.Errorf("counts of the forgotten subject's reports remain: %+v", c)
		}
		suite, err := s.FindEvalSuiteByName(ctx, evals.RegressionSuiteName(p.Slug))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(suite.Body, "family-1") || strings.Contains(suite.Body, "上海") || !strings.Contains(suite.Body, "family-2") {
			t.Errorf("regression suite after the subject forget:\n%s", suite.Body)
		}
	})
}

func planOutcomes(t *testing.T, s OutcomeStore, projectID int64) *governance.OutcomeReviewPlan {
	t.Helper()
	in, err := s.LoadOutcomeReviewInput(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	return governance.PlanOutcomeReviews(in)
}

func lastAuditOf(t *testing.T, s Store, objectType string) *governance.AuditEntry {
	t.Helper()
	rows, _, err := s.FindAudit(context.Background(), governance.AuditFilter{ObjectType: objectType, Limit: 1})
	if err != nil || len(rows) == 0 {
		t.Fatalf("no audit row about a %s: %v", objectType, err)
	}
	return rows[0]
}
