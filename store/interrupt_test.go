package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestClaimEvalRunIdleTakesNoWriteLock: with nothing queued, the runner's
// poll must not open a write transaction (BEGIN IMMEDIATE) and take the
// writer slot every second: it answers "nothing queued" even while another
// connection holds the write lock.
func TestClaimEvalRunIdleTakesNoWriteLock(t *testing.T) {
	s := MustOpenStore(t)
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = s.ClaimEvalRun(cctx)
	if governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("idle claim = %v; want ENOTFOUND without waiting for the writer", err)
	}
}

// TestForgetDuringImport: a subject forget asked while a streamed import of
// a file holding that subject is half-way waits for the import's
// transaction and then forgets what it wrote too: when both are done,
// nothing of the subject is left, from before the import or from it.
func TestForgetDuringImport(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s := MustOpenStore(t)
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	p := MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, session("s0", now.Add(-72*time.Hour), true, "we always travel with the blue suitcase")); err != nil {
		t.Fatal(err)
	}
	half, release := make(chan struct{}), make(chan struct{})
	imported := make(chan error, 1)
	go func() {
		_, err := s.ImportStream(ctx, "admin", p.ID, func(emit func(*governance.Event) error) error {
			file := append(session("s1", now.Add(-48*time.Hour), true, "the blue suitcase goes in the boot"),
				session("s2", now.Add(-24*time.Hour), true, "the red suitcase is the blue one's twin")...)
			for i, e := range file {
				if i == len(file)/2 {
					close(half) // half the file is written, inside the import's transaction
					<-release
				}
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		})
		imported <- err
	}()
	<-half
	forgot := make(chan error, 1)
	var rep *governance.ForgetReport
	go func() {
		var err error
		rep, err = s.ForgetSubject(ctx, "admin", p.ID, "u1")
		forgot <- err
	}()
	select {
	case err := <-forgot:
		t.Fatalf("the forget finished (%v) while the import held the writer", err)
	default:
	}
	close(release)
	if err := <-imported; err != nil {
		t.Fatal(err)
	}
	if err := <-forgot; err != nil {
		t.Fatal(err)
	}
	if rep.Events != 3 {
		t.Fatalf("forgot %d lines; want the one ingested before and the two imported", rep.Events)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM events WHERE text LIKE '%suitcase%' OR subject_id = 'u1'
		OR session_id IN ('s0', 's1', 's2')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d events of the forgotten subject are left", n)
	}
}
