package evals_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// mustRun runs a suite synchronously against mem.
func mustRun(tb testing.TB, mem evals.Memory, s *evals.Suite) *evals.Report {
	tb.Helper()
	rep, err := evals.RunSuite(context.Background(), evals.Deps{Memory: mem}, s)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

func caseResult(tb testing.TB, rep *evals.Report, id string) *evals.CaseResult {
	tb.Helper()
	for _, c := range rep.Cases {
		if c.CaseID == id {
			return c
		}
	}
	tb.Fatalf("no result for case %s", id)
	return nil
}

func wantStatus(tb testing.TB, rep *evals.Report, id, status string, reason ...string) *evals.CaseResult {
	tb.Helper()
	c := caseResult(tb, rep, id)
	if c.Status != status {
		tb.Fatalf("case %s = %s (%s), want %s\nproblems: %v", id, c.Status, c.Reason, status, c.Detail.Problems)
	}
	for _, r := range reason {
		if !strings.Contains(c.Reason+strings.Join(c.Detail.Problems, "\n"), r) {
			tb.Fatalf("case %s: reason %q / problems %v do not contain %q", id, c.Reason, c.Detail.Problems, r)
		}
	}
	return c
}

func TestRunSuiteFake(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		mem := newFakeMemory()
		rep := mustRun(t, mem, MustLoadSuite(t, "testdata/fake-suite.yaml"))
		for _, c := range rep.Cases {
			if c.Status != evals.StatusPassed {
				t.Errorf("case %s = %s: %s\n%v", c.CaseID, c.Status, c.Reason, c.Detail.Problems)
			}
		}
		if rep.Failed() {
			t.Fatalf("report failed:\n%s", rep)
		}
		m := rep.Metrics
		if m.PassRate == nil || *m.PassRate != 1 || m.Recall == nil || *m.Recall != 1 || m.Precision == nil {
			t.Fatalf("metrics = %+v", m)
		}
		if n := mem.scratchCount(); n != 0 {
			t.Fatalf("%d scratch projects left behind", n)
		}
		seq := caseResult(t, rep, "lifecycle")
		if len(seq.Detail.Steps) != 5 || !strings.Contains(strings.Join(seq.Detail.Steps[3].Notes, "\n"), "supersedes") {
			t.Fatalf("steps = %+v", seq.Detail.Steps)
		}
		if out := rep.String(); !strings.Contains(out, "4 cases: 4 passed") || !strings.Contains(out, "OK") {
			t.Fatalf("text report:\n%s", out)
		}
	})

	t.Run("RecallMustFail", func(t *testing.T) {
		// A suite expecting the expense rule in travel recall fails and says why.
		s := MustParseSuite(t, `
name: wrong-expectation
project: travel
subject: fam
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free for the nap"}]
    - project: expense
      subject: emp
      events: [{text: "invoice: always skip the invoice scan under 200 CNY"}]
cases:
  - id: expects-expense
    kind: recall
    task: plan the shanghai trip with the nap and the invoice
    include: [invoice]
  - id: excludes-nap
    kind: recall
    task: plan the shanghai trip with the nap
    exclude: [nap]
`)
		rep := mustRun(t, newFakeMemory(), s)
		wantStatus(t, rep, "expects-expense", evals.StatusFailed,
			`expected a memory matching text "invoice" in the package, but no rule in this project and subject matches it`,
			"1 memories outside the scope were filtered out")
		wantStatus(t, rep, "excludes-nap", evals.StatusFailed, `must not hold a memory matching text "nap"`)
		if !rep.Failed() || !strings.Contains(rep.String(), "FAIL") {
			t.Fatalf("report does not fail:\n%s", rep)
		}
	})

	t.Run("RecallExplainsExclusion", func(t *testing.T) {
		s := MustParseSuite(t, `
name: irrelevant
project: travel
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free"}]
cases:
  - id: c
    kind: recall
    task: book a museum ticket
    include: ["14:00"]
`)
		wantStatus(t, mustRun(t, newFakeMemory(), s), "c", evals.StatusFailed, "was excluded by recall: low relevance (score 0.20)")
	})

	t.Run("IsolationLeakMustFail", func(t *testing.T) {
		mem := newFakeMemory()
		mem.ignoreScope = true
		rep := mustRun(t, mem, MustLoadSuite(t, "testdata/fake-suite.yaml"))
		wantStatus(t, rep, "expense-stays-out", evals.StatusFailed, "leak: rule", "of project expense reached the package")
	})

	t.Run("IsolationVacuousMustFail", func(t *testing.T) {
		s := MustParseSuite(t, `
name: vacuous
project: travel
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free"}]
    - project: expense
      events: [{text: nothing durable here}]
cases:
  - id: c
    kind: isolation
    task: plan the nap
    foreign: {project: expense}
`)
		wantStatus(t, mustRun(t, newFakeMemory(), s), "c", evals.StatusFailed, "vacuous: project expense has no active rules")
	})

	t.Run("SequenceMustFail", func(t *testing.T) {
		s := MustParseSuite(t, `
name: seq
project: travel
cases:
  - id: c
    kind: sequence
    steps:
      - name: one-off
        turns: [{text: skip the nap this time}]
        expect: {writes: [nap]}
      - name: durable
        turns: [{text: "nap: always keep 14:00-16:00 free"}]
        expect: {no_writes: true}
      - name: forget nothing
        forget: museum
        expect: {forgets: [museum]}
`)
		c := wantStatus(t, mustRun(t, newFakeMemory(), s), "c", evals.StatusFailed,
			`one-off: expected a new rule matching text "nap"; no rule was written`,
			"durable: expected no new rule; new rules: rule",
			`forget nothing: nothing to forget: no rule matches text "museum"`)
		if c.Detail.Steps[0].Passed || c.Detail.Steps[1].Passed {
			t.Fatalf("steps = %+v", c.Detail.Steps)
		}
	})

	t.Run("PoisoningMustFail", func(t *testing.T) {
		mem := newFakeMemory()
		mem.promoteExternal = true
		rep := mustRun(t, mem, MustLoadSuite(t, "testdata/fake-suite.yaml"))
		wantStatus(t, rep, "rumour", evals.StatusFailed, "untrusted content produced rule",
			`a rule matches the forbidden text "Hotel X"`, "recall for the task changed")
	})

	t.Run("LiveProject", func(t *testing.T) {
		mem := newFakeMemory()
		mem.addProject("travel-agent", &governance.Rule{Text: "nap: keep 14:00-16:00 free", SubjectID: "fam"})
		mem.addProject("expense-agent", &governance.Rule{Text: "invoice: no scan under 200"})
		s := MustParseSuite(t, `
name: live
project: travel-agent
subject: fam
fixtures: {use_live_project: true}
cases:
  - id: recall
    kind: recall
    task: plan the nap
    include: [{rule: 2}]
  - id: iso
    kind: isolation
    task: plan the nap and the invoice
    foreign: {project: expense-agent}
  - id: iso-subject
    kind: isolation
    task: plan the nap
    subject: other
    foreign: {subject: fam}
  - id: missing
    kind: recall
    project: nowhere
    task: x
    include: [x]
`)
		rep := mustRun(t, mem, s)
		wantStatus(t, rep, "recall", evals.StatusPassed)
		wantStatus(t, rep, "iso", evals.StatusPassed)
		wantStatus(t, rep, "iso-subject", evals.StatusPassed)
		wantStatus(t, rep, "missing", evals.StatusError, `live project "nowhere" does not exist`)
		if mem.beats != 0 {
			t.Fatalf("heartbeat ran %d times on live projects", mem.beats)
		}
	})

	t.Run("ABSkippedWithoutModel", func(t *testing.T) {
		s := MustParseSuite(t, `
name: ab
project: travel
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free"}]
cases:
  - id: c
    kind: ab
    task: plan the trip
    rules: [{text: keep the nap}]
`)
		rep := mustRun(t, newFakeMemory(), s)
		c := wantStatus(t, rep, "c", evals.StatusSkipped)
		if c.Reason != evals.NoModelReason || rep.Failed() || rep.Metrics.PassRate != nil {
			t.Fatalf("reason = %q, failed = %v, metrics = %+v", c.Reason, rep.Failed(), rep.Metrics)
		}
	})
}

func TestCaseTimeout(t *testing.T) {
	mem := newFakeMemory()
	mem.recallDelay = 300 * time.Millisecond
	s := MustParseSuite(t, `
name: slow
project: travel
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free"}]
cases:
  - {id: slow, kind: recall, task: plan the nap, include: ["14:00"], timeout: 50ms}
  - {id: patient, kind: recall, task: plan the nap, include: ["14:00"]}
`)
	start := time.Now()
	rep := mustRun(t, mem, s)
	wantStatus(t, rep, "slow", evals.StatusError, "timed out after 50ms")
	wantStatus(t, rep, "patient", evals.StatusPassed)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %s", took)
	}
}
