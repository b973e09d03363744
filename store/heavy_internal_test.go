package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestHeavyReadsLeaveConnections: while heavyReads searches or recall
// loads run, another waits (and gives up with its context), and the cheap
// reads and writes still get a connection at once.
func TestHeavyReadsLeaveConnections(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &governance.Project{Slug: "travel", Name: "travel"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	for range heavyReads {
		release, err := s.heavyRead(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, _, err := s.SearchEvents(short, governance.EventFilter{ProjectID: &p.ID, Query: "kayak"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a search past the heavy slots = %v; want it to wait until its context ends", err)
	}
	if _, err := s.LoadRecallInput(short, governance.RecallRequest{ProjectID: p.ID, Task: "kayak"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a recall load past the heavy slots = %v; want it to wait until its context ends", err)
	}
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{{ID: "e1", SessionID: "s1", SubjectID: "u1", Role: governance.RoleUser,
		Text: "the kayak", OccurredAt: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}}); err != nil {
		t.Fatal(err)
	}
	if evs, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 10}); err != nil || len(evs) != 1 {
		t.Fatalf("a timeline read while the heavy slots are taken = %d events, %v", len(evs), err)
	}
}
