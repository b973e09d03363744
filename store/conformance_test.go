package store_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestConformance runs the store conformance suite against SQLite; the
// PostgreSQL store runs the same suite (store/postgres).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(tb testing.TB) storetest.Store { return MustOpenStore(tb) })
}
