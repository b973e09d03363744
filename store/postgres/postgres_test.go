package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/mnemo-console/mnemo/app"
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
