package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestReopenedMessageIndexed: a followed file's message read again with
// text appended (ImportChunk's reopen) replaces the stored text, and the
// word index follows: the appended word is found, FTS5's integrity check
// passes, and a forget of the subject then leaves neither the old nor the
// new words. The row trigger stands aside while a batch is written, and
// the replaced text used to stay out of the index (the appended word was
// not found and the integrity check failed: "database disk image is
// malformed").
func TestReopenedMessageIndexed(t *testing.T) {
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
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	msg := func(id, text string) *governance.Event {
		return &governance.Event{ID: id, SessionID: "s1", SubjectID: "u1", Turn: 1, Role: governance.RoleAssistant, Text: text, OccurredAt: at}
	}
	chunk := func(reopen string, events ...*governance.Event) *governance.ImportResult {
		t.Helper()
		res, err := s.importStream(ctx, "test", "", p.ID, reopen, func(emit func(*governance.Event) error) error {
			for _, e := range events {
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		}, func(context.Context, *Tx, *governance.ImportResult) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	integrity := func(when string) {
		t.Helper()
		if _, err := s.db.ExecContext(ctx, `INSERT INTO events_words (events_words, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatalf("events_words integrity check %s: %v", when, err)
		}
	}
	found := func(word string) int {
		t.Helper()
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: word})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}

	chunk("", msg("m1", "we pack the blue suitcase"))
	// Reopened in a later chunk, beside a new line of the same chunk.
	if res := chunk("m1", msg("m1", "we pack the blue suitcase and the zebraquokka"), msg("m2", "noted")); res.Replaced != 1 || res.Inserted != 1 {
		t.Fatalf("reopen: replaced %d, inserted %d; want 1 and 1", res.Replaced, res.Inserted)
	}
	integrity("after the reopen")
	if n := found("zebraquokka"); n != 1 {
		t.Errorf("the appended word is found in %d events, want 1", n)
	}
	if n := found("suitcase"); n != 1 {
		t.Errorf("the first part is found in %d events, want 1", n)
	}
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	integrity("after the forget")
	for _, w := range []string{"zebraquokka", "suitcase", "noted"} {
		if n := found(w); n != 0 {
			t.Errorf("%q is found in %d events after the subject's forget", w, n)
		}
	}
}
