package crashtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// Stop prints Mid and waits for the parent's SIGKILL: the child's hook at
// the point where it is to be killed.
func Stop(context.Context) error {
	fmt.Println(Mid)
	select {}
}

// EvalSuite has fixtures (a scratch project the run makes) and three
// recall cases; the fault tests kill its run between the first two.
const EvalSuite = `name: crash
project: travel
subject: u3
fixtures:
  sessions:
    - id: trip
      events:
        - text: "we always travel with the green kayak on the roof"
        - role: assistant
          text: Noted.
cases:
  - id: one
    kind: recall
    task: pack for the lake trip
    include: [kayak]
  - id: two
    kind: recall
    task: pack for the river trip
    include: [kayak]
  - id: three
    kind: recall
    task: pack for the sea trip
    include: [kayak]
`

// EvalStore is what an eval run's memory needs of a store: the eval
// memory, and a beat's input and plan.
type EvalStore interface {
	evals.MemoryStore
	FindProjectByID(ctx context.Context, id int64) (*governance.Project, error)
	LoadConsolidateInput(ctx context.Context, p *governance.Project, idle time.Duration) (*governance.ConsolidateInput, error)
	ApplyBeatPlan(ctx context.Context, plan *governance.BeatPlan) error
}

// EvalServices is the product's eval memory over s: the offline
// heuristic consolidator, one beat at a time.
func EvalServices(s EvalStore) *evals.Services {
	cons := heuristic.NewConsolidator(nil)
	var mu sync.Mutex
	return &evals.Services{Store: s, Beat: func(ctx context.Context, projectID int64) error {
		mu.Lock()
		defer mu.Unlock()
		p, err := s.FindProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		in, err := s.LoadConsolidateInput(ctx, p, time.Hour)
		if err != nil {
			return err
		}
		plan, err := cons.Plan(ctx, in)
		if err != nil {
			return err
		}
		return s.ApplyBeatPlan(ctx, plan)
	}}
}

// Memory is EvalServices that stops the process (Stop) at its second
// recall: the first case's result is stored, the run's scratch project
// is full of its fixtures.
type Memory struct {
	*evals.Services
	recalls atomic.Int32
}

// NewMemory returns s's eval memory stopping at the second recall.
func NewMemory(s EvalStore) *Memory { return &Memory{Services: EvalServices(s)} }

// Recall stops the process at the second call.
func (m *Memory) Recall(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
	if m.recalls.Add(1) == 2 {
		Stop(ctx)
	}
	return m.Services.Recall(ctx, q)
}

// RunEval is the console's eval runner over s in the child: it takes
// the queued run, and the second case's recall stops the process, with
// the first case's result stored and the run's scratch project full of
// its fixtures.
func RunEval(ctx context.Context, s RunStore) error {
	r := evals.NewRunner(s, evals.Deps{Memory: NewMemory(s), Concurrency: 1}, nil)
	r.Interval = 10 * time.Millisecond
	return r.Run(ctx)
}

// RunStore is what the eval fault tests check of a restarted store.
type RunStore interface {
	EvalStore
	evals.RunStore
	FindEvalRunByID(ctx context.Context, id int64) (*evalrow.RunRow, error)
	VerifyAudit(ctx context.Context) (*governance.AuditVerification, error)
}

// Count runs a count query on the store under test; the queries here are
// SQL both stores take.
type Count func(q string) int

// CheckResumed checks a store restarted (RepairInterrupted done) after the
// process running run runID was killed between its first and second
// case: the run is still "running" with the first result and its scratch
// project (the runner resumes it; the repair does not close it), and a
// runner started as the console starts it (Resume) resumes it: it ends
// done with one result per case, the first kept as it was, its scratch
// project gone and the audit chain verifying.
func CheckResumed(tb testing.TB, s RunStore, count Count, runID int64) {
	tb.Helper()
	ctx := context.Background()
	mid, err := s.FindEvalRunByID(ctx, runID)
	if err != nil {
		tb.Fatal(err)
	}
	before, err := s.FindEvalResults(ctx, runID)
	if err != nil {
		tb.Fatal(err)
	}
	if mid.Status != evalrow.RunRunning || mid.Done != 1 || len(before) != 1 || mid.Total != 3 {
		tb.Fatalf("after the kill: run %+v with %d results; want running, 1 of 3 done", mid, len(before))
	}
	if n := count(`SELECT COUNT(*) FROM projects WHERE scratch = TRUE`); n != 1 {
		tb.Fatalf("%d scratch projects after the kill; want the run's one", n)
	}
	got := Resume(tb, s, EvalServices(s), runID)
	if got.Status != evalrow.RunDone || got.Done != 3 {
		tb.Fatalf("resumed run = %+v; want done with 3 results", got)
	}
	after, err := s.FindEvalResults(ctx, runID)
	if err != nil || len(after) != 3 {
		tb.Fatalf("results = %d, %v; want one per case", len(after), err)
	}
	if after[0].ID != before[0].ID || after[0].CaseID != before[0].CaseID || after[0].Detail != before[0].Detail {
		tb.Fatalf("the result stored before the kill changed: %+v → %+v", before[0], after[0])
	}
	if n := count(`SELECT COUNT(*) FROM projects WHERE scratch = TRUE`); n != 0 {
		tb.Fatalf("%d scratch projects left after the resumed run", n)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		tb.Fatalf("audit after the resumed run = %+v, %v", v, err)
	}
}

// CheckCancelledWhileDown checks a store restarted after the killed run
// runID was cancelled while no console ran: the runner never resumes a
// cancelled run, so the restart removed its scratch project with the
// fixtures' text, and the run is cancelled with its one result.
func CheckCancelledWhileDown(tb testing.TB, s RunStore, count Count, runID int64) {
	tb.Helper()
	if n := count(`SELECT COUNT(*) FROM projects WHERE scratch = TRUE`); n != 0 {
		tb.Fatalf("%d scratch projects of the cancelled run left after the restart", n)
	}
	if n := count(`SELECT COUNT(*) FROM events WHERE text LIKE '%kayak%'`); n != 0 {
		tb.Fatalf("%d fixture lines of the cancelled run left after the restart", n)
	}
	if got, err := s.FindEvalRunByID(context.Background(), runID); err != nil || got.Status != evalrow.RunCancelled || got.Done != 1 {
		tb.Fatalf("run = %+v, %v; want cancelled with its one result", got, err)
	}
}

// Resume starts a runner over st with mem, as a restarting console does,
// waits (up to a minute) until run runID is no longer running, stops the
// runner and returns the run as it ended.
func Resume(tb testing.TB, st RunStore, mem evals.Memory, runID int64) *evalrow.RunRow {
	tb.Helper()
	ctx := context.Background()
	r := evals.NewRunner(st, evals.Deps{Memory: mem, Concurrency: 1}, nil)
	r.Interval = 10 * time.Millisecond
	rctx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(rctx) }()
	defer func() { cancel(); <-stopped }()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := st.FindEvalRunByID(ctx, runID)
		if err != nil {
			tb.Fatal(err)
		}
		if got.Status != evalrow.RunRunning || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// QueueEval uploads EvalSuite to st and queues a run of it, whose id it
// returns.
func QueueEval(tb testing.TB, st evals.SuiteStore) int64 {
	tb.Helper()
	ctx := context.Background()
	row, err := evals.Upload(ctx, st, "crash.yaml", []byte(EvalSuite), "admin")
	if err != nil {
		tb.Fatal(err)
	}
	run, err := evals.Enqueue(ctx, st, row.ID, "admin")
	if err != nil {
		tb.Fatal(err)
	}
	return run.ID
}
