package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/internal/crashtest"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// Fault tests: the work runs in a child process (this test binary again,
// TestCrashChild), which says "mid" from inside the operation's write
// transaction (or, for the beat, mid-extraction) and then waits; the
// parent kills it with SIGKILL, reopens the file as a restarting console
// does (Open, then RepairInterrupted) and checks that the database is
// sound, the audit chain verifies and the operation either completed or
// left no trace.

const crashEnv = "MNEMO_CRASH_CHILD"

var crashT0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// TestCrashChild is the child's side; without crashEnv it does nothing.
func TestCrashChild(t *testing.T) {
	op, path := os.Getenv(crashEnv), os.Getenv(crashEnv+"_DB")
	if op == "" {
		t.Skip("runs only as the child of a fault test")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return crashT0 }
	stop := func(context.Context) error {
		fmt.Println(crashtest.Mid)
		select {} // wait for SIGKILL
	}
	p, err := s.FindProjectBySlug(ctx, "travel")
	if err != nil {
		t.Fatal(err)
	}
	switch op {
	case "import":
		_, err = s.ImportStream(ctx, "admin", p.ID, func(emit func(*governance.Event) error) error {
			for i := range 40 {
				if i == 20 {
					stop(ctx)
				}
				if err := emit(&governance.Event{ID: fmt.Sprintf("imp-%d", i), SessionID: "imp", SubjectID: "u2", Role: governance.RoleUser,
					Text: fmt.Sprintf("imported line %d about the green kayak", i), OccurredAt: crashT0.Add(-time.Duration(40-i) * time.Minute)}); err != nil {
					return err
				}
			}
			return nil
		})
	case "beat-extract":
		x := storetest.NewGatedExtractor()
		go func() { <-x.Started; stop(ctx) }()
		_, err = newHeartbeat(s, x).Beat(ctx, "test")
	case "beat-commit":
		s.BeforeCommit = stop
		_, err = newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test")
	case "forget":
		s.BeforeForgetCommit = stop
		_, err = s.ForgetSubject(ctx, "admin", p.ID, "u1")
	case "forget-committed":
		s.AfterForgetCommit = func(ctx context.Context) { stop(ctx) }
		_, err = s.ForgetSubject(ctx, "admin", p.ID, "u1")
	case "eval":
		// The runner takes the queued run; the second case's recall
		// stops the process, with the first case's result stored and
		// the run's scratch project full of its fixtures.
		mem := &crashMemory{Services: crashEvalServices(s), stop: stop}
		r := evals.NewRunner(s, evals.Deps{Memory: mem, Concurrency: 1}, nil)
		r.Interval = 10 * time.Millisecond
		err = r.Run(ctx)
	case "cli-eval":
		// "console eval run": the suite runs in this process, with no
		// run row, on the real clock (its lease is compared with the
		// restarted console's); the second case's recall stops it.
		s.Now = time.Now
		suite, perr := evals.ParseSuite("crash.yaml", []byte(crashEvalSuite))
		if perr != nil {
			t.Fatal(perr)
		}
		mem := &crashMemory{Services: crashEvalServices(s), stop: stop}
		_, err = evals.RunSuite(ctx, evals.Deps{Memory: mem, Concurrency: 1, ScratchLease: cliLease}, suite)
	default:
		t.Fatalf("unknown operation %q", op)
	}
	t.Fatalf("the operation returned (%v) instead of being killed", err)
}

// crashDB builds the database the child works on: a project with one
// ended session of subject u1 ("always" lines become proposals).
func crashDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return crashT0 }
	p := &governance.Project{Slug: "travel", Name: "travel"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, p.ID, session("s1", crashT0.Add(-48*time.Hour), true,
		"we always travel with the blue suitcase", "FAILED route check")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// killMid runs the child on path and kills it once it says "mid".
func killMid(t *testing.T, op, path string) {
	t.Helper()
	crashtest.KillMid(t, "TestCrashChild", crashEnv+"="+op, crashEnv+"_DB="+path)
}

// reopen opens the file as a restarting console does and checks what
// every crash must leave: integrity and a verifying audit chain.
func reopen(t *testing.T, path string) *store.Store {
	t.Helper()
	return reopenAt(t, path, func() time.Time { return crashT0 })
}

// reopenAt is reopen with the store's clock set to now.
func reopenAt(t *testing.T, path string, now func() time.Time) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Now = now
	if _, err := s.RepairInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	var ok string
	if err := s.DB().QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check = %q, %v", ok, err)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit = %+v, %v", v, err)
	}
	return s
}

