package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mnemo-console/mnemo/store/internal/pagescrub"
)

// The store owns every checkpoint: SQLite's own automatic checkpoint is
// off (DSN), and every checkpoint goes through checkpointHeld: after a
// commit that grew the log past walCheckpointFrames (Tx.Commit), after a
// forget (truncated), and at Close. With the page scrub on (the default;
// NoPageScrub turns it off) the log's pages are scrubbed before each
// checkpoint copies them into the database file (pagescrub): a page is
// rebuilt only by a write, so every page that can hold a moved row's old
// bytes is in the log first. The database file then never holds a moved
// row's copy, and a forget's truncation drops the log's frames. Pages
// written before (a database of an older version, or one run with the
// scrub off) are scrubbed once, in the background (sweepPages).
// docs/forget.md, "Page scrubbing".

// walCheckpointFrames is the log's length, in frames, past which a
// commit checkpoints it (SQLite's default automatic checkpoint).
const walCheckpointFrames = 1000

// Option changes how Open opens a database.
type Option func(*Store)

// NoPageScrub turns the page scrub off: checkpoints copy the log's pages
// as they are, and an older file is not swept. A forget then still
// deletes and overwrites its rows (secure_delete), but a copy of a row
// that an earlier write moved to another page may stay in the unused
// space of its old page.
func NoPageScrub() Option { return func(s *Store) { s.noPageScrub = true } }

// checkpointHeld scrubs the log's pages (unless the scrub is off) and
// runs a checkpoint of mode (PASSIVE or TRUNCATE) on conn; the caller
// holds the writer slot. It reports whether the checkpoint copied every
// frame (no reader of an older snapshot was in the way), and the log's
// frames.
func (s *Store) checkpointHeld(ctx context.Context, conn *sql.Conn, mode string) (bool, int64, error) {
	if !s.noPageScrub {
		if err := s.wal.Scrub(ctx, conn); err != nil {
			return false, 0, err
		}
	}
	var busy, logFrames, done int64
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(`+mode+`)`).Scan(&busy, &logFrames, &done); err != nil {
		return false, 0, fmt.Errorf("store: checkpoint: %w", err)
	}
	all := busy == 0 && done == logFrames
	s.wal.Checkpointed(all, logFrames)
	return all, logFrames, nil
}

// checkpointAfterCommit checkpoints the log once it holds more than
// walCheckpointFrames frames past those the last checkpoint had to leave
// to readers; the caller holds the writer slot.
func (s *Store) checkpointAfterCommit(ctx context.Context) {
	if !s.wal.Longer(walCheckpointFrames) {
		return
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	_, _, _ = s.checkpointHeld(ctx, conn, "PASSIVE")
}

// sweepChunk is how many pages sweepPages scrubs in one writer turn.
const sweepChunk = 500

// sweepPages scrubs every page of the database once, a chunk per writer
// turn with a pause between them, and records that it is done: a file
// written before the log's pages were scrubbed may hold moved rows'
// copies anywhere. It runs in the background from Open; a restart begins
// it again.
func (s *Store) sweepPages(ctx context.Context) error {
	var done int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM settings WHERE key = 'pages_swept'`).Scan(&done); err != nil || done > 0 {
		return err
	}
	for from := int64(1); ; from += sweepChunk {
		finished, err := s.sweepFrom(ctx, from)
		if err != nil || finished {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// sweepFrom scrubs sweepChunk pages from page from, or records the sweep
// done past the last page.
func (s *Store) sweepFrom(ctx context.Context, from int64) (bool, error) {
	unlock, err := s.lockWriter(ctx, "sweepPages")
	if err != nil {
		return false, err
	}
	defer unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var count int64
	if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&count); err != nil {
		return false, fmt.Errorf("store: sweep pages: %w", err)
	}
	if from > count {
		_, err := conn.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('pages_swept', '1') ON CONFLICT (key) DO NOTHING`)
		return true, err
	}
	pages := make([]int64, 0, sweepChunk)
	for pg := from; pg < from+sweepChunk && pg <= count; pg++ {
		pages = append(pages, pg)
	}
	if err := pagescrub.Pages(ctx, conn, pages); err != nil {
		return false, err
	}
	s.checkpointAfterCommit(ctx)
	return false, nil
}
