// Package postgrestest gives tests outside the store packages (the
// console's failover and cross-instance tests in cmd/console) the
// throwaway PostgreSQL server of store/internal/pgtest, with template
// databases migrated by postgres.Open.
//
//	func TestMain(m *testing.M) { os.Exit(postgrestest.Main(m)) }
//
// NewDatabase skips a test when no server binaries are installed, except
// under $CI, where it fails.
package postgrestest

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
)

// Main runs the tests and stops the server (if one was started) after them.
func Main(m *testing.M) int {
	return pgtest.Main(m, func(ctx context.Context, url string) error {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			return err
		}
		return s.Close()
	})
}

// NewDatabase returns the URL of a new, migrated database for tb.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	return pgtest.NewDatabase(tb)
}

// NewEmptyDatabase returns the URL of a new database with nothing in it
// (no migration applied): a target for pg_restore.
func NewEmptyDatabase(tb testing.TB) string {
	tb.Helper()
	return pgtest.NewEmptyDatabase(tb)
}

// Tool runs a client program installed beside the test server (pg_dump,
// pg_restore), as the server's user, and returns its standard output
// (pgtest.Tool).
func Tool(tb testing.TB, stdin []byte, name string, args ...string) []byte {
	tb.Helper()
	return pgtest.Tool(tb, stdin, name, args...)
}