func count(t *testing.T, s *store.Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestCrashDuringImport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	path := crashDB(t)
	killMid(t, "import", path)
	s := reopen(t, path)
	if n := count(t, s, `SELECT COUNT(*) FROM events WHERE id LIKE 'imp-%'`); n != 0 {
		t.Fatalf("%d events of the killed import were kept: a partial batch", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM sessions WHERE session_id = 'imp'`); n != 0 {
		t.Fatal("the killed import left its session row")
	}
	// The import runs again in full.
	res, err := s.ImportStream(context.Background(), "admin", 1, func(emit func(*governance.Event) error) error {
		return emit(&governance.Event{ID: "imp-0", SessionID: "imp", SubjectID: "u2", Role: governance.RoleUser, Text: "again", OccurredAt: crashT0})
	})
	if err != nil || res.Inserted != 1 {
		t.Fatalf("re-run = %+v, %v", res, err)
	}
}

func TestCrashDuringBeat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	for _, op := range []string{"beat-extract", "beat-commit"} {
		t.Run(op, func(t *testing.T) {
			path := crashDB(t)
			killMid(t, op, path)
			s := reopen(t, path)
			beats, err := s.FindBeats(context.Background(), 10)
			if err != nil || len(beats) != 1 {
				t.Fatalf("beats = %d, %v", len(beats), err)
			}
			if beats[0].FinishedAt == nil || !strings.Contains(beats[0].Errors, "interrupted") {
				t.Fatalf("beat record = %+v; want it closed as interrupted", beats[0])
			}
			// Nothing of the plan, and the checkpoint where it was.
			for _, q := range []string{`SELECT COUNT(*) FROM checkpoints`, `SELECT COUNT(*) FROM candidates`,
				`SELECT COUNT(*) FROM rules`, `SELECT COUNT(*) FROM episodes`} {
				if n := count(t, s, q); n != 0 {
					t.Errorf("%s = %d after a killed beat", q, n)
				}
			}
			// The next beat does the work.
			rep, err := newHeartbeat(s, &lineExtractor{}).Beat(context.Background(), "test")
			if err != nil {
				t.Fatal(err)
			}
			if count(t, s, `SELECT COUNT(*) FROM checkpoints`) != 1 || count(t, s, `SELECT COUNT(*) FROM rules`) == 0 {
				t.Fatalf("the beat after the crash did not consolidate: %+v", rep)
			}
		})
	}
}

func TestCrashDuringForget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	path := crashDB(t)
	killMid(t, "forget", path)
	s := reopen(t, path)
	ctx := context.Background()
	// Not applied at all: the subject's lines are all there, unredacted,
	// and no forget was audited.
	if n := count(t, s, `SELECT COUNT(*) FROM events WHERE subject_id = 'u1' AND redacted = 0`); n != 2 {
		t.Fatalf("%d of the subject's 2 lines are intact after the killed forget; want both (nothing applied)", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM audit WHERE action = 'subject.forget'`); n != 0 {
		t.Fatal("a killed forget was audited")
	}
	// The forget runs again and completes.
	rep, err := s.ForgetSubject(ctx, "admin", 1, "u1")
	if err != nil || rep.Events != 2 {
		t.Fatalf("re-run = %+v, %v", rep, err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM events WHERE text LIKE '%suitcase%' OR subject_id = 'u1'`); n != 0 {
		t.Fatalf("%d events of the subject are left after the re-run", n)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit after the re-run = %+v, %v", v, err)
	}
}

// TestCrashAfterForgetCommit kills a forget after its transaction
// committed and before the WAL checkpoint that overwrites the pages the
// forget freed: the database file still holds the forgotten lines, the
// log the new pages. The restart finishes the forget's work: after
// RepairInterrupted neither file holds a forgotten byte, and the forget
// is applied and audited once.
func TestCrashAfterForgetCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	path := crashDB(t)
	killMid(t, "forget-committed", path)
	raw := func() []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if wal, err := os.ReadFile(path + "-wal"); err == nil {
			b = append(b, wal...)
		}
		return b
	}
	if !bytes.Contains(raw(), []byte("blue suitcase")) {
		t.Fatal("the forgotten line is not in the files before the restart: the child was not killed before its checkpoint")
	}
	s := reopen(t, path)
	if b := raw(); bytes.Contains(b, []byte("blue suitcase")) || bytes.Contains(b, []byte("route check")) {
		t.Fatal("the forgotten lines are still in the database file or its log after the restart")
	}
	if n := count(t, s, `SELECT COUNT(*) FROM audit WHERE action = 'subject.forget'`); n != 1 {
		t.Fatalf("%d subject.forget audit rows; want the committed forget's one", n)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM events WHERE subject_id = 'u1' OR (redacted = 0 AND text <> '')`); n != 0 {
		t.Fatalf("%d events of the subject are left after the committed forget", n)
	}
}

// crashEvalSuite has fixtures (a scratch project the run makes) and three
// recall cases.
const crashEvalSuite = `name: crash
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

// crashEvalServices is the product's eval memory over s: the offline
// heuristic consolidator, one beat at a time.
func crashEvalServices(s *store.Store) *evals.Services {
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

// crashMemory stops the process at the second recall.
type crashMemory struct {
	*evals.Services
	stop    func(context.Context) error
	recalls atomic.Int32
}

func (m *crashMemory) Recall(ctx context.Context, q evals.RecallQuery) (*evals.RecallResult, error) {
	if m.recalls.Add(1) == 2 {
		m.stop(ctx)
	}
	return m.Services.Recall(ctx, q)
}

// killedEval queues crashEvalSuite on a crash database and kills the
// process running it between its first and second case.
func killedEval(t *testing.T) (path string, runID int64) {
	t.Helper()
	path = crashDB(t)
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	row, err := evals.Upload(ctx, s, "crash.yaml", []byte(crashEvalSuite), "admin")
	if err != nil {
		t.Fatal(err)
	}
	run, err := evals.Enqueue(ctx, s, row.ID, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	killMid(t, "eval", path)
	return path, run.ID
}

// TestCrashDuringEval kills the process running an eval run between two
// cases. Resumed: after the restart the run is still "running" with the
// first result, and the runner (started as the console starts it)
// resumes it: it ends done with one result per case, the first kept as it
// was, and the run's scratch project is gone. CancelledWhileDown: the run
// is cancelled from the CLI before the console starts again; the runner
// never resumes a cancelled run, so the restart removes its scratch
// project (with the fixtures' text).
func TestCrashDuringEval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	ctx := context.Background()
	t.Run("Resumed", func(t *testing.T) {
		path, runID := killedEval(t)
		s := reopen(t, path)
		mid, err := s.FindEvalRunByID(ctx, runID)
		if err != nil {
			t.Fatal(err)
		}
		before, err := s.FindEvalResults(ctx, runID)
		if err != nil {
			t.Fatal(err)
		}
		if mid.Status != evals.RunRunning || mid.Done != 1 || len(before) != 1 || mid.Total != 3 {
			t.Fatalf("after the kill: run %+v with %d results; want running, 1 of 3 done", mid, len(before))
		}
		if n := count(t, s, `SELECT COUNT(*) FROM projects WHERE scratch = 1`); n != 1 {
			t.Fatalf("%d scratch projects after the kill; want the run's one", n)
		}
		// The console starts again: the runner resumes the run.
		r := evals.NewRunner(s, evals.Deps{Memory: crashEvalServices(s), Concurrency: 1}, nil)
		r.Interval = 10 * time.Millisecond
		rctx, cancel := context.WithCancel(ctx)
		stopped := make(chan error, 1)
		go func() { stopped <- r.Run(rctx) }()
		defer func() { cancel(); <-stopped }()
		deadline := time.Now().Add(time.Minute)
		var got *evals.RunRow
		for {
			if got, err = s.FindEvalRunByID(ctx, runID); err != nil {
				t.Fatal(err)
			}
			if got.Status != evals.RunRunning || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got.Status != evals.RunDone || got.Done != 3 {
			t.Fatalf("resumed run = %+v; want done with 3 results", got)
		}
		after, err := s.FindEvalResults(ctx, runID)
		if err != nil || len(after) != 3 {
			t.Fatalf("results = %d, %v; want one per case", len(after), err)
		}
		if after[0].ID != before[0].ID || after[0].CaseID != before[0].CaseID || after[0].Detail != before[0].Detail {
			t.Fatalf("the result stored before the kill changed: %+v → %+v", before[0], after[0])
		}
		if n := count(t, s, `SELECT COUNT(*) FROM projects WHERE scratch = 1`); n != 0 {
			t.Fatalf("%d scratch projects left after the resumed run", n)
		}
		if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
			t.Fatalf("audit after the resumed run = %+v, %v", v, err)
		}
	})
	t.Run("CancelledWhileDown", func(t *testing.T) {
		path, runID := killedEval(t)
		cli, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := cli.CancelEvalRun(ctx, runID, "cli"); err != nil {
			t.Fatal(err)
		}
		if err := cli.Close(); err != nil {
			t.Fatal(err)
		}
		s := reopen(t, path)
		if n := count(t, s, `SELECT COUNT(*) FROM projects WHERE scratch = 1`); n != 0 {
			t.Fatalf("%d scratch projects of the cancelled run left after the restart", n)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM events WHERE instr(text, 'kayak') > 0`); n != 0 {
			t.Fatalf("%d fixture lines of the cancelled run left after the restart", n)
		}
		if got, err := s.FindEvalRunByID(ctx, runID); err != nil || got.Status != evals.RunCancelled || got.Done != 1 {
			t.Fatalf("run = %+v, %v; want cancelled with its one result", got, err)
		}
	})
}

