package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/store"
)

// MustOpenStore opens a store on a real SQLite file in a temp dir.
func MustOpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	s, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestOpen(t *testing.T) {
	t.Run("Pragmas", func(t *testing.T) {
		s := MustOpenStore(t)
		ctx := context.Background()
		for pragma, want := range map[string]string{
			"journal_mode":  "wal",
			"foreign_keys":  "1",
			"secure_delete": "1",
			"busy_timeout":  "10000",
		} {
			var got string
			if err := s.DB().QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s = %q, want %q", pragma, got, want)
			}
		}
	})
	t.Run("Reopen", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "db")
		ctx := context.Background()
		for i := 0; i < 2; i++ {
			s, err := store.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n < 1 {
				t.Fatalf("migrations applied = %d", n)
			}
			s.Close()
		}
	})
}
