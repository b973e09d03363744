package evals_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// MustOpenStore opens a store on a real SQLite file in a temp dir.
func MustOpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	s := sqlitetest.Open(tb)
	return s
}

// manyCases builds a suite for the fake with n recall cases.
func manyCases(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `name: %s
project: travel
fixtures:
  sessions:
    - events: [{text: "nap: always keep 14:00-16:00 free"}]
cases:
`, name)
	for i := range n {
		fmt.Fprintf(&b, "  - {id: c%03d, kind: recall, task: plan the nap %d, include: [\"14:00\"]}\n", i, i)
	}
	return b.String()
}

// MustEnqueue stores a suite and queues a run of it.
func MustEnqueue(tb testing.TB, st *store.Store, body string) *evals.RunRow {
	tb.Helper()
	ctx := context.Background()
	row, err := evals.Upload(ctx, st, "suite.yaml", []byte(body), "tester")
	if err != nil {
		tb.Fatal(err)
	}
	run, err := evals.Enqueue(ctx, st, row.ID, "tester")
	if err != nil {
		tb.Fatal(err)
	}
	return run
}

// startRunner runs r in the background; the returned stop cancels it and
// waits for Run to return.
func startRunner(tb testing.TB, r *evals.Runner) (stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("runner: %v", err)
			}
		case <-time.After(time.Minute):
			tb.Fatal("runner did not stop")
		}
	}
	tb.Cleanup(stop)
	return stop
}

