package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
)

// TestLease: one instance at a time leads a job; the lease passes on when
// its holder releases it or its session dies (the process killed), and
// different jobs are led independently.
func TestLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	open := func() *postgres.Store {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(), open()
	lead := func(s *postgres.Store, job string) *postgres.Lease {
		t.Helper()
		l, err := s.TryLead(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if l != nil {
			t.Cleanup(func() { l.Release(ctx) })
		}
		return l
	}

	la := lead(a, "heartbeat")
	if la == nil {
		t.Fatal("first instance did not get the free lease")
	}
	if lead(b, "heartbeat") != nil {
		t.Fatal("second instance got a held lease")
	}
	if lead(b, "evals") == nil {
		t.Fatal("another job's lease was not free")
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lb := lead(b, "heartbeat")
	if lb == nil {
		t.Fatal("lease not free after its release")
	}
	if err := lb.Held(ctx); err != nil {
		t.Fatalf("held: %v", err)
	}

	// The leader's session dies (as when its process is killed): the lease
	// is lost to it and free for the other instance at once.
	if _, err := a.Pool().Exec(ctx, `SELECT pg_terminate_backend($1)`, int64(lb.PID())); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var next *postgres.Lease
	for next == nil && time.Now().Before(deadline) {
		if next = lead(a, "heartbeat"); next == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if next == nil {
		t.Fatal("lease not taken over after its holder's session ended")
	}
	if err := lb.Held(ctx); !errors.Is(err, postgres.ErrLeaseLost) {
		t.Fatalf("old holder: Held = %v, want ErrLeaseLost", err)
	}
}

// TestLeaseWait: the leader receives what other instances forward
// (NotifyLeader), a quiet wait ends after its time with the lease still
// held, and a killed session ends the wait at once with ErrLeaseLost.
func TestLeaseWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	a, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	l, err := a.TryLead(ctx, "leader")
	if err != nil || l == nil {
		t.Fatalf("TryLead = %v, %v", l, err)
	}
	t.Cleanup(func() { l.Release(ctx) })
	if err := a.NotifyLeader(ctx, "leader", "manual:account:rita"); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Wait(ctx, 5*time.Second); err != nil || got != "manual:account:rita" {
		t.Fatalf("Wait = %q, %v; want the forwarded trigger", got, err)
	}
	if got, err := l.Wait(ctx, 50*time.Millisecond); err != nil || got != "" {
		t.Fatalf("quiet Wait = %q, %v; want \"\", nil", got, err)
	}
	if err := a.NotifyLeader(ctx, "evals", "not for this lease"); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Wait(ctx, 50*time.Millisecond); err != nil || got != "" {
		t.Fatalf("Wait = %q, %v; another job's request reached this lease", got, err)
	}
	if _, err := a.Pool().Exec(ctx, `SELECT pg_terminate_backend($1)`, int64(l.PID())); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := l.Wait(ctx, 10*time.Second); !errors.Is(err, postgres.ErrLeaseLost) {
		t.Fatalf("Wait after the session was killed = %v, want ErrLeaseLost", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the lost lease was noticed after %s, want at once", d)
	}
}
