package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
	"github.com/mnemo-console/mnemo/store/internal/crashtest"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// Fault tests on PostgreSQL, as the SQLite store's (store/crash_test.go):
// the work runs in a child process (this test binary again,
// TestCrashChild), which says "mid" from inside the operation's write
// transaction (or from its follow-up after the commit, or mid-extraction,
// or mid-case) and then waits; the parent kills it with SIGKILL, the
// server rolls an open transaction back when the connection drops, and
// the parent reopens the database as a restarting console does (Open,
// then RepairInterrupted) and checks that the audit chain verifies and
// that the operation either completed or left no trace.

const crashEnv = "MNEMO_PG_CRASH_CHILD"

// TestCrashChild is the child's side; without crashEnv it does nothing.
func TestCrashChild(t *testing.T) {
	op, url := os.Getenv(crashEnv), os.Getenv(crashEnv+"_URL")
	if op == "" {
		t.Skip("runs only as the child of a fault test")
	}
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.FindProjectBySlug(ctx, "travel")
	if err != nil {
		t.Fatal(err)
	}
	switch op {
	case "import":
		// 600 events: the first chunk of 500 is written inside the
		// import's one transaction before the stop.
		_, err = s.ImportStream(ctx, "admin", p.ID, func(emit func(*governance.Event) error) error {
			for i := range 600 {
				if i == 550 {
					crashtest.Stop(ctx)
				}
				if err := emit(&governance.Event{ID: fmt.Sprintf("imp-%d", i), SessionID: "imp", SubjectID: "u2", Role: governance.RoleUser,
					Text: fmt.Sprintf("imported line %d about the green kayak", i), OccurredAt: time.Now().Add(-time.Duration(600-i) * time.Minute)}); err != nil {
					return err
				}
			}
			return nil
		})
	case "beat-extract":
		x := storetest.NewGatedExtractor()
		go func() { <-x.Started; crashtest.Stop(ctx) }()
		_, err = storetest.NewHeartbeat(s, x, nil).Beat(ctx, "test")
	case "beat-commit":
		s.BeforeCommit = crashtest.Stop
		_, err = storetest.NewHeartbeat(s, &storetest.LineExtractor{}, nil).Beat(ctx, "test")
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
		// run row; the second case's recall stops it.
		err = crashtest.RunCLIEval(ctx, s)
	default:
		t.Fatalf("unknown operation %q", op)
	}
	t.Fatalf("the operation returned (%v) instead of being killed", err)
}

// crashDB makes the database the child works on: a project with one ended
// session of subject u1 ("always" lines become proposals).
func crashDB(t *testing.T) string {
	t.Helper()
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := storetest.MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, storetest.Session("s1", time.Now().Add(-48*time.Hour), true,
		"we always travel with the blue suitcase", "FAILED route check")); err != nil {
		t.Fatal(err)
	}
	return url
}

// killMid runs the child on url and kills it once it says "mid".
func killMid(t *testing.T, op, url string) {
	t.Helper()
	crashtest.KillMid(t, "TestCrashChild", crashEnv+"="+op, crashEnv+"_URL="+url)
}

// reopenCrashed opens the database as a restarting console does and
// checks what every crash must leave: a verifying audit chain.
func reopenCrashed(t *testing.T, url string) (*postgres.Store, func(q string) int) {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.RepairInterrupted(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit = %+v, %v", v, err)
	}
	return s, func(q string) int {
		t.Helper()
		var n int
		if err := s.Pool().QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
}

// TestCrashDuringImport: an import killed after its first chunk was
// written keeps none of it (one transaction a file), and runs again.
func TestCrashDuringImport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	url := crashDB(t)
	killMid(t, "import", url)
	s, count := reopenCrashed(t, url)
	if n := count(`SELECT count(*) FROM events WHERE id LIKE 'imp-%'`); n != 0 {
		t.Fatalf("%d events of the killed import were kept: a partial batch", n)
	}
	if n := count(`SELECT count(*) FROM sessions WHERE session_id = 'imp'`); n != 0 {
		t.Fatal("the killed import left its session row")
	}
	if n := count(`SELECT count(*) FROM audit WHERE action = 'events.import'`); n != 0 {
		t.Fatal("the killed import was audited")
	}
	res, err := s.ImportStream(context.Background(), "admin", 1, func(emit func(*governance.Event) error) error {
		return emit(&governance.Event{ID: "imp-0", SessionID: "imp", SubjectID: "u2", Role: governance.RoleUser, Text: "again", OccurredAt: time.Now()})
	})
	if err != nil || res.Inserted != 1 {
		t.Fatalf("re-run = %+v, %v", res, err)
	}
}

