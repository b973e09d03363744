package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestSearchWindowsFollowChanges: two instances on one database. The
// reader keeps the ranked windows of its searches (search_window.go) and
// serves a repeated search and its next page from them; after the other
// instance ingests into the project or forgets a subject of it, every
// page the reader serves is again the one an instance without windows
// ranks, the new events found and the forgotten ones gone. A change in
// another project leaves the reader's windows valid.
func TestSearchWindowsFollowChanges(t *testing.T) {
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
	writer, reader, ref := open(), open(), open()
	postgres.DisableSearchWindows(ref)
	p := storetest.MustCreateProject(t, writer, "p")
	other := storetest.MustCreateProject(t, writer, "q")
	events := seed.SyntheticEvents(3000, 5)
	for i := 0; i < len(events); i += 1000 {
		if _, err := writer.IngestEvents(ctx, p.ID, events[i:i+1000]); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{"酒店", "deploy timeout", "门票 博物馆"}
	subject := "user-2"
	// check compares the first two pages of each query, and the first page
	// limited to one subject, with the reference; it returns the seqs the
	// reader found.
	check := func(step string) map[int64]bool {
		t.Helper()
		found := map[int64]bool{}
		for _, q := range queries {
			for _, f := range []governance.EventFilter{
				{ProjectID: &p.ID, Query: q, Limit: 20},
				{ProjectID: &p.ID, Query: q, Limit: 20, Offset: 20},
				{ProjectID: &p.ID, Query: q, Limit: 20, SubjectID: &subject},
			} {
				got, gotTotal, err := reader.SearchEvents(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				want, wantTotal, err := ref.SearchEvents(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if gotTotal != wantTotal || hitsOf(got) != hitsOf(want) {
					t.Fatalf("%s: %q offset %d subject %v: %d hits %s, want %d hits %s", step, q, f.Offset, f.SubjectID != nil,
						gotTotal, hitsOf(got), wantTotal, hitsOf(want))
				}
				if len(got) == 0 && f.SubjectID == nil {
					t.Fatalf("%s: %q offset %d: no hits", step, q, f.Offset)
				}
				for _, h := range got {
					found[h.Event.Seq] = true
				}
			}
		}
		return found
	}
	windows := func() (hits, misses, stale int) { return postgres.SearchWindows(reader) }

	check("first")
	_, misses0, _ := windows()
	if misses0 == 0 {
		t.Fatal("no search ranked a window")
	}
	hits0, _, _ := windows()
	check("again")
	hits1, misses1, stale1 := windows()
	if searches := 3 * len(queries); hits1-hits0 != searches || misses1 != misses0 || stale1 != 0 {
		t.Fatalf("%d searches repeated: %d hits, %d misses, %d stale; want every one a hit of a valid window",
			searches, hits1-hits0, misses1-misses0, stale1)
	}

	// Another project's events leave this project's windows valid.
	if _, err := writer.IngestEvents(ctx, other.ID, seed.SyntheticEvents(20, 9)); err != nil {
		t.Fatal(err)
	}
	check("other project")
	if _, _, stale := windows(); stale != 0 {
		t.Fatalf("%d windows stale after another project's ingest", stale)
	}

	// New events of the project, on the other instance, rank first.
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var fresh []*governance.Event
	for i := range 5 {
		fresh = append(fresh, &governance.Event{ID: fmt.Sprintf("new-%d", i), SessionID: "new", SubjectID: subject, Turn: i + 1,
			Role: governance.RoleUser, Text: "酒店 酒店 酒店 门票 博物馆 deploy deploy timeout", OccurredAt: at})
	}
	res, err := writer.IngestEvents(ctx, p.ID, fresh)
	if err != nil || res.Inserted != len(fresh) {
		t.Fatalf("ingest: %+v, %v", res, err)
	}
	found := check("after ingest")
	if _, _, stale := windows(); stale == 0 {
		t.Fatal("no window found out of date after the project's ingest")
	}
	for _, e := range fresh {
		if !found[e.Seq] {
			t.Fatalf("new event %s (seq %d) not found", e.ID, e.Seq)
		}
	}

	// A forget of the subject on the other instance: its events are gone
	// from every page, kept window or not.
	_, _, stale2 := windows()
	if _, err := writer.ForgetSubject(ctx, "admin", p.ID, subject); err != nil {
		t.Fatal(err)
	}
	found = check("after forget")
	if _, _, stale := windows(); stale == stale2 {
		t.Fatal("no window found out of date after the forget")
	}
	for _, e := range fresh {
		if found[e.Seq] {
			t.Fatalf("forgotten event %s (seq %d) still found", e.ID, e.Seq)
		}
	}
}

// hitsOf describes search hits by seq and text, in order.
func hitsOf(hits []*governance.EventHit) string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%d:%q", h.Event.Seq, h.Event.Text))
	}
	return fmt.Sprint(out)
}
