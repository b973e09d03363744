package postgres_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// The whole of what the console needs of a store: every use case's
// interface (app.Store), the eval runner's memory and the heartbeat's.
var _ interface {
	app.Store
	evals.MemoryStore
	consolidate.HeartbeatStore
} = (*postgres.Store)(nil)

// mustOpenSQLite opens a SQLite store in tb's temporary directory, the
// reference the contracts compare PostgreSQL to.
func mustOpenSQLite(tb testing.TB) *store.Store {
	tb.Helper()
	s, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestExportMatchesSQLite: the same memories export to the same records
// on both backends (refs, slug and export time aside), whole and for one
// subject, so an export moves between them.
func TestExportMatchesSQLite(t *testing.T) {
	t.Parallel()
	lite, pg := mustOpenSQLite(t), MustOpenStore(t)
	fl, fp := storetest.LoadMemoryFixture(t, lite, "travel"), storetest.LoadMemoryFixture(t, pg, "travel")
	for _, subject := range []string{"", "family-1"} {
		a, _ := storetest.ExportOf(t, lite, fl.Project.ID, subject)
		b, _ := storetest.ExportOf(t, pg, fp.Project.ID, subject)
		if na, nb := storetest.NormalizeExport(t, a), storetest.NormalizeExport(t, b); !slices.Equal(na, nb) {
			t.Errorf("subject %q: SQLite exports\n%s\nPostgreSQL exports\n%s", subject, strings.Join(na, "\n"), strings.Join(nb, "\n"))
		}
	}
}

// TestRecallContract holds PostgreSQL's recall to the results contract
// against SQLite's on the shared fixture (storetest.RecallReference).
func TestRecallContract(t *testing.T) {
	t.Parallel()
	ref := storetest.NewRecallReference(t, mustOpenSQLite(t))
	ref.Compare(t, MustOpenStore(t))
}
