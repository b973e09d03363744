package evals_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
)

// realServices wires the product the way the console does: the store, a
// per-project beat with the offline heuristic consolidator, the store's
// recall and forget.
func realServices(tb testing.TB, st *store.Store) *evals.Services {
	tb.Helper()
	cons := heuristic.NewConsolidator(nil)
	var mu sync.Mutex // one beat at a time, like the heartbeat
	beat := func(ctx context.Context, projectID int64) error {
		mu.Lock()
		defer mu.Unlock()
		p, err := st.FindProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		in, err := st.LoadConsolidateInput(ctx, p, time.Hour)
		if err != nil {
			return err
		}
		if in.NewCheckpoint <= in.Checkpoint && len(in.Sessions) == 0 {
			return nil
		}
		plan, err := cons.Plan(ctx, in)
		if err != nil {
			return err
		}
		return st.ApplyBeatPlan(ctx, plan)
	}
	forget := func(ctx context.Context, ruleID int64, actor string) error {
		_, err := st.ForgetRule(ctx, actor, ruleID, false)
		return err
	}
	return &evals.Services{Store: st, Beat: beat, Forget: forget}
}

func TestBuiltinSuites(t *testing.T) {
	ctx := context.Background()
	files := seed.BuiltinSuites()
	if len(files) != 7 {
		t.Fatalf("built-in suites = %d, want 7", len(files))
	}
	st := MustOpenStore(t)
	if err := evals.InstallBuiltins(ctx, st, files); err != nil {
		t.Fatal(err)
	}
	// Installing again changes nothing.
	if err := evals.InstallBuiltins(ctx, st, files); err != nil {
		t.Fatal(err)
	}
	list, err := evals.List(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(files) {
		t.Fatalf("listed %d suites", len(list))
	}
	for _, info := range list {
		if info.Problem != "" || info.Origin != evals.OriginBuiltin {
			t.Fatalf("suite %s: %+v", info.Name, info)
		}
	}
	mem := realServices(t, st)
	for _, info := range list {
		t.Run(info.Name, func(t *testing.T) {
			s, err := evals.Find(ctx, st, info.Name)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := evals.RunSuite(ctx, evals.Deps{Memory: mem}, s)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("\n%s", rep)
			for _, c := range rep.Cases {
				switch {
				case c.Kind == evals.KindAB:
					if c.Status != evals.StatusSkipped || c.Reason != evals.NoModelReason {
						t.Errorf("%s = %s (%s), want skipped without a model", c.CaseID, c.Status, c.Reason)
					}
				case c.Status != evals.StatusPassed:
					t.Errorf("%s = %s: %s\n%v", c.CaseID, c.Status, c.Reason, c.Detail.Problems)
				}
			}
		})
	}
	projects, _ := st.FindProjects(ctx)
	if len(projects) != 0 {
		t.Fatalf("%d scratch projects left", len(projects))
	}
}
