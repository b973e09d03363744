package storetest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// TestRepairRemovesOrphanScratch: RepairInterrupted removes the scratch
// projects (with their rows) no live eval run owns — a server run that
// ended, a CLI run whose lease expired or that holds none — and keeps a
// running server run's, a CLI run's whose lease is current, and every
// project not flagged scratch whatever its slug. An expired lease cannot
// be renewed, and a prefix cannot be claimed twice.
func TestRepairRemovesOrphanScratch(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	suite := MustCreateEvalSuite(t, s, "orphans")
	running := &evals.RunRow{SuiteID: suite.ID, Total: 1, CreatedBy: "admin"}
	if err := s.CreateEvalRun(ctx, running); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimEvalRun(ctx); err != nil {
		t.Fatal(err)
	}
	ended := &evals.RunRow{SuiteID: suite.ID, Total: 1, CreatedBy: "admin"}
	if err := s.CreateEvalRun(ctx, ended); err != nil {
		t.Fatal(err)
	}
	if err := s.CancelEvalRun(ctx, ended.ID, "admin"); err != nil {
		t.Fatal(err)
	}
	const live, expired, unclaimed = "eval-cli-0000000a-", "eval-cli-0000000b-", "eval-cli-0000000c-"
	if err := s.ClaimScratch(ctx, live, "test", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimScratch(ctx, live, "another", time.Hour); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("second claim of %s: %v, want ECONFLICT", live, err)
	}
	if err := s.ClaimScratch(ctx, expired, "test", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if held, err := s.RenewScratch(ctx, expired, time.Hour); err != nil || held {
		t.Fatalf("renewing an expired lease: %v, %v; want false", held, err)
	}
	if held, err := s.RenewScratch(ctx, live, time.Hour); err != nil || !held {
		t.Fatalf("renewing a live lease: %v, %v; want true", held, err)
	}
	scratch := func(slug string) *governance.Project {
		t.Helper()
		p := &governance.Project{Slug: slug, Name: slug, Scratch: true}
		if err := s.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "orphan fixture line about the violet canoe")}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keep := []*governance.Project{
		scratch(evals.RunScratchPrefix(running.ID) + "s-travel"),
		scratch(live + "s-travel"),
		scratch(live + "c0-case"),
		MustCreateProject(t, s, "eval-cli-0000000d-s-travel"), // not flagged
	}
	gone := []*governance.Project{
		scratch(evals.RunScratchPrefix(ended.ID) + "s-travel"),
		scratch(expired + "s-travel"),
		scratch(unclaimed + "c1-case"),
		scratch(unclaimed + "s-travel"),
	}
	n, err := s.RepairInterrupted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("RepairInterrupted = %d, want the 3 dead runs cleaned up after", n)
	}
	for _, p := range gone {
		if _, err := s.FindProjectByID(ctx, p.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("orphan %s left: %v", p.Slug, err)
		}
		if events, total, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); err == nil && total+len(events) != 0 {
			t.Errorf("orphan %s left %d events", p.Slug, total)
		}
	}
	for _, p := range keep {
		if _, err := s.FindProjectByID(ctx, p.ID); err != nil {
			t.Errorf("project %s of a live owner was removed: %v", p.Slug, err)
		}
	}
	// The run over, its claim goes: nothing guards its leftovers then.
	if err := s.ReleaseScratch(ctx, live); err != nil {
		t.Fatal(err)
	}
	if held, err := s.RenewScratch(ctx, live, time.Hour); err != nil || held {
		t.Fatalf("renewing a released lease: %v, %v; want false", held, err)
	}
	if n, err := s.RemoveOrphanScratch(ctx); err != nil || n != 1 {
		t.Fatalf("RemoveOrphanScratch after the release = %d, %v; want the released run's", n, err)
	}
	if _, err := s.FindProjectByID(ctx, keep[1].ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Errorf("scratch of a released claim left: %v", err)
	}
}

// copyGate is the product's eval memory over a store, gated: the first
// time the run reaches point (after reading the live project's events for
// copy_events, or at a case's recall) it says so on reached and waits for
// release.
type copyGate struct {
	*evals.Services
	point   string
	once    sync.Once
	reached chan struct{}
	release chan struct{}
	// forgotten is set once the test's forget committed; leaked records
	// an ingest of the forgotten subject's lines that succeeded after it.
	forgotten, leaked atomic.Bool
}

func (g *copyGate) wait(point string) {
	if point == g.point {
		g.once.Do(func() {
			close(g.reached)
			<-g.release
		})
	}
}

func (g *copyGate) FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error) {
	events, n, err := g.Services.FindEvents(ctx, f)
	g.wait("copy")
	return events, n, err
}

func (g *copyGate) IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	after := g.forgotten.Load()
	res, err := g.Services.IngestEvents(ctx, projectID, events)
	if err == nil && after && slices.ContainsFunc(events, func(e *governance.Event) bool { return e.SubjectID == "family-2" }) {
		g.leaked.Store(true)
	}
	return res, err
}