// waitRun polls the run until cond holds.
func waitRun(tb testing.TB, st *store.Store, id int64, what string, cond func(*evals.RunRow) bool) *evals.RunRow {
	tb.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		run, err := st.FindEvalRunByID(context.Background(), id)
		if err != nil {
			tb.Fatal(err)
		}
		if cond(run) {
			return run
		}
		if time.Now().After(deadline) {
			tb.Fatalf("run %d never got %s: %+v", id, what, run)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func newTestRunner(st *store.Store, mem evals.Memory) *evals.Runner {
	r := evals.NewRunner(st, evals.Deps{Memory: mem, Concurrency: 2}, nil)
	r.Interval = 20 * time.Millisecond
	return r
}

func TestRunner(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		st := MustOpenStore(t)
		mem := newFakeMemory()
		body, _ := readFile(t, "testdata/fake-suite.yaml")
		run := MustEnqueue(t, st, body)
		if run.Status != evals.RunQueued || run.Total != 4 {
			t.Fatalf("queued run = %+v", run)
		}
		r := newTestRunner(st, mem)
		startRunner(t, r)
		r.Nudge()
		got := waitRun(t, st, run.ID, "done", func(r *evals.RunRow) bool { return r.Status == evals.RunDone })
		if got.Done != 4 || got.Passed != 4 || got.FinishedAt == nil {
			t.Fatalf("run = %+v", got)
		}
		sum := evals.ParseRunSummary(got.Summary)
		if sum.Metrics == nil || sum.Metrics.PassRate == nil || *sum.Metrics.PassRate != 1 || sum.SuiteYAML == "" {
			t.Fatalf("summary = %s", got.Summary)
		}
		results, err := st.FindEvalResults(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		rep := evals.ReportOf(got, results)
		if rep.Failed() || len(rep.Cases) != 4 || rep.Cases[2].Detail == nil || len(rep.Cases[2].Detail.Steps) != 5 {
			t.Fatalf("report = %s", rep)
		}
		if n := mem.scratchCount(); n != 0 {
			t.Fatalf("%d scratch projects left", n)
		}
	})

	t.Run("SurvivesRestart", func(t *testing.T) {
		st := MustOpenStore(t)
		mem := newFakeMemory()
		mem.recallDelay = 30 * time.Millisecond
		run := MustEnqueue(t, st, manyCases("slow", 30))

		stop := startRunner(t, newTestRunner(st, mem))
		waitRun(t, st, run.ID, "some results", func(r *evals.RunRow) bool { return r.Done >= 4 })
		stop() // the console shuts down mid-run
		mid, _ := st.FindEvalRunByID(ctx, run.ID)
		if mid.Status != evals.RunRunning || mid.Done >= mid.Total {
			t.Fatalf("after shutdown: %+v", mid)
		}
		before, _ := st.FindEvalResults(ctx, run.ID)

		startRunner(t, newTestRunner(st, mem)) // the console starts again
		got := waitRun(t, st, run.ID, "done", func(r *evals.RunRow) bool { return r.Status == evals.RunDone })
		if got.Done != 30 || got.Passed != 30 {
			t.Fatalf("resumed run = %+v", got)
		}
		after, _ := st.FindEvalResults(ctx, run.ID)
		if len(after) != 30 {
			t.Fatalf("results = %d, want 30", len(after))
		}
		for i, r := range before {
			if after[i].ID != r.ID || after[i].CaseID != r.CaseID {
				t.Fatalf("result %d changed across the restart: %+v → %+v", i, r, after[i])
			}
		}
		if n := mem.scratchCount(); n != 0 {
			t.Fatalf("%d scratch projects left", n)
		}
		t.Logf("%d of 30 cases were done before the restart", len(before))
	})

	t.Run("Cancel", func(t *testing.T) {
		st := MustOpenStore(t)
		mem := newFakeMemory()
		mem.recallDelay = 30 * time.Millisecond
		run := MustEnqueue(t, st, manyCases("slow", 50))
		startRunner(t, newTestRunner(st, mem))
		waitRun(t, st, run.ID, "some results", func(r *evals.RunRow) bool { return r.Done >= 2 })
		if err := st.CancelEvalRun(ctx, run.ID, "tester"); err != nil {
			t.Fatal(err)
		}
		first, _ := st.FindEvalRunByID(ctx, run.ID)
		// The runner notices within a few intervals and removes the run's
		// scratch projects; nothing it finishes meanwhile is counted.
		deadline := time.Now().Add(2 * time.Minute)
		for mem.scratchCount() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d scratch projects left after cancel", mem.scratchCount())
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // five more intervals
		second, _ := st.FindEvalRunByID(ctx, run.ID)
		if second.Status != evals.RunCancelled || second.Done != first.Done || second.Done >= 50 {
			t.Fatalf("cancelled run kept going: %+v then %+v", first, second)
		}
	})

	t.Run("InvalidSuiteFailsRun", func(t *testing.T) {
		st := MustOpenStore(t)
		row := &evals.SuiteRow{Name: "broken", Origin: evals.OriginUploaded, Body: "name: broken\ncases: []\n"}
		if err := st.UpsertEvalSuite(ctx, row, "tester"); err != nil {
			t.Fatal(err)
		}
		if _, err := evals.Enqueue(ctx, st, row.ID, "tester"); err == nil || !strings.Contains(err.Error(), "at least one case") {
			t.Fatalf("enqueue err = %v", err)
		}
		// A run queued before the suite broke fails with the reason.
		run := &evals.RunRow{SuiteID: row.ID, CreatedBy: "tester"}
		if err := st.CreateEvalRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		startRunner(t, newTestRunner(st, newFakeMemory()))
		got := waitRun(t, st, run.ID, "failed", func(r *evals.RunRow) bool { return r.Status == evals.RunFailed })
		if !strings.Contains(got.Error, "at least one case") {
			t.Fatalf("error = %q", got.Error)
		}
	})

	t.Run("SetupErrorFailsRun", func(t *testing.T) {
		st := MustOpenStore(t)
		run := MustEnqueue(t, st, `
name: copy
project: travel
fixtures: {copy_events: {travel: travel-agent}}
cases:
  - {id: c, kind: recall, task: t, include: [x]}
`)
		startRunner(t, newTestRunner(st, newFakeMemory()))
		got := waitRun(t, st, run.ID, "failed", func(r *evals.RunRow) bool { return r.Status == evals.RunFailed })
		if !strings.Contains(got.Error, "copy_events from travel-agent") {
			t.Fatalf("error = %q", got.Error)
		}
	})
}
