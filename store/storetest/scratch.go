package storetest

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/evalrow"
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
	running := &evalrow.RunRow{SuiteID: suite.ID, Total: 1, CreatedBy: "admin"}
	if err := s.CreateEvalRun(ctx, running); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimEvalRun(ctx); err != nil {
		t.Fatal(err)
	}
	ended := &evalrow.RunRow{SuiteID: suite.ID, Total: 1, CreatedBy: "admin"}
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
		scratch(evalrow.RunScratchPrefix(running.ID) + "s-travel"),
		scratch(live + "s-travel"),
		scratch(live + "c0-case"),
		MustCreateProject(t, s, "eval-cli-0000000d-s-travel"), // not flagged
	}
	gone := []*governance.Project{
		scratch(evalrow.RunScratchPrefix(ended.ID) + "s-travel"),
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
// time the run reaches point (right after it copied the live project's
// events into its scratch project, before the heartbeat there; or at a
// case's recall) it says so on reached and waits for release.
type copyGate struct {
	*evals.Services
	point   string
	once    sync.Once
	reached chan struct{}
	release chan struct{}
}

func (g *copyGate) wait(point string) {
	if point == g.point {
		g.once.Do(func() {
			close(g.reached)
			<-g.release
		})
	}
}

func (g *copyGate) CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error) {
	n, err := g.Services.CopyEvents(ctx, prefix, sourceID, scratchID)
	g.wait("copy")
	return n, err
}

func (g *copyGate) Recall(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
	g.wait("recall")
	return g.Services.Recall(ctx, q)
}

// copySuite copies the travel project's events into its scratch project;
// two cases recall for the subject whose lines the test forgets, one for
// another subject.
const copySuite = `name: copy
project: travel
subject: family-2
fixtures: {copy_events: {travel: travel}}
cases:
  - {id: disney, kind: recall, task: 上海迪士尼 午睡, include: [午睡]}
  - {id: nap, kind: recall, task: 午睡 安排, include: [午睡]}
  - {id: beijing, kind: recall, subject: family-1, task: 北京 午睡, include: ["14:00"]}
`