func (g *copyGate) Recall(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
	g.wait("recall")
	return g.Services.Recall(ctx, q)
}

// copySuite copies the travel project's events into its scratch project
// and recalls for the subject whose lines the test forgets.
const copySuite = `name: copy
project: travel
subject: family-2
fixtures: {copy_events: {travel: travel}}
cases:
  - {id: disney, kind: recall, task: 上海迪士尼 午睡, include: [午睡]}
  - {id: nap, kind: recall, task: 午睡 安排, include: [午睡]}
`

// TestForgetDuringEvalCopy: a subject forget committed while an eval run
// that copies the project's events (fixtures.copy_events) is in flight —
// after the run read the events and before it wrote them into its scratch
// project (Copying), or after the copy, while a case runs (Running) —
// leaves the subject's text neither in the run's scratch projects nor in
// its stored results, and the run says why it failed or withholds.
func TestForgetDuringEvalCopy(t *testing.T, open Opener) {
	for _, point := range []string{"copy", "recall"} {
		t.Run(map[string]string{"copy": "Copying", "recall": "Running"}[point], func(t *testing.T) {
			ctx := context.Background()
			s := OpenMemory(t, open)
			mem, ok := s.(evals.MemoryStore)
			if !ok {
				t.Fatalf("%T does not implement evals.MemoryStore", s)
			}
			f := LoadMemoryFixture(t, s, "travel")
			row, err := evals.Upload(ctx, s, "copy.yaml", []byte(copySuite), "admin")
			if err != nil {
				t.Fatal(err)
			}
			run, err := evals.Enqueue(ctx, s, row.ID, "admin")
			if err != nil {
				t.Fatal(err)
			}
			var beats sync.Mutex
			gate := &copyGate{point: point, reached: make(chan struct{}), release: make(chan struct{}),
				Services: &evals.Services{Store: mem, Beat: func(ctx context.Context, projectID int64) error {
					beats.Lock()
					defer beats.Unlock()
					p, err := s.FindProjectByID(ctx, projectID)
					if err != nil {
						return err
					}
					_, err = (&governance.Heartbeat{Store: s, Consolidator: heuristic.NewConsolidator(nil), Idle: time.Hour}).BeatProject(ctx, p)
					return err
				}}}
			r := evals.NewRunner(s, evals.Deps{Memory: gate, Concurrency: 1}, nil)
			r.Interval = 10 * time.Millisecond
			rctx, cancel := context.WithCancel(ctx)
			stopped := make(chan error, 1)
			go func() { stopped <- r.Run(rctx) }()
			defer func() { cancel(); <-stopped }()
			// A failing check must not leave the run waiting at the gate.
			releaseGate := sync.OnceFunc(func() { close(gate.release) })
			defer releaseGate()
			select {
			case <-gate.reached:
			case <-time.After(time.Minute):
				t.Fatal("the run never reached the gate")
			}
			if _, err := s.ForgetSubject(ctx, "admin", f.Project.ID, "family-2"); err != nil {
				t.Fatal(err)
			}
			gate.forgotten.Store(true)
			// Right after the forget, before the run goes on: no scratch
			// project of the run holds the subject's lines.
			prefix := evals.RunScratchPrefix(run.ID)
			scratchLeft := func(when string) {
				t.Helper()
				p, err := s.FindProjectBySlug(ctx, prefix+"s-travel")
				if governance.ErrorCode(err) == governance.ENOTFOUND {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range events {
					if strings.Contains(ev.Text, "上海迪士尼") || ev.SubjectID == "family-2" {
						t.Fatalf("%s: the run's scratch project %s still holds the forgotten subject's line %q", when, p.Slug, ev.Text)
					}
				}
			}
			scratchLeft("after the forget")
			releaseGate()
			deadline := time.Now().Add(time.Minute)
			var got *evals.RunRow
			for {
				if got, err = s.FindEvalRunByID(ctx, run.ID); err != nil {
					t.Fatal(err)
				}
				if got.Status != evals.RunRunning && got.Status != evals.RunQueued || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got.Status == evals.RunRunning || got.Status == evals.RunQueued {
				t.Fatalf("run still %s after a minute", got.Status)
			}
			scratchLeft("after the run")
			if gate.leaked.Load() {
				t.Error("the run wrote the forgotten subject's lines, read before the forget, into its scratch project after it")
			}
			results, err := s.FindEvalResults(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range results {
				if strings.Contains(res.Detail, "上海迪士尼") || strings.Contains(res.Detail, "另一家人") {
					t.Errorf("result %s quotes the forgotten subject: %s", res.CaseID, res.Detail)
				}
			}
			if point == "copy" && (got.Status != evals.RunFailed || !strings.Contains(got.Error, "forget")) {
				t.Errorf("run = %s %q; want failed, saying a forget removed its copy", got.Status, got.Error)
			}
		})
	}
}
