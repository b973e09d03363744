package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestTermStats: recall's cached document frequencies are the scope's
// (another subject's words do not count), follow ingest, and a forget
// leaves none of the forgotten words' counts: the entry is dropped at the
// forget's commit, and counted again the forgotten word is gone.
func TestTermStats(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := MustCreateProjectID(t, s, "p")
	turn := 0
	ingest := func(subject string, texts ...string) {
		t.Helper()
		var evs []*governance.Event
		for _, text := range texts {
			turn++
			evs = append(evs, &governance.Event{ID: fmt.Sprint("e", turn), SessionID: "s-" + subject, SubjectID: subject,
				Turn: turn, Role: governance.RoleUser, Text: text, OccurredAt: time.Date(2026, 6, 15, 9, 0, turn, 0, time.UTC)})
		}
		if _, err := s.IngestEvents(ctx, p, evs); err != nil {
			t.Fatal(err)
		}
	}
	stats := func(want string) {
		t.Helper()
		st, err := s.eventTermStats(ctx, p, "a", []string{"zebraquokka", "tea"})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("docs %d, zebraquokka %d, tea %d", st.Docs, st.DF["zebraquokka"], st.DF["tea"]); got != want {
			t.Errorf("stats: %s, want %s", got, want)
		}
	}
	cached := func() bool {
		s.termStats.mu.Lock()
		defer s.termStats.mu.Unlock()
		return s.termStats.scopes[termScope{p, "a"}] != nil
	}
	ingest("a", "Zebraquokka tea", "tea time", "a third line")
	ingest("b", "zebraquokka coffee")
	stats("docs 3, zebraquokka 1, tea 2")
	if !cached() {
		t.Fatal("nothing cached")
	}
	stats("docs 3, zebraquokka 1, tea 2")

	ingest("a", "zebraquokka again")
	if cached() {
		t.Error("an ingest's commit left the scope's entry")
	}
	stats("docs 4, zebraquokka 2, tea 2")

	if _, err := s.ForgetSubject(ctx, "admin", p, "a"); err != nil {
		t.Fatal(err)
	}
	if cached() {
		t.Error("the forget's commit left the scope's entry, with the forgotten words' counts")
	}
	stats("docs 0, zebraquokka 0, tea 0") // the forgotten subject's events carry a tombstone now
}
