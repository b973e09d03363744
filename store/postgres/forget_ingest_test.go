package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestForgetDuringIngest: a subject forget asked while an API ingest
// (IngestEvents) of the subject's lines has written them but not yet
// committed waits for that ingest and forgets its lines too. The ingest
// is held before its commit by a row lock another transaction keeps on
// the session it adds to (its sessions upsert waits); the forget is asked
// then, and the lock released once the forget waits too.
// (storetest.TestForgetDuringImport is the same for a streamed import on
// both backends.)
func TestForgetDuringIngest(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, storetest.Session("s0", now.Add(-72*time.Hour), false,
		"we always travel with the blue suitcase")); err != nil {
		t.Fatal(err)
	}
	hold, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, `SELECT 1 FROM sessions WHERE project_id = $1 AND session_id = 's0' FOR UPDATE`, p.ID); err != nil {
		t.Fatal(err)
	}
	more := storetest.Session("s0", now.Add(-71*time.Hour), true, "", "the blue suitcase goes in the boot")[1:]
	ingested := make(chan error, 1)
	go func() {
		_, err := s.IngestEvents(ctx, p.ID, more)
		ingested <- err
	}()
	waitLockWaiters(t, s, 1, ingested)
	type result struct {
		rep *governance.ForgetReport
		err error
	}
	forgot := make(chan result, 1)
	go func() {
		rep, err := s.ForgetSubject(ctx, "admin", p.ID, "u1")
		forgot <- result{rep, err}
	}()
	waitLockWaiters(t, s, 2, nil)
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-ingested; err != nil {
		t.Fatal(err)
	}
	r := <-forgot
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.rep.Events != 2 {
		t.Errorf("forgot %d lines; want the one ingested before and the one ingested meanwhile", r.rep.Events)
	}
	events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if strings.Contains(e.Text, "suitcase") || e.SubjectID == "u1" || e.SessionID == "s0" {
			t.Errorf("event %s (session %q, subject %q) of the forgotten subject is left: %q", e.ID, e.SessionID, e.SubjectID, e.Text)
		}
	}
	hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "suitcase"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) > 0 {
		t.Errorf("search still finds event %s: %q", hits[0].Event.ID, hits[0].Event.Text)
	}
}

// waitLockWaiters waits until n sessions of s's database wait for a lock
// (a row lock or an advisory one); done, when it yields, means the
// awaited call ended instead.
func waitLockWaiters(t *testing.T, s *postgres.Store, n int, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var waiting int
		if err := s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("ended (%v) instead of waiting for the held session row", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for a lock after 20 s; want %d", waiting, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
