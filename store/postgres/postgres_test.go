package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/app"
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

// TestConformance runs the store conformance suite against PostgreSQL.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(tb testing.TB) storetest.Store { return MustOpenStore(tb) })
}

// TestSearchRanking holds PostgreSQL's search to the results contract
// against SQLite's on the shared fixture (storetest.CompareRanking).
func TestSearchRanking(t *testing.T) {
	t.Parallel()
	ref, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	storetest.CompareRanking(t, ref, MustOpenStore(t))
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
