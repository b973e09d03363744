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