// TestCrashDuringBeat: a beat killed mid-extraction (beat-extract) or
// just before its transaction commits (beat-commit) leaves no episode,
// candidate, rule, checkpoint or audit row; the restart closes its record
// as interrupted and the next beat does the work.
func TestCrashDuringBeat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	for _, op := range []string{"beat-extract", "beat-commit"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			url := crashDB(t)
			killMid(t, op, url)
			s, count := reopenCrashed(t, url)
			ctx := context.Background()
			beats, err := s.FindBeats(ctx, 10)
			if err != nil || len(beats) != 1 {
				t.Fatalf("beats = %d, %v", len(beats), err)
			}
			if beats[0].FinishedAt == nil || !strings.Contains(beats[0].Errors, "interrupted") {
				t.Fatalf("beat record = %+v; want it closed as interrupted", beats[0])
			}
			for _, q := range []string{`SELECT count(*) FROM checkpoints`, `SELECT count(*) FROM candidates`,
				`SELECT count(*) FROM rules`, `SELECT count(*) FROM episodes`, `SELECT count(*) FROM audit WHERE actor = 'heartbeat'`} {
				if n := count(q); n != 0 {
					t.Errorf("%s = %d after a killed beat", q, n)
				}
			}
			rep, err := storetest.NewHeartbeat(s, &storetest.LineExtractor{}, nil).Beat(ctx, "test")
			if err != nil {
				t.Fatal(err)
			}
			if count(`SELECT count(*) FROM checkpoints`) != 1 || count(`SELECT count(*) FROM rules`) == 0 {
				t.Fatalf("the beat after the crash did not consolidate: %+v", rep)
			}
		})
	}
}

// TestCrashDuringForget: a forget killed just before its commit applied
// nothing — the subject's lines are all there, unredacted, no forget was
// audited and no rewrite was left owed — and runs again in full.
func TestCrashDuringForget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	url := crashDB(t)
	killMid(t, "forget", url)
	s, count := reopenCrashed(t, url)
	ctx := context.Background()
	if n := count(`SELECT count(*) FROM events WHERE subject_id = 'u1' AND NOT redacted`); n != 2 {
		t.Fatalf("%d of the subject's 2 lines are intact after the killed forget; want both (nothing applied)", n)
	}
	if n := count(`SELECT count(*) FROM audit WHERE action = 'subject.forget'`); n != 0 {
		t.Fatal("a killed forget was audited")
	}
	if n := count(`SELECT count(*) FROM pending_scrubs`); n != 0 {
		t.Fatalf("%d rewrites owed after a forget that never committed", n)
	}
	rep, err := s.ForgetSubject(ctx, "admin", 1, "u1")
	if err != nil || rep.Events != 2 {
		t.Fatalf("re-run = %+v, %v", rep, err)
	}
	if n := count(`SELECT count(*) FROM events WHERE text LIKE '%suitcase%' OR subject_id = 'u1'`); n != 0 {
		t.Fatalf("%d events of the subject are left after the re-run", n)
	}
	if n := count(`SELECT count(*) FROM pending_scrubs`); n != 0 {
		t.Fatalf("%d rewrites still owed after the re-run's own", n)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit after the re-run = %+v, %v", v, err)
	}
}

