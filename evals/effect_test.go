package evals_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

const liveSuite = `
name: live
project: travel
fixtures:
  use_live_project: true
cases:
  - {id: keeps-nap, kind: recall, task: "nap window please", include: [nap]}
  - {id: no-hotel, kind: recall, task: "hotel booking please", exclude: [hotel]}
  - {id: other-project, kind: recall, project: expense, task: "nap window please", include: [nap]}
  - id: lifecycle
    kind: sequence
    steps:
      - turns: [{text: "from now on always nap: 13:00"}]
        expect: {writes: [nap]}
`

// TestCompareSuite: each offline case of a suite reading the project's
// live memory runs against memory as it is and with the decision applied:
// regressed, fixed or unchanged; a case in a scratch project of its own or
// of another project is not run; ctx ending first leaves the rest not run
// (time limit).
func TestCompareSuite(t *testing.T) {
	suite, err := evals.ParseSuite("live.yaml", []byte(liveSuite))
	if err != nil {
		t.Fatal(err)
	}
	mem := newFakeMemory()
	nap := &governance.Rule{Text: "nap window 14:00", Kind: governance.TypePreference}
	mem.addProject("travel", nap)
	mem.addProject("expense")
	// After: the nap rule is gone and a hotel rule arrived.
	after := evals.WithRecall(mem, func(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
		res := &evals.RecallResult{}
		if strings.Contains(q.Task, "hotel") {
			res.Items = []evals.RecallItem{{ID: "rule:99", Kind: "rule", RuleID: 99, Text: "hotel Yunqi always"}}
		}
		return res, nil
	})
	got := evals.CompareSuite(context.Background(), evals.Deps{}, suite, "travel", mem, after)
	want := map[string]string{"keeps-nap": "regression", "no-hotel": "regression", "other-project": "not_run", "lifecycle": "not_run"}
	for _, c := range got.Cases {
		if string(c.Change) != want[c.CaseID] {
			t.Errorf("%s: %s (%s→%s), want %s", c.CaseID, c.Change, c.Before, c.After, want[c.CaseID])
		}
	}
	if got.Cases[3].NotRun != evals.NotRunFixtures || got.Count(evals.Regression) != 2 {
		t.Errorf("cases %+v", got.Cases)
	}
	back := evals.CompareSuite(context.Background(), evals.Deps{}, suite, "travel", after, mem)
	if back.Count(evals.Fixed) != 2 {
		t.Errorf("the other way round fixes %d cases, want 2: %+v", back.Count(evals.Fixed), back.Cases)
	}
	same := evals.CompareSuite(context.Background(), evals.Deps{}, suite, "travel", mem, mem)
	if same.Count(evals.Same) != 2 {
		t.Errorf("no change leaves %d unchanged, want 2: %+v", same.Count(evals.Same), same.Cases)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, c := range evals.CompareSuite(ctx, evals.Deps{}, suite, "travel", mem, after).Cases {
		if c.Change != evals.NotRunOffline || (c.NotRun != evals.NotRunTime && c.NotRun != evals.NotRunFixtures) {
			t.Errorf("past the deadline %s is %s (%s)", c.CaseID, c.Change, c.NotRun)
		}
	}
	if !evals.ReadsLive(suite, "travel") || !evals.ReadsLive(suite, "expense") || evals.ReadsLive(suite, "coding") {
		t.Error("ReadsLive does not follow the suite's live projects")
	}
}

// TestRegressionSuite: a project's regression suite is valid YAML whose
// cases are one JSON line each; a case of the same id is replaced.
func TestRegressionSuite(t *testing.T) {
	c := governance.RegressionCase{ID: "outcome-1", ReviewID: 1, SubjectID: "family-chen", Task: `带女儿去"上海"玩`, Exclude: 7, Include: 9}
	body, err := evals.AddRegressionCase("", "travel-agent", c)
	if err != nil {
		t.Fatal(err)
	}
	c2 := governance.RegressionCase{ID: "outcome-2", ReviewID: 2, Task: "午睡", Exclude: 8}
	if body, err = evals.AddRegressionCase(body, "travel-agent", c2); err != nil {
		t.Fatal(err)
	}
	c.Task = "换了任务"
	if body, err = evals.AddRegressionCase(body, "travel-agent", c); err != nil {
		t.Fatal(err)
	}
	s, err := evals.ParseSuite("r.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "regressions-travel-agent" || !s.Fixtures.UseLiveProject || len(s.Cases) != 2 || s.Case("outcome-1").Task != "换了任务" ||
		s.Case("outcome-1").Subject != "family-chen" || s.Case("outcome-1").Include[0].Rule != 9 || s.Case("outcome-2").Exclude[0].Rule != 8 {
		t.Errorf("suite %+v\n%s", s, body)
	}
	lines := 0
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "  - {") {
			lines++
		}
	}
	if lines != 2 {
		t.Errorf("%d case lines:\n%s", lines, body)
	}
}
