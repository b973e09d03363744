package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/store"
)

// TestMigrationChecksums: every applied migration's checksum is recorded;
// a database that applied a migration whose file was since edited, or
// that applied one under a name no longer shipped (renumbered), refuses
// to start and names it; a database from before checksums gets them
// recorded on its first start.
func TestMigrationChecksums(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, tc := range []struct {
		name, change, err string
	}{
		{"before checksums", `UPDATE schema_migrations SET checksum = ''`, ""},
		{"edited", `UPDATE schema_migrations SET checksum = 'feed' || substr(checksum, 5) WHERE name = 'migrations/0002_recall.sql'`,
			"migration migrations/0002_recall.sql was changed after this database applied it"},
		{"renumbered", `UPDATE schema_migrations SET name = 'migrations/0090_recall.sql' WHERE name = 'migrations/0002_recall.sql'`,
			"migration migrations/0090_recall.sql, which this database applied, is shipped renamed as migrations/0002_recall.sql"},
		{"removed", `INSERT INTO schema_migrations (name, applied_at, checksum) VALUES ('migrations/9999_newer.sql', '2026-01-01T00:00:00Z', 'x')`,
			"this database applied migration migrations/9999_newer.sql, which this version does not ship"},
	} {
		raw, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var before string
		raw.DB().QueryRowContext(ctx, `SELECT group_concat(name || '=' || checksum) FROM (SELECT * FROM schema_migrations ORDER BY name)`).Scan(&before)
		if strings.Contains(before, "=,") || strings.HasSuffix(before, "=") {
			t.Fatalf("%s: a migration without its checksum: %s", tc.name, before)
		}
		if _, err := raw.DB().ExecContext(ctx, tc.change); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		s, err := store.Open(ctx, path)
		if tc.err == "" {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var after string
			s.DB().QueryRowContext(ctx, `SELECT group_concat(name || '=' || checksum) FROM (SELECT * FROM schema_migrations ORDER BY name)`).Scan(&after)
			if after != before {
				t.Fatalf("%s: checksums recorded on the first start:\n%s\nwant\n%s", tc.name, after, before)
			}
			s.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
		// Put the record back for the next case.
		undo, err := sql.Open("sqlite", store.DSN(path))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := undo.ExecContext(ctx, `DELETE FROM schema_migrations WHERE name IN ('migrations/9999_newer.sql');
			UPDATE schema_migrations SET name = 'migrations/0002_recall.sql' WHERE name = 'migrations/0090_recall.sql';
			UPDATE schema_migrations SET checksum = ''`); err != nil {
			t.Fatal(err)
		}
		undo.Close()
	}
}
