package postgres_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// The use cases' interfaces this backend already satisfies.
var _ interface {
	app.ProjectStore
	app.SystemStore
	app.AccountStore
	app.TokenStore
	app.EventStore
	app.SourceStore
	app.EvalStore
	evals.SuiteStore
	evals.RunStore
} = (*postgres.Store)(nil)

// TestMain runs the package's tests against a throwaway server whose
// template database is already migrated, so each test's database is.
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, func(ctx context.Context, url string) error {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			return err
		}
		return s.Close()
	}))
}

// MustOpenStore opens a store on a new database of the test server.
func MustOpenStore(tb testing.TB) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(context.Background(), pgtest.NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// OpenConformance is the conformance suite's opener: each starting state
// is built once per test binary in a database of its own, and every test
// gets a database created from it as a template.
func OpenConformance(tb testing.TB, from ...storetest.State) storetest.Store {
	tb.Helper()
	if len(from) == 0 {
		return MustOpenStore(tb)
	}
	if len(from) > 1 {
		tb.Fatal("postgres_test: one starting state at a time")
	}
	url := pgtest.NewDatabaseFrom(tb, from[0].Name, func(ctx context.Context, url string) error {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			return err
		}
		if err := from[0].Build(ctx, s); err != nil {
			s.Close()
			return err
		}
		return s.Close()
	})
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the store conformance suite against PostgreSQL.
func TestConformance(t *testing.T) {
	storetest.Run(t, OpenConformance)
}

// TestSearchRanking holds PostgreSQL's search to the results contract
// against SQLite's on the shared fixture (storetest.RankingReference),
// with words weighed by counting them (a small table, as the fixture is)
// and by the column statistics (a large one). SQLite answers once.
func TestSearchRanking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sqlite, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlite.Close() })
	ref := storetest.NewRankingReference(t, sqlite)
	t.Run("Counted", func(t *testing.T) { ref.Compare(t, MustOpenStore(t)) })
	t.Run("Statistics", func(t *testing.T) {
		pg := MustOpenStore(t)
		postgres.SetStatsFrom(pg, 0)
		ref.Compare(t, pg, func() {
			if _, err := pg.Pool().Exec(ctx, `ANALYZE events`); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// TestTokenStoresOnlyHash: the table holds the secret's hash, never the
// secret.
func TestTokenStoresOnlyHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	p := storetest.MustCreateProject(t, s, "travel")
	tok := &governance.APIToken{ProjectID: p.ID, Name: "agent", CreatedBy: "admin", Scopes: []governance.TokenScope{governance.ScopeRecall}}
	if err := s.CreateToken(ctx, tok, storetest.TokenHash("secret-1")); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := s.Pool().QueryRow(ctx, `SELECT token_hash FROM api_tokens WHERE id = $1`, tok.ID).Scan(&stored); err != nil || stored != storetest.TokenHash("secret-1") {
		t.Fatalf("stored %q, %v", stored, err)
	}
}

// TestAuditTamper: the audit table refuses updates, and a row changed by
// hand (the guard dropped first) is named by VerifyAudit.
func TestAuditTamper(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	for i := range 3 {
		if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "admin", Action: "rule.approve", ObjectType: "rule", ObjectID: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Pool().Exec(ctx, `UPDATE audit SET actor = 'mallory' WHERE id = 2`); err == nil {
		t.Fatal("audit update allowed, want append-only")
	}
	if _, err := s.Pool().Exec(ctx, `DELETE FROM audit WHERE id = 2`); err == nil {
		t.Fatal("audit delete allowed, want append-only")
	}
	if _, err := s.Pool().Exec(ctx, `DROP TRIGGER audit_no_update ON audit`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `UPDATE audit SET actor = 'mallory' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	v, err := s.VerifyAudit(ctx)
	if err != nil || v.OK || v.BadID != 2 || v.Rows != 3 {
		t.Fatalf("verify after tamper = %+v, %v; want row 2 named", v, err)
	}
}

// TestAuditHashMatchesSQLite: both backends chain the same entry to the
// same hash (the formula is written twice; a chain moved between them must
// still verify).
func TestAuditHashMatchesSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ref, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	pg := MustOpenStore(t)
	at := time.Date(2026, 6, 15, 9, 30, 0, 0, time.UTC)
	ref.Now, pg.Now = func() time.Time { return at }, func() time.Time { return at }
	for i, reason := range []string{"", "not durable: 孩子午睡"} {
		a := &governance.AuditEntry{Actor: "alice", Action: "rule.reject", ObjectType: "rule", ObjectID: fmt.Sprint(i), Reason: reason, Details: `{"x":1}`}
		b := *a
		if err := ref.AppendAudit(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := pg.AppendAudit(ctx, &b); err != nil {
			t.Fatal(err)
		}
		if a.Hash != b.Hash || a.PrevHash != b.PrevHash {
			t.Fatalf("entry %d: PostgreSQL hash %s (prev %s), SQLite %s (prev %s)", i, b.Hash, b.PrevHash, a.Hash, a.PrevHash)
		}
	}
}
