package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
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
	p, err := s.FindProjectBySlug(ctx, "travel")
	if err != nil {
		t.Fatal(err)
	}
	switch op {
	case "import":
		_, err = s.ImportStream(ctx, "admin", p.ID, func(emit func(*governance.Event) error) error {
			for i := range 40 {
				if i == 20 {
					crashtest.Stop(ctx)
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
		go func() { <-x.Started; crashtest.Stop(ctx) }()
		_, err = newHeartbeat(s, x).Beat(ctx, "test")
	case "beat-commit":
		s.BeforeCommit = crashtest.Stop
		_, err = newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test")
	case "forget":
		s.BeforeForgetCommit = crashtest.Stop
		_, err = s.ForgetSubject(ctx, "admin", p.ID, "u1")
	case "forget-committed":
		s.AfterForgetCommit = func(ctx context.Context) { crashtest.Stop(ctx) }
		_, err = s.ForgetSubject(ctx, "admin", p.ID, "u1")
	case "eval":
		err = crashtest.RunEval(ctx, s)
	case "cli-eval":
		// "console eval run": the suite runs in this process, with no
		// run row, on the real clock (its lease is compared with the
		// restarted console's); the second case's recall stops it.
		s.Now = time.Now
		err = crashtest.RunCLIEval(ctx, s)
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

// killedEval queues crashtest.EvalSuite on a crash database and kills the
// process running it between its first and second case.
func killedEval(t *testing.T) (path string, runID int64) {
	t.Helper()
	path = crashDB(t)
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	runID = crashtest.QueueEval(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	killMid(t, "eval", path)
	return path, runID
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
		crashtest.CheckResumed(t, s, func(q string) int { return count(t, s, q) }, runID)
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
		crashtest.CheckCancelledWhileDown(t, s, func(q string) int { return count(t, s, q) }, runID)
	})
}

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
	var slugs []string
	for rows.Next() {
		var slug string
		if err := rows.Scan(&slug); err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, slug)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return crashtest.CLIPrefixes(t, slugs)
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
			alive, killed := crashtest.KillCLIEval(t, "TestCrashChild", env, func() map[string]bool { return cliScratch(t, path) })
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
				crashtest.RunCLIEvalAgain(t, s)
			}
			crashtest.CheckCLIScratch(t, cliScratch(t, path), alive, killed)
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
