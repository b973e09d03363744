package postgres_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// Fault tests on PostgreSQL, as the SQLite store's (store/crash_test.go):
// the work runs in a child process (this test binary again,
// TestCrashChild), which says "mid" from inside the operation's write
// transaction and then waits; the parent kills it with SIGKILL, the
// server rolls the transaction back when the connection drops, and the
// parent reopens the database as a restarting console does (Open, then
// RepairInterrupted) and checks that nothing of the operation was kept
// and that it runs again in full.

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
	stop := func(context.Context) error {
		fmt.Println("mid")
		select {} // wait for SIGKILL
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
					stop(ctx)
				}
				if err := emit(&governance.Event{ID: fmt.Sprintf("imp-%d", i), SessionID: "imp", SubjectID: "u2", Role: governance.RoleUser,
					Text: fmt.Sprintf("imported line %d about the green kayak", i), OccurredAt: time.Now().Add(-time.Duration(600-i) * time.Minute)}); err != nil {
					return err
				}
			}
			return nil
		})
	case "beat-commit":
		s.BeforeCommit = stop
		_, err = storetest.NewHeartbeat(s, &storetest.LineExtractor{}, nil).Beat(ctx, "test")
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), crashEnv+"="+op, crashEnv+"_URL="+url)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var seen []string
	mid := false
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if lines.Text() == "mid" {
			mid = true
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if !mid {
		t.Fatalf("the child never reached the middle of %s: %v\n%s", op, err, strings.Join(seen, "\n"))
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child state = %v, want killed by SIGKILL", cmd.ProcessState)
	}
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

// TestCrashBeforeBeatCommit: a beat killed just before its transaction
// commits leaves no episode, candidate, rule or checkpoint; the restart
// closes its record as interrupted and the next beat does the work.
func TestCrashBeforeBeatCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	url := crashDB(t)
	killMid(t, "beat-commit", url)
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
}
