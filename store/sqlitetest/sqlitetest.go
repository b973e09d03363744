// Package sqlitetest gives tests SQLite stores quickly. Running the
// migrations, and even more loading and consolidating the demo, costs
// seconds under the race detector; tests need the result dozens of times.
// So each distinct starting state is built once per test binary, kept as
// the bytes of its database file, and every test opens its own copy of
// that file in its own temporary directory. A copy is the same database
// as one built from scratch: store.Open finds its migrations applied.
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/store"
)

// template is one starting state, built at most once.
type template struct {
	once  sync.Once
	bytes []byte
	err   error
}

var (
	mu        sync.Mutex
	templates = map[string]*template{}
)

// Open is a fresh, migrated, empty store in tb's temporary directory,
// closed when the test ends.
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	return OpenWith(tb, "", nil)
}

// OpenWith is a store in the state build leaves a fresh store in. name
// identifies the state: the first caller of a name builds it, later
// callers (in the same test binary) get copies. build must be
// deterministic, since every test sharing the name sees its result.
func OpenWith(tb testing.TB, name string, build func(context.Context, *store.Store) error) *store.Store {
	tb.Helper()
	path := copyOf(tb, tb.TempDir(), name, func(ctx context.Context, path string) error {
		s, err := store.Open(ctx, path)
		if err != nil {
			return err
		}
		if build != nil {
			if err := build(ctx, s); err != nil {
				s.Close()
				return err
			}
		}
		return s.Close()
	})
	s, err := store.Open(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// PathWith writes into dir, as mnemo.db, a copy of the database that
// build leaves at the path it is given (a file that does not exist yet;
// build must close what it opened). name identifies the state as in
// OpenWith. It is for states only a whole console builds.
func PathWith(tb testing.TB, dir, name string, build func(ctx context.Context, path string) error) string {
	tb.Helper()
	return copyOf(tb, dir, "path:"+name, build)
}

// copyOf writes the database file of state name into dir.
func copyOf(tb testing.TB, dir, name string, build func(ctx context.Context, path string) error) string {
	tb.Helper()
	mu.Lock()
	t, ok := templates[name]
	if !ok {
		t = &template{}
		templates[name] = t
	}
	mu.Unlock()
	t.once.Do(func() { t.bytes, t.err = buildTemplate(build) })
	if t.err != nil {
		tb.Fatalf("sqlitetest: state %q: %v", name, t.err)
	}
	path := filepath.Join(dir, "mnemo.db")
	if err := os.WriteFile(path, t.bytes, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// buildTemplate runs build in a scratch directory (nil: the migrations
// only) and returns the bytes of the database file it leaves.
func buildTemplate(build func(ctx context.Context, path string) error) ([]byte, error) {
	dir, err := os.MkdirTemp("", "mnemo-sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mnemo.db")
	ctx := context.Background()
	if build == nil {
		build = func(ctx context.Context, path string) error {
			s, err := store.Open(ctx, path)
			if err != nil {
				return err
			}
			return s.Close()
		}
	}
	if err := build(ctx, path); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return os.ReadFile(path)
}
