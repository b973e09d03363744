package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/storetest"
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

// TestForgetDuringBeat: a subject forget that commits while a beat is
// extracting wins: the beat must not write the forgotten text back as an
// episode, candidate or rule (it used to, from the text it had read before).
func TestForgetDuringBeat(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s := MustOpenStore(t)
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	p := MustCreateProject(t, s, "travel")
	secret := "we always travel with the blue suitcase"
	if _, err := s.IngestEvents(ctx, p.ID, session("s1", now.Add(-48*time.Hour), true, secret)); err != nil {
		t.Fatal(err)
	}
	x := storetest.NewGatedExtractor()
	hb := newHeartbeat(s, x)
	done := make(chan error, 1)
	go func() { _, err := hb.Beat(ctx, "test"); done <- err }()
	<-x.Started // the beat has read the text and is extracting
	if _, err := s.ForgetSubject(ctx, "test", p.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	close(x.Release)
	if err := <-done; err != nil {
		t.Fatalf("beat: %v", err)
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM episodes WHERE summary LIKE '%suitcase%'`,
		`SELECT COUNT(*) FROM candidates WHERE statement LIKE '%suitcase%'`,
		`SELECT COUNT(*) FROM rules WHERE text LIKE '%suitcase%'`,
		`SELECT COUNT(*) FROM rule_versions WHERE text LIKE '%suitcase%'`,
		`SELECT COUNT(*) FROM events WHERE text LIKE '%suitcase%'`,
	} {
		var n int
		if err := s.DB().QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s = %d: the forgotten text came back", q, n)
		}
	}
}
