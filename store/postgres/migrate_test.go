package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
)

// TestMigrationChecksums: every applied migration's checksum is recorded;
// a database that applied a migration whose file was since edited, or
// that applied one under a name no longer shipped (renumbered), refuses
// to start and names it; a database from before checksums gets them
// recorded on its first start.
func TestMigrationChecksums(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	const sums = `SELECT string_agg(name || '=' || checksum, ',' ORDER BY name) FROM schema_migrations`
	for _, tc := range []struct {
		name, change, err string
	}{
		{"before checksums", `UPDATE schema_migrations SET checksum = ''`, ""},
		{"edited", `UPDATE schema_migrations SET checksum = 'feed' || substr(checksum, 5) WHERE name = 'migrations/0002_api_tokens.sql'`,
			"migration migrations/0002_api_tokens.sql was changed after this database applied it"},
		{"renumbered", `UPDATE schema_migrations SET name = 'migrations/0090_api_tokens.sql' WHERE name = 'migrations/0002_api_tokens.sql'`,
			"migration migrations/0090_api_tokens.sql, which this database applied, is shipped renamed as migrations/0002_api_tokens.sql"},
		{"removed", `INSERT INTO schema_migrations (name, applied_at, checksum) VALUES ('migrations/9999_newer.sql', now(), 'x')`,
			"this database applied migration migrations/9999_newer.sql, which this version does not ship"},
	} {
		raw, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var before string
		if err := raw.Pool().QueryRow(ctx, sums).Scan(&before); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(before, "=,") || strings.HasSuffix(before, "=") {
			t.Fatalf("%s: a migration without its checksum: %s", tc.name, before)
		}
		if _, err := raw.Pool().Exec(ctx, tc.change); err != nil {
			t.Fatal(err)
		}
		s, err := postgres.Open(ctx, url)
		if tc.err == "" {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var after string
			if err := s.Pool().QueryRow(ctx, sums).Scan(&after); err != nil || after != before {
				t.Fatalf("%s: checksums recorded on the first start:\n%s\nwant\n%s (%v)", tc.name, after, before, err)
			}
			s.Close()
		} else if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
		// Put the record back for the next case.
		if _, err := raw.Pool().Exec(ctx, `DELETE FROM schema_migrations WHERE name = 'migrations/9999_newer.sql'`); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Pool().Exec(ctx, `UPDATE schema_migrations SET name = 'migrations/0002_api_tokens.sql' WHERE name = 'migrations/0090_api_tokens.sql'`); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Pool().Exec(ctx, `UPDATE schema_migrations SET checksum = ''`); err != nil {
			t.Fatal(err)
		}
		raw.Close()
	}
}
