package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// The heartbeat fixtures of the conformance suite (its TestHeartbeat runs
// the beat's behaviour on both backends); the tests here need the SQLite
// store itself (its clock, a crash injected before commit, raw SQL).
type lineExtractor = storetest.LineExtractor

var session = storetest.Session

func newHeartbeat(s *store.Store, x governance.Extractor) *consolidate.Heartbeat {
	return storetest.NewHeartbeat(s, x, s.Now)
}

func snapshot(t *testing.T, s *store.Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT project_id || ':' || seq FROM checkpoints ORDER BY project_id`,
		`SELECT session_id || '|' || summary || '|' || last_seq FROM episodes ORDER BY id`,
		`SELECT id || '|' || statement || '|' || status || '|' || group_id || '|' || COALESCE(rule_id, 0) FROM candidates ORDER BY id`,
		`SELECT id || '|' || text || '|' || status || '|' || promotion_reason FROM rules ORDER BY id`,
		`SELECT candidate_id || '>' || event_seq FROM evidence ORDER BY 1`,
	} {
		rows, err := s.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var v string
			rows.Scan(&v)
			b.WriteString(v + "\n")
		}
		rows.Close()
	}
	return b.String()
}

// TestHeartbeatCrashBeforeCommit: a beat failing just before its commit
// leaves nothing behind, and its retry equals an uninterrupted beat.
func TestHeartbeatCrashBeforeCommit(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	setup := func(t *testing.T) (*store.Store, *governance.Project) {
		s := MustOpenStore(t)
		s.Now = func() time.Time { return now }
		p := MustCreateProject(t, s, "travel")
		var events []*governance.Event
		events = append(events, session("s1", now.Add(-48*time.Hour), true, "we always travel light", "FAILED cross district", "ok thanks", "maybe a hotel near the lake")...)
		events = append(events, session("s2", now.Add(-24*time.Hour), true, "FAILED cross district", "what a day")...)
		// s3 is still open (recent, no end event): it holds the checkpoint back.
		events = append(events, session("s3", now.Add(-5*time.Minute), false, "we always travel light")...)
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
		return s, p
	}

	t.Run("CrashBeforeCommitLeavesNothing", func(t *testing.T) {
		s, _ := setup(t)
		clean, _ := setup(t)
		empty := snapshot(t, s)
		s.BeforeCommit = func(context.Context) error { return errors.New("injected crash") }
		if _, err := newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test"); err == nil {
			t.Fatal("beat succeeded, want the injected failure")
		}
		if got := snapshot(t, s); got != empty {
			t.Fatalf("partial output after a failed beat:\n%s", got)
		}
		beats, _ := s.FindBeats(ctx, 1)
		if len(beats) != 1 || !strings.Contains(beats[0].Errors, "injected crash") {
			t.Fatalf("beat row = %+v, want the error recorded", beats)
		}
		s.BeforeCommit = nil
		if _, err := newHeartbeat(s, &lineExtractor{}).Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		if _, err := newHeartbeat(clean, &lineExtractor{}).Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		if a, b := snapshot(t, s), snapshot(t, clean); a != b {
			t.Fatalf("retried beat differs from an uninterrupted one:\n%s\nvs\n%s", a, b)
		}
	})
}

// TestTwoInstancesBeat runs storetest.TestTwoInstancesBeat on two SQLite
// stores over one database file, as two consoles sharing a data directory
// beat it during a leader change.
func TestTwoInstancesBeat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	open := func() *store.Store {
		s, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	storetest.TestTwoInstancesBeat(t, open(), open(), MustOpenStore(t))
}
