package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// MustOpenStore opens a store on a real SQLite file in a temp dir.
func MustOpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	s := sqlitetest.Open(tb)
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

// Writers in one process queue for the database instead of racing
// SQLite's busy handler: many concurrent writers all succeed, and a
// writer whose context ends while it waits gives up with that error.
func TestWriterQueue(t *testing.T) {
	ctx := context.Background()
	t.Run("ConcurrentWritersAllLand", func(t *testing.T) {
		s := MustOpenStore(t)
		p := MustCreateProject(t, s, "travel")
		const writers, batches = 8, 20
		var wg sync.WaitGroup
		errs := make(chan error, writers*batches)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range batches {
					id := fmt.Sprintf("w%d-b%d", w, b)
					if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev(id, id, 1, governance.RoleUser, "以后都订王府井附近的酒店")}); err != nil {
						errs <- err
					}
					if err := s.SetProjectPolicy(ctx, p.ID, b%2 == 0); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		_, total, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
		if err != nil || total != writers*batches {
			t.Fatalf("events = %d (%v), want %d", total, err, writers*batches)
		}
	})
	t.Run("WaiterGivesUpWithItsContext", func(t *testing.T) {
		s := MustOpenStore(t)
		p := MustCreateProject(t, s, "travel")
		tx, err := s.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = s.IngestEvents(wctx, p.ID, []*governance.Event{ev("late", "s1", 1, governance.RoleUser, "hello")})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiting writer err = %v, want deadline exceeded", err)
		}
		// Rollback frees the slot (and a second Rollback is harmless).
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		_ = tx.Rollback()
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("late", "s1", 1, governance.RoleUser, "hello")}); err != nil {
			t.Fatal(err)
		}
	})
}
