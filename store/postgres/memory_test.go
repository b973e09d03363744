package postgres_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestHeartbeatMatchesSQLite: the demo events, beaten with the offline
// extractor, leave the same episodes, candidates, rules and evidence on
// PostgreSQL as on SQLite (compared by content: ids differ), and so do a
// reviewer's decisions on them and a second beat after them.
func TestHeartbeatMatchesSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sqlite := storetest.LoadDemo(t, func(tb testing.TB, from ...storetest.State) storetest.Store {
		s, err := store.Open(ctx, filepath.Join(tb.TempDir(), "db"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { s.Close() })
		return storetest.Build(tb, s, from...)
	})
	pg := storetest.LoadDemo(t, OpenConformance)
	compare := func(when string) {
		t.Helper()
		a, b := storetest.MemoryContent(t, sqlite.Store), storetest.MemoryContent(t, pg.Store)
		if a != b {
			t.Fatalf("%s: PostgreSQL differs from SQLite:\n%s", when, storetest.LineDiff(a, b, "sqlite", "postgres"))
		}
		if !strings.Contains(a, "candidate ") || !strings.Contains(a, "rule ") {
			t.Fatalf("%s: nothing to compare:\n%s", when, a)
		}
	}
	compare("after the first beat")
	for _, d := range []*storetest.Demo{sqlite, pg} {
		if _, err := d.Store.ApproveRule(ctx, "rita", d.Rule(t, "午睡").ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Store.HoldRule(ctx, "rita", d.Rule(t, "结论").ID, "wait"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Beat.Beat(ctx, "again"); err != nil {
			t.Fatal(err)
		}
	}
	compare("after review and a second beat")
}

// TestForgetDuringBeat: a forget that commits while a beat is extracting
// (here its two effects, written as a forget writes them: the event
// redacted and a suppression, in one transaction) wins: the beat's plan is
// dropped and the heartbeat's retry reads the redacted event, so the
// forgotten text is written nowhere. (The whole ForgetSubject joins the
// conformance suite once this store has it.)
func TestForgetDuringBeat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "travel")
	secret := "we always travel with the blue suitcase"
	if _, err := s.IngestEvents(ctx, p.ID, storetest.Session("s1", time.Now().Add(-48*time.Hour), true, secret)); err != nil {
		t.Fatal(err)
	}
	x := storetest.NewGatedExtractor()
	hb := storetest.NewHeartbeat(s, x, nil)
	done := make(chan error, 1)
	go func() { _, err := hb.Beat(ctx, "test"); done <- err }()
	<-x.Started // the beat has read the text and is extracting
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE events SET text = '', words = ''::tsvector, redacted = true WHERE project_id = $1 AND subject_id = 'u1'`,
		`INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES ($1, 'fp', 'u1', now())`,
	} {
		if _, err := tx.Exec(ctx, q, p.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	close(x.Release)
	if err := <-done; err != nil {
		t.Fatalf("beat: %v", err)
	}
	for _, q := range []string{
		`SELECT count(*) FROM episodes WHERE summary LIKE '%suitcase%'`,
		`SELECT count(*) FROM candidates WHERE statement LIKE '%suitcase%'`,
		`SELECT count(*) FROM rules WHERE text LIKE '%suitcase%'`,
		`SELECT count(*) FROM rule_versions WHERE text LIKE '%suitcase%'`,
		`SELECT count(*) FROM events WHERE text LIKE '%suitcase%'`,
	} {
		var n int
		if err := s.Pool().QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s = %d: the forgotten text came back", q, n)
		}
	}
	// The beat did run to the end (its retry found the session redacted).
	if cp, err := s.FindCheckpoint(ctx, p.ID); err != nil || cp == 0 {
		t.Fatalf("checkpoint = %d, %v; want the beat's retry to have passed the session", cp, err)
	}
	var rules int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM rules`).Scan(&rules); err != nil || rules != 0 {
		t.Fatalf("rules = %d, %v", rules, err)
	}
}

// The use cases' interfaces of the memory and governance part this
// backend satisfies (besides those in postgres_test.go).
var _ interface {
	app.AuditStore
	app.MeStore
	app.MemoryStore
	app.HeartbeatStore
	app.ReviewStore
	app.RuleListStore
	consolidate.HeartbeatStore
	storetest.MemoryStore
} = (*postgres.Store)(nil)

// TestTwoInstancesBeat runs storetest.TestTwoInstancesBeat on two
// PostgreSQL stores over one database.
func TestTwoInstancesBeat(t *testing.T) {
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
	storetest.TestTwoInstancesBeat(t, open(), open(), MustOpenStore(t))
}
