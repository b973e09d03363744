package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// turnLog keeps the queue turns a store reports.
type turnLog struct {
	mu    sync.Mutex
	turns []store.QueueTurn
}

func (l *turnLog) record(t store.QueueTurn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turns = append(l.turns, t)
}

// of returns the turns of op on queue q.
func (l *turnLog) of(q store.Queue, op string) []store.QueueTurn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []store.QueueTurn
	for _, t := range l.turns {
		if t.Queue == q && t.Op == op {
			out = append(out, t)
		}
	}
	return out
}

// TestQueueTurns: each turn of the writer and of the heavy-read slots is
// reported under the store method the caller entered by — also when the
// turn is taken deep inside (a recall's trace, a forget's transaction) —
// with the time it waited and held the slot, and QueueWaiting counts the
// callers waiting meanwhile.
func TestQueueTurns(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	var log turnLog
	s.ObserveQueues(log.record)

	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "we always take the kayak")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "kayak"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall(ctx, "agent", governance.RecallRequest{ProjectID: p.ID, SubjectID: "family-1", Task: "kayak trip", IncludeEvents: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "family-1"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		q  store.Queue
		op string
	}{
		{store.QueueWriter, "IngestEvents"},
		{store.QueueHeavy, "SearchEvents"},
		{store.QueueHeavy, "Recall"},  // LoadRecallInput, called by Recall
		{store.QueueWriter, "Recall"}, // the trace
		{store.QueueWriter, "ForgetSubject"},
	} {
		if got := log.of(want.q, want.op); len(got) != 1 {
			t.Errorf("%s turns of %s = %d, want 1 (all turns: %+v)", want.q, want.op, len(got), log.turns)
		}
	}
	if t.Failed() {
		return
	}

	// A writer waiting behind an open transaction is counted, and its turn
	// says how long it waited.
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e2", "s2", 1, governance.RoleUser, "a nap after lunch")})
		done <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); s.QueueWaiting(store.QueueWriter) != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("writers waiting = %d, want 1", s.QueueWaiting(store.QueueWriter))
		}
	}
	const held = 30 * time.Millisecond
	time.Sleep(held)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := s.QueueWaiting(store.QueueWriter); n != 0 {
		t.Errorf("writers waiting after the turn = %d, want 0", n)
	}
	if begun := log.of(store.QueueWriter, "BeginTx"); len(begun) != 1 || begun[0].Held < held {
		t.Errorf("the open transaction's turn = %+v, want one held at least %s", begun, held)
	}
	ingests := log.of(store.QueueWriter, "IngestEvents")
	if len(ingests) != 2 || ingests[1].Waited < held {
		t.Errorf("ingest turns = %+v, want a second one that waited at least %s", ingests, held)
	}

	// Without an observer nothing is reported.
	s.ObserveQueues(nil)
	before := len(log.of(store.QueueWriter, "IngestEvents"))
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e3", "s3", 1, governance.RoleUser, "museum tickets")}); err != nil {
		t.Fatal(err)
	}
	if after := len(log.of(store.QueueWriter, "IngestEvents")); after != before {
		t.Errorf("turns reported after ObserveQueues(nil): %d, want %d", after, before)
	}
}
