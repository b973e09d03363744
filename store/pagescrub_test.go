package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/internal/pagescrub"
)

// TestNoBytesOutsideCells: after ingests, tombstoning forgets and
// redactions (rows that grow, shrink and move between pages) and the
// store's checkpoint, no b-tree page of the database file holds a byte
// outside its cells. SQLite's secure_delete zeroes a deleted cell, but a
// page rebuilt when cells move keeps its old cells' bytes between its
// cell pointers and its cells: copies of rows now elsewhere, which a later
// forget of those rows does not reach (the mixed load found a forgotten
// line so). The store scrubs every page of the log before a checkpoint
// copies it into the file, and sweeps an older file's pages once.
func TestNoBytesOutsideCells(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	moveRows(t, s)
	if err := s.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	assertPagesClean(t, s.Path())
	var check string
	if err := s.DB().QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
}

// moveRows ingests and forgets lines in rounds: rows that grow, shrink
// and move between pages.
func moveRows(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	p := MustCreateProject(t, s, "pages")
	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	for round := range 6 {
		var events []*governance.Event
		for i := range 400 {
			subject := fmt.Sprintf("s%d-%d", round, i%40)
			events = append(events, &governance.Event{ID: fmt.Sprintf("r%d-%d", round, i), SessionID: subject, SubjectID: subject,
				Turn: i/40 + 1, Role: governance.RoleUser, Text: fmt.Sprintf("line %d of round %d, marker m%dx%dz", i, round, round, i),
				OccurredAt: at.Add(time.Duration(round*1000+i) * time.Second)})
		}
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 40; i += 3 {
			if _, err := s.ForgetSubject(ctx, "test", p.ID, fmt.Sprintf("s%d-%d", round, i)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestNoPageScrub: with the scrub off, the same rounds leave moved rows'
// bytes in the file's pages (what the scrub is for), and nothing is
// recorded as swept, so the next Open with the scrub on sweeps them.
func TestNoPageScrub(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := store.Open(ctx, path, store.NoPageScrub())
	if err != nil {
		t.Fatal(err)
	}
	moveRows(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := dirtyPages(t, path); n == 0 {
		t.Fatal("without the scrub no page holds bytes outside its cells: the switch did nothing")
	}
	s, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitSwept(t, s)
	if err := s.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	assertPagesClean(t, path)
}

// waitSwept waits for the background sweep of s's pages to finish.
func waitSwept(t *testing.T, s *store.Store) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		var done int
		if err := s.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM settings WHERE key = 'pages_swept'`).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// assertPagesClean fails when a b-tree page of the file at path holds
// bytes outside its cells.
func assertPagesClean(t *testing.T, path string) {
	t.Helper()
	if n := dirtyPages(t, path); n > 0 {
		t.Fatalf("%d pages of the database file hold bytes outside their cells", n)
	}
}

// dirtyPages counts the b-tree pages of the file at path holding bytes
// outside their cells.
func dirtyPages(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dirty := 0
	for off := 0; off+4096 <= len(b); off += 4096 {
		if pagescrub.Page(append([]byte(nil), b[off:off+4096]...), int64(off/4096+1)) {
			dirty++
		}
	}
	return dirty
}

// TestSweepOlderFile: a database file written without the scrub (an older
// version, here plain SQLite with its own checkpoints) has bytes outside
// its pages' cells; opened by the store, its pages are swept once in the
// background, and then none is left.
func TestSweepOlderFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=secure_delete(1)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE junk (k TEXT PRIMARY KEY, v TEXT)`, `DELETE FROM settings WHERE key = 'pages_swept'`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3000 {
		if _, err := raw.ExecContext(ctx, `INSERT INTO junk VALUES (?, ?)`, fmt.Sprintf("k%d", (i*7919)%3000), fmt.Sprintf("a moved row %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.ExecContext(ctx, `DELETE FROM junk WHERE k LIKE '%3'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if n := dirtyPages(t, path); n == 0 {
		t.Fatal("the older file has no page with bytes outside its cells: nothing to sweep")
	}
	s, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitSwept(t, s)
	if err := s.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	assertPagesClean(t, path)
}

// TestCommitsCheckpointTheLog: with SQLite's own automatic checkpoint off,
// commits alone (no forget, no explicit checkpoint) copy a long log into
// the database file, and scrubbed: the file grows and holds no byte
// outside its pages' cells.
func TestCommitsCheckpointTheLog(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "log")
	size := func() int64 {
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	for batch := 0; size() == before; batch++ {
		if batch == 300 {
			t.Fatalf("300 commits left the database file at %d bytes: the log was never checkpointed", before)
		}
		var events []*governance.Event
		for i := range 100 {
			subject := fmt.Sprintf("s%d", (batch*100+i)%97)
			events = append(events, &governance.Event{ID: fmt.Sprintf("b%d-%d", batch, i), SessionID: subject, SubjectID: subject,
				Turn: batch*100 + i + 1, Role: governance.RoleUser, Text: fmt.Sprintf("line %d of batch %d about the lake", i, batch),
				OccurredAt: at.Add(time.Duration(batch*100+i) * time.Second)})
		}
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
	}
	assertPagesClean(t, s.Path())
}
