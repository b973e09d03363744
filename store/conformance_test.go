package store_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// openConformance is the conformance suite's opener: each starting state
// is built once per test binary and every test gets a copy of its
// database file (store/sqlitetest).
func openConformance(tb testing.TB, from ...storetest.State) storetest.Store {
	tb.Helper()
	switch len(from) {
	case 0:
		return MustOpenStore(tb)
	case 1:
		return sqlitetest.OpenWith(tb, "storetest: "+from[0].Name, func(ctx context.Context, s *store.Store) error {
			return from[0].Build(ctx, s)
		})
	}
	tb.Fatal("store_test: one starting state at a time")
	return nil
}

// TestConformance runs the store conformance suite against SQLite; the
// PostgreSQL store runs the same suite (store/postgres).
func TestConformance(t *testing.T) {
	storetest.Run(t, openConformance)
}