// TestForgetDuringEvalCopy: a forget committed while an eval run that
// copies the project's events (fixtures.copy_events) is in flight — right
// after the run copied the events into its scratch project, before its
// heartbeat there (Copied), or while a case runs (Running) — forgets the
// copy of what it forgets in the run's scratch project too, in its
// transaction: a subject's events, rules and episodes, or a rule with its
// lines and what the scratch heartbeat learned from them (worded its own
// way). Nothing of it is left there (recall, search, the rows; on SQLite
// not in the database file either), while the rest of the scratch data
// survives. The run goes on and ends done: the cases that read what went
// are skipped saying a forget removed their data, the others pass, and
// the run's report counts the forget.
func TestForgetDuringEvalCopy(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name, point string
		forget      func(ctx context.Context, s Store, f *Fixture) error
		// gone are fragments of what the forget removes; subject is the
		// subject whose lines go (or whose lines stay, kept).
		gone            []string
		subject, kept   string
		skipped, passed []string
	}{
		{name: "SubjectCopied", point: "copy", forget: forgetFamily2, gone: family2Lines, subject: "family-2", kept: "family-1",
			skipped: []string{"disney", "nap"}, passed: []string{"beijing"}},
		{name: "SubjectRunning", point: "recall", forget: forgetFamily2, gone: family2Lines, subject: "family-2", kept: "family-1",
			skipped: []string{"disney", "nap"}, passed: []string{"beijing"}},
		{name: "RuleRunning", point: "recall", forget: func(ctx context.Context, s Store, f *Fixture) error {
			_, err := s.ForgetRule(ctx, "admin", f.Rules[RuleNap], true)
			return err
		}, gone: []string{"14:00–16:00"}, kept: "family-2", skipped: []string{"beijing"}, passed: []string{"disney", "nap"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
			gate := &copyGate{point: tc.point, reached: make(chan struct{}), release: make(chan struct{}),
				Services: &evals.Services{Store: mem, Beat: func(ctx context.Context, projectID int64) error {
					beats.Lock()
					defer beats.Unlock()
					p, err := s.FindProjectByID(ctx, projectID)
					if err != nil {
						return err
					}
					_, err = (&consolidate.Heartbeat{Store: s, Consolidator: heuristic.NewConsolidator(nil), Idle: time.Hour}).BeatProject(ctx, p)
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
			if err := tc.forget(ctx, s, f); err != nil {
				t.Fatal(err)
			}
			// Right after the forget, before the run goes on: the run's
			// scratch project is still there, without what went.
			scratch, err := s.FindProjectBySlug(ctx, evalrow.RunScratchPrefix(run.ID)+"s-travel")
			if err != nil {
				t.Fatalf("the forget removed the run's scratch project: %v", err)
			}
			events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &scratch.ID})
			if err != nil {
				t.Fatal(err)
			}
			kept := 0
			for _, ev := range events {
				if tc.subject != "" && ev.SubjectID == tc.subject || containsAny(ev.Text, tc.gone...) {
					t.Errorf("the run's scratch project still holds the forgotten line %q (%s)", ev.Text, ev.SubjectID)
				}
				if ev.SubjectID == tc.kept && !ev.Redacted && ev.Text != "" {
					kept++
				}
			}
			if kept == 0 {
				t.Errorf("the forget took %s's lines from the scratch project too: %+v", tc.kept, events)
			}
			rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &scratch.ID})
			if err != nil {
				t.Fatal(err)
			}
			for _, rule := range rules {
				if tc.subject != "" && rule.SubjectID == tc.subject || containsAny(rule.Text, tc.gone...) {
					t.Errorf("the scratch project keeps the forgotten rule %d (%s, %s): %q", rule.ID, rule.Status, rule.SubjectID, rule.Text)
				}
			}
			for _, subject := range []string{"family-1", "family-2"} {
				pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "上海迪士尼 北京 午睡 14:00", ProjectID: scratch.ID, SubjectID: subject})
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range pkg.Items {
					if containsAny(it.Text, tc.gone...) {
						t.Errorf("recall for %s in the scratch project returns what was forgotten: %q", subject, it.Text)
					}
				}
			}
			for _, q := range tc.gone {
				if hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &scratch.ID, Query: `"` + q + `"`}); err != nil || len(hits) != 0 {
					t.Errorf("search for %q in the scratch project: %d hits, %v", q, len(hits), err)
				}
			}
			if file, ok := s.(interface {
				Path() string
				Checkpoint(context.Context) error
			}); ok {
				// SQLite: no copy left in the database file or its log.
				if err := file.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
				for _, suffix := range []string{"", "-wal"} {
					b, err := os.ReadFile(file.Path() + suffix)
					if err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
					for _, text := range tc.gone {
						if bytes.Contains(b, []byte(text)) {
							t.Errorf("%q is still in the database file%s", text, suffix)
						}
					}
				}
			}
			releaseGate()
			deadline := time.Now().Add(time.Minute)
			var got *evalrow.RunRow
			for {
				if got, err = s.FindEvalRunByID(ctx, run.ID); err != nil {
					t.Fatal(err)
				}
				if got.Status != evalrow.RunRunning && got.Status != evalrow.RunQueued || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got.Status != evalrow.RunDone || got.Error != "" {
				t.Fatalf("run = %s %q; want done: a forget does not end the run", got.Status, got.Error)
			}
			results, err := s.FindEvalResults(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			byCase := map[string]*evalrow.ResultRow{}
			for _, res := range results {
				byCase[res.CaseID] = res
				if containsAny(res.Detail, tc.gone...) {
					t.Errorf("result %s quotes what was forgotten: %s", res.CaseID, res.Detail)
				}
			}
			for _, id := range tc.skipped {
				if res := byCase[id]; res == nil || res.Status != evals.StatusSkipped || !strings.Contains(res.Reason, "forget") || !strings.Contains(res.Reason, "travel") {
					t.Errorf("case %s = %+v; want skipped, saying a forget in travel removed its data", id, res)
				}
			}
			for _, id := range tc.passed {
				if res := byCase[id]; res == nil || res.Status != evals.StatusPassed {
					t.Errorf("case %s = %+v; want passed on the data the forget left", id, res)
				}
			}
			rep := evals.ReportOf(got, results)
			if rep.Metrics.Forgets != 1 || !strings.Contains(rep.String(), "forgets during the run: 1") {
				t.Errorf("the run's report does not say a forget happened during it (forgets %d):\n%s", rep.Metrics.Forgets, rep)
			}
			// The run's scratch projects and copy records went when it ended.
			if _, err := s.FindProjectByID(ctx, scratch.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
				t.Errorf("scratch project left after the run: %v", err)
			}
			if forgets, err := s.EventCopyForgets(ctx, evalrow.RunScratchPrefix(run.ID)); err != nil || len(forgets) != 0 {
				t.Errorf("copy records left after the run: %v, %v", forgets, err)
			}
		})
	}
}

// family2Lines are fragments of family-2's lines, rule and episode in the
// memory fixture, and of what a heartbeat learns from them.
var family2Lines = []string{"上海迪士尼怎么排", "上海迪士尼安排一整天", "13:00–15:00", "另一家人"}

func forgetFamily2(ctx context.Context, s Store, f *Fixture) error {
	_, err := s.ForgetSubject(ctx, "admin", f.Project.ID, "family-2")
	return err
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