// cliLease is the CLI eval children's scratch lease: short, so the test
// waits little for a killed child's to expire; a live child renews it
// every third of it.
const cliLease = 1500 * time.Millisecond

// cliScratch lists the prefixes of the CLI runs' scratch projects.
func cliScratch(t *testing.T, path string) map[string]bool {
	t.Helper()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.DB().Query(`SELECT slug FROM projects WHERE scratch = 1 AND slug LIKE 'eval-cli-%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var slug string
		if err := rows.Scan(&slug); err != nil {
			t.Fatal(err)
		}
		prefix, _, ok := evals.ScratchOwner(slug)
		if !ok {
			t.Fatalf("CLI scratch slug %q names no run", slug)
		}
		out[prefix] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCrashDuringCLIEval kills a "console eval run" (evals.RunSuite, which
// has no run row) between two cases while another CLI run, in another
// process, is alive in the middle of its own. Once the killed run's lease
// has expired, the restart (Restart: RepairInterrupted) or the next CLI
// run (RunAgain: RunSuite removes orphans before it starts) removes the
// killed run's scratch projects and their rows; the live run's are
// untouched, however long it has been running.
func TestCrashDuringCLIEval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	for _, how := range []string{"Restart", "RunAgain"} {
		t.Run(how, func(t *testing.T) {
			ctx := context.Background()
			path := crashDB(t)
			env := []string{crashEnv + "=cli-eval", crashEnv + "_DB=" + path}
			crashtest.StartMid(t, "TestCrashChild", env...) // alive until the test ends
			alive := cliScratch(t, path)
			if len(alive) != 1 {
				t.Fatalf("CLI scratch prefixes with one run alive: %v", alive)
			}
			crashtest.KillMid(t, "TestCrashChild", env...)
			killedAt := time.Now()
			var killed string
			for prefix := range cliScratch(t, path) {
				if !alive[prefix] {
					killed = prefix
				}
			}
			if killed == "" {
				t.Fatal("the killed CLI run left no scratch project: the test needs it mid-case")
			}
			// Both runs have stayed alive longer than a lease when the
			// cleanup runs: only the killed one stopped renewing.
			time.Sleep(time.Until(killedAt.Add(cliLease + 500*time.Millisecond)))
			var s *store.Store
			switch how {
			case "Restart":
				s = reopenAt(t, path, time.Now)
			case "RunAgain":
				var err error
				if s, err = store.Open(ctx, path); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				suite, err := evals.ParseSuite("crash.yaml", []byte(crashEvalSuite))
				if err != nil {
					t.Fatal(err)
				}
				rep, err := evals.RunSuite(ctx, evals.Deps{Memory: crashEvalServices(s), Concurrency: 1}, suite)
				if err != nil || len(rep.Cases) != 3 {
					t.Fatalf("the next CLI run: %+v, %v", rep, err)
				}
			}
			left := cliScratch(t, path)
			if left[killed] {
				t.Fatalf("the killed CLI run's scratch projects (%s…) are left", killed)
			}
			for prefix := range alive {
				if !left[prefix] {
					t.Fatalf("the live CLI run's scratch projects (%s…) were removed", prefix)
				}
			}
			if len(left) != 1 {
				t.Fatalf("CLI scratch prefixes left: %v; want only the live run's", left)
			}
			// Their rows went with them: the fixture's lines are only in the
			// live run's project now.
			if n := count(t, s, `SELECT COUNT(*) FROM events WHERE instr(text, 'kayak') > 0
				AND project_id NOT IN (SELECT id FROM projects WHERE scratch = 1)`); n != 0 {
				t.Fatalf("%d fixture lines of removed scratch projects are left", n)
			}
			if n := count(t, s, `SELECT COUNT(*) FROM scratch_leases WHERE prefix = ?`, killed); n != 0 {
				t.Fatal("the killed run's expired lease is left")
			}
			var ok string
			if err := s.DB().QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
				t.Fatalf("integrity_check = %q, %v", ok, err)
			}
			if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
				t.Fatalf("audit = %+v, %v", v, err)
			}
		})
	}
}
