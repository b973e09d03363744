package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestEventsPartitionMigration: migrations 0018 and 0019 turn a
// database's events (and episodes) tables into partitioned ones with their
// rows, seqs, indexes and triggers, and ingest, reads and a forget go on
// where they left off.
func TestEventsPartitionMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewEmptyDatabase(t)
	old, err := postgres.OpenBefore(ctx, url, "0018")
	if err != nil {
		t.Fatal(err)
	}
	// A project as the code before 0018 wrote it (later migrations add
	// columns the store's CreateProject writes).
	p := &governance.Project{Slug: "mig", Name: "mig"}
	if err := old.Pool().QueryRow(ctx, `INSERT INTO projects (slug, name, created_at) VALUES ($1, $2, now()) RETURNING id`, p.Slug, p.Name).Scan(&p.ID); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := func(id, subject, text string, turn int) *governance.Event {
		return &governance.Event{ID: id, SessionID: "s1", SubjectID: subject, Turn: turn, Role: governance.RoleUser, Text: text, OccurredAt: at}
	}
	if _, err := old.IngestEvents(ctx, p.ID, []*governance.Event{ev("a", "ann", "the blue kayak", 1), ev("b", "bob", "the red canoe", 2)}); err != nil {
		t.Fatal(err)
	}
	count := func(s *postgres.Store, q string) (n int) {
		t.Helper()
		if err := s.Pool().QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const (
		indexes  = `SELECT count(*) FROM pg_indexes WHERE tablename = 'events'`
		triggers = `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'events'::regclass AND NOT tgisinternal`
	)
	idx, trg := count(old, indexes), count(old, triggers)
	old.Close()

	// The partitioning migrations alone (later ones add their own
	// triggers) keep the indexes and triggers.
	part, err := postgres.OpenBefore(ctx, url, "0020")
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"events", "episodes"} {
		if n := count(part, `SELECT count(*) FROM pg_inherits WHERE inhparent = '`+table+`'::regclass`); n != 16 {
			t.Fatalf("%s has %d partitions, want 16", table, n)
		}
	}
	if got := count(part, indexes); got != idx {
		t.Errorf("events has %d indexes after the migration, %d before", got, idx)
	}
	if got := count(part, triggers); got != trg || got == 0 {
		t.Errorf("events has %d triggers after the migration, %d before", got, trg)
	}
	part.Close()

	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Ingest goes on past the copied seqs; an id already stored is skipped.
	n, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("a", "ann", "the blue kayak", 1), ev("c", "ann", "a green raft", 3)})
	if err != nil || n.Inserted != 1 {
		t.Fatalf("ingest after the migration: %+v, %v", n, err)
	}
	events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 || events[0].Seq >= events[2].Seq || events[2].ID != "c" {
		t.Fatalf("events after the migration: %+v", events)
	}
	hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "canoe", Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].Event.ID != "b" {
		t.Fatalf("search after the migration: %v, %v", hits, err)
	}
	// The redaction trigger moved along: a forget bumps the generation.
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "ann"); err != nil {
		t.Fatal(err)
	}
	if g := count(s, `SELECT COALESCE(max(generation), 0) FROM forget_generations`); g == 0 {
		t.Error("redacting events after the migration did not bump the forget generation")
	}
	if left := count(s, `SELECT count(*) FROM events WHERE strpos(text, 'kayak') > 0 OR strpos(text, 'raft') > 0`); left != 0 {
		t.Errorf("%d forgotten events still readable", left)
	}
}

// TestRewriteSparesOtherPartitions: while one partition of events is
// locked as a forget's rewrite locks it (ACCESS EXCLUSIVE), a project in
// another partition reads its sessions, searches and ingests — again and
// again, past the point where the server may switch a prepared statement
// to a generic plan, which would lock every partition — and the locked
// project's own reads wait.
func TestRewriteSparesOtherPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	partition := map[string]*governance.Project{}
	var locked, other *governance.Project
	for i := 0; other == nil && i < 40; i++ {
		p := storetest.MustCreateProject(t, s, "part-"+string(rune('a'+i)))
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{{ID: "e0", SessionID: "s1", Turn: 1, Role: governance.RoleUser,
			Text: "the blue kayak", OccurredAt: at}}); err != nil {
			t.Fatal(err)
		}
		var part string
		if err := s.Pool().QueryRow(ctx, `SELECT tableoid::regclass::text FROM events WHERE project_id = $1`, p.ID).Scan(&part); err != nil {
			t.Fatal(err)
		}
		if locked == nil {
			locked, partition[part] = p, p
		} else if partition[part] == nil {
			other = p
		}
	}
	if other == nil {
		t.Fatal("no two projects in different partitions")
	}
	var part string
	if err := s.Pool().QueryRow(ctx, `SELECT tableoid::regclass::text FROM events WHERE project_id = $1`, locked.ID).Scan(&part); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `LOCK TABLE `+part+` IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	session := "s1"
	for i := range 8 {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		if _, _, err := s.FindEvents(c, governance.EventFilter{ProjectID: &other.ID, SessionID: &session, Limit: 50}); err != nil {
			t.Fatalf("read %d of the other project: %v", i, err)
		}
		if _, _, err := s.SearchEvents(c, governance.EventFilter{ProjectID: &other.ID, Query: "kayak", Limit: 20}); err != nil {
			t.Fatalf("search %d of the other project: %v", i, err)
		}
		if _, err := s.IngestEvents(c, other.ID, []*governance.Event{{ID: "w" + string(rune('0'+i)), SessionID: "s2", Turn: i + 1,
			Role: governance.RoleUser, Text: "a line written meanwhile", OccurredAt: at}}); err != nil {
			t.Fatalf("write %d of the other project: %v", i, err)
		}
		cancel()
	}
	// A page's reads, repeated with no write between them so that a
	// search's page comes from its kept window and the plans pool's
	// connections go past the five plans after which they may keep one.
	for i := range 12 {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		if _, err := s.FindSession(c, other.ID, session); err != nil {
			t.Fatalf("session %d of the other project: %v", i, err)
		}
		if _, _, err := s.FindEvents(c, governance.EventFilter{ProjectID: &other.ID, SessionID: &session, Limit: 50}); err != nil {
			t.Fatalf("timeline %d of the other project: %v", i, err)
		}
		if _, _, err := s.SearchEvents(c, governance.EventFilter{ProjectID: &other.ID, Query: "kayak", Limit: 20}); err != nil {
			t.Fatalf("search page %d of the other project: %v", i, err)
		}
		cancel()
	}
	if hits, _, _ := postgres.SearchWindows(s); hits == 0 {
		t.Fatal("no search page came from a kept window")
	}
	c, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, _, err := s.FindEvents(c, governance.EventFilter{ProjectID: &locked.ID, SessionID: &session, Limit: 50}); err == nil {
		t.Fatal("the locked project's read did not wait for the lock: the test locks nothing")
	}
}
