package postgres_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/postgres"
)

// walHolding lists the files of the server's pg_wal that hold secret.
func walHolding(t *testing.T, s *postgres.Store, secret string) []string {
	t.Helper()
	var dataDir string
	if err := s.Pool().QueryRow(context.Background(), `SHOW data_directory`).Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(dataDir, "pg_wal", "0*"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no WAL segments in %s: %v", dataDir, err)
	}
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if os.IsNotExist(err) {
			continue // removed meanwhile
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			out = append(out, filepath.Base(n))
		}
	}
	return out
}

// TestForgetWALPurge: the documented purge of the write-ahead log after a
// forget (docs/security.md: wal_recycle off, then a switch and a
// checkpoint twice) leaves no segment in pg_wal holding the forgotten
// text. With segments recycled (wal_recycle on, PostgreSQL's default) the
// same switches and checkpoints leave the text in a renamed segment.
func TestForgetWALPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	p := &governance.Project{Slug: "walpurge", Name: "walpurge"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := s.Pool().Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	purge := func() {
		for range 2 {
			exec(`SELECT pg_switch_wal()`)
			exec(`CHECKPOINT`)
		}
	}
	forget := func(secret, subject string) {
		t.Helper()
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{{ID: subject, SessionID: "s-" + subject, SubjectID: subject, Turn: 1,
			Role: governance.RoleUser, Text: "Remember " + secret + " for me.", OccurredAt: time.Now()}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ForgetSubject(ctx, "admin", p.ID, subject); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		s.Pool().Exec(context.Background(), `ALTER SYSTEM RESET wal_recycle`)
		s.Pool().Exec(context.Background(), `SELECT pg_reload_conf()`)
	})

	// Recycled: the old segment is renamed for reuse, bytes and all.
	exec(`ALTER SYSTEM SET wal_recycle = on`)
	exec(`SELECT pg_reload_conf()`)
	const recycled = "wombatrecycledsecret"
	forget(recycled, "u-recycled")
	purge()
	if len(walHolding(t, s, recycled)) == 0 {
		t.Log("no recycled segment kept the text this time (the server reused it already)")
	}

	exec(`ALTER SYSTEM SET wal_recycle = off`)
	exec(`SELECT pg_reload_conf()`)
	purge() // what recycling kept goes too
	const secret = "quokkapurgedsecret"
	forget(secret, "u-purged")
	if len(walHolding(t, s, secret)) == 0 {
		t.Fatal("the forgotten text is in no WAL segment right after the forget: the test checks nothing")
	}
	purge()
	for _, text := range []string{secret, recycled} {
		if held := walHolding(t, s, text); len(held) > 0 {
			t.Errorf("after the documented purge, WAL segments %v still hold %q", held, text)
		}
	}
}
