package postgres_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// The use cases' interfaces this backend already satisfies.
var _ interface {
	app.ProjectStore
	app.SystemStore
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
	ref, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	storetest.CompareRanking(t, ref, MustOpenStore(t))
}