// copiedForEval gives the crash database a running eval run that copied
// the travel project's events (fixtures.copy_events) into a scratch
// project of its own and stored a result quoting one: what a subject
// forget must remove with the subject's lines.
func copiedForEval(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	crashtest.QueueEval(t, s)
	run, err := s.ClaimEvalRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prefix := evalrow.RunScratchPrefix(run.ID)
	copied := &governance.Project{Slug: prefix + "s-travel", Name: "copy", Scratch: true}
	if err := s.CreateProject(ctx, copied); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CopyEvents(ctx, prefix, 1, copied.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, copied.ID, storetest.Session("s1", time.Now().Add(-48*time.Hour), true,
		"we always travel with the blue suitcase", "FAILED route check")); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveEvalResult(ctx, &evalrow.ResultRow{RunID: run.ID, CaseID: "one", Kind: "recall", Status: "passed",
		Detail: `{"recalled":"we always travel with the blue suitcase"}`}, 0, 0); err != nil {
		t.Fatal(err)
	}
	if holding := rowsHolding(t, s, "suitcas"); !slices.Contains(holding, "events") || !slices.Contains(holding, "eval_results") {
		t.Fatalf("precondition: the line is in the rows of %v; want events and eval_results", holding)
	}
}

// rowsHolding returns the tables of the database with a row whose text
// form contains text (a partitioned table's partitions through it).
func rowsHolding(t *testing.T, s *postgres.Store, text string) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.Pool().Query(ctx, `SELECT quote_ident(relname) FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 20 {
		t.Fatalf("tables = %v, %v", tables, err)
	}
	var holding []string
	for _, table := range tables {
		var found bool
		if err := s.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` r WHERE strpos(r::text, $1) > 0)`,
			text).Scan(&found); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if found {
			holding = append(holding, table)
		}
	}
	return holding
}

// TestCrashAfterForgetCommit kills a forget after its transaction
// committed and before its rewrite of the tables it touched (VACUUM FULL):
// the table files still hold the forgotten rows' old versions. The
// restart finishes the forget's work: after RepairInterrupted the forget
// is applied and audited once, no row of any table holds the subject's
// text — nor the eval run's copy of it (the run's scratch project stays,
// without the subject) or its stored result — and no file of the tables, their TOAST tables or indexes
// holds a forgotten byte.
func TestCrashAfterForgetCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	ctx := context.Background()
	url := crashDB(t)
	copiedForEval(t, url)
	killMid(t, "forget-committed", url)
	crashed, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(relationFiles(t, crashed), []byte("blue suitcase")) {
		t.Fatal("the forgotten line is not in the files before the restart: the child was not killed before its rewrite")
	}
	var owed int
	if err := crashed.Pool().QueryRow(ctx, `SELECT count(*) FROM pending_scrubs`).Scan(&owed); err != nil || owed != 1 {
		t.Fatalf("%d rewrites owed before the restart, %v; want the killed forget's one", owed, err)
	}
	crashed.Close()
	s, count := reopenCrashed(t, url)
	if b := relationFiles(t, s); bytes.Contains(b, []byte("blue suitcase")) || bytes.Contains(b, []byte("route check")) {
		t.Fatal("the forgotten lines are still in the table files after the restart")
	}
	if n := count(`SELECT count(*) FROM pending_scrubs`); n != 0 {
		t.Fatalf("%d rewrites still owed after the restart", n)
	}
	if n := count(`SELECT count(*) FROM audit WHERE action = 'subject.forget'`); n != 1 {
		t.Fatalf("%d subject.forget audit rows; want the committed forget's one", n)
	}
	if n := count(`SELECT count(*) FROM events WHERE subject_id = 'u1' OR (NOT redacted AND text <> '')`); n != 0 {
		t.Fatalf("%d events of the subject are left after the committed forget", n)
	}
	if n := count(`SELECT count(*) FROM projects WHERE scratch`); n != 1 {
		t.Fatalf("%d scratch projects after the committed forget; want the running eval run's one, which the forget leaves", n)
	}
	for _, text := range []string{"suitcas", "route check"} {
		if tables := rowsHolding(t, s, text); len(tables) != 0 {
			t.Errorf("rows of %v hold %q after the committed forget", tables, text)
		}
	}
}

// killedEval queues crashtest.EvalSuite on a crash database and kills the
// process running it between its first and second case.
func killedEval(t *testing.T) (url string, runID int64) {
	t.Helper()
	url = crashDB(t)
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	runID = crashtest.QueueEval(t, s)
	s.Close()
	killMid(t, "eval", url)
	return url, runID
}

// TestCrashDuringEval kills the process running an eval run between two
// cases, as SQLite's does. Resumed: after the restart the run is still
// "running" with the first result and its scratch project (a run the
// runner resumes is not closed by the repair), and the runner, started as
// the console starts it, resumes it: it ends done with one result per
// case, the first kept as it was, and the run's scratch project is gone.
// CancelledWhileDown: the run is cancelled from the CLI before the
// console starts again; the runner never resumes a cancelled run, so the
// restart removes its scratch project with the fixtures' text.
func TestCrashDuringEval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	ctx := context.Background()
	t.Run("Resumed", func(t *testing.T) {
		t.Parallel()
		url, runID := killedEval(t)
		s, count := reopenCrashed(t, url)
		crashtest.CheckResumed(t, s, count, runID)
	})
	t.Run("CancelledWhileDown", func(t *testing.T) {
		t.Parallel()
		url, runID := killedEval(t)
		cli, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if err := cli.CancelEvalRun(ctx, runID, "cli"); err != nil {
			t.Fatal(err)
		}
		cli.Close()
		s, count := reopenCrashed(t, url)
		crashtest.CheckCancelledWhileDown(t, s, count, runID)
	})
}

// cliScratch lists the prefixes of the CLI runs' scratch projects.
func cliScratch(t *testing.T, url string) map[string]bool {
	t.Helper()
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Pool().Query(context.Background(), `SELECT slug FROM projects WHERE scratch AND slug LIKE 'eval-cli-%'`)
	if err != nil {
		t.Fatal(err)
	}
	slugs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return crashtest.CLIPrefixes(t, slugs)
}

// TestCrashDuringCLIEval kills a "console eval run" (evals.RunSuite, which
// has no run row) between two cases while another CLI run, in another
// process, is alive in the middle of its own, as SQLite's does. Once the
// killed run's lease has expired, the restart (Restart:
// RepairInterrupted) or the next CLI run (RunAgain: RunSuite removes
// orphans before it starts) removes the killed run's scratch projects,
// their rows and its lease; the live run's are untouched.
func TestCrashDuringCLIEval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	t.Parallel()
	for _, how := range []string{"Restart", "RunAgain"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := crashDB(t)
			env := []string{crashEnv + "=cli-eval", crashEnv + "_URL=" + url}
			alive, killed := crashtest.KillCLIEval(t, "TestCrashChild", env, func() map[string]bool { return cliScratch(t, url) })
			var s *postgres.Store
			switch how {
			case "Restart":
				s, _ = reopenCrashed(t, url)
			case "RunAgain":
				var err error
				if s, err = postgres.Open(ctx, url); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				crashtest.RunCLIEvalAgain(t, s)
			}
			crashtest.CheckCLIScratch(t, cliScratch(t, url), alive, killed)
			var fixtures, leases int
			if err := s.Pool().QueryRow(ctx, `SELECT
				(SELECT count(*) FROM events WHERE strpos(text, 'kayak') > 0
					AND project_id NOT IN (SELECT id FROM projects WHERE scratch)),
				(SELECT count(*) FROM scratch_leases WHERE prefix = $1)`, killed).Scan(&fixtures, &leases); err != nil {
				t.Fatal(err)
			}
			if fixtures != 0 {
				t.Fatalf("%d fixture lines of removed scratch projects are left", fixtures)
			}
			if leases != 0 {
				t.Fatal("the killed run's expired lease is left")
			}
			if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
				t.Fatalf("audit = %+v, %v", v, err)
			}
		})
	}
}
