package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"
)

// scrubPage zeroes the bytes of a b-tree page that hold no cell: the gap
// between its cell pointers and its cells, and the inside of its free
// blocks. SQLite's secure_delete zeroes a cell where it is deleted, but a
// page rebuilt when cells move between pages (a split, siblings
// rebalanced after an update grew a row or deletions emptied one) keeps
// its old cells' bytes in that gap: copies of rows that now live on
// another page, which a later forget of those rows never reaches.
// pgno 1 has the database header first. Any page that is not a b-tree
// page, or whose header does not add up, is left as it is. It reports
// whether it changed page.
func scrubPage(page []byte, pgno int64) bool {
	off := 0
	if pgno == 1 {
		off = 100
	}
	if len(page) < off+12 {
		return false
	}
	head := 8
	switch page[off] {
	case 0x0a, 0x0d: // index and table leaves
	case 0x02, 0x05: // interior pages carry a right child pointer
		head = 12
	default:
		return false
	}
	be16 := func(i int) int { return int(binary.BigEndian.Uint16(page[i:])) }
	cells, content := be16(off+3), be16(off+5)
	if content == 0 {
		content = 65536
	}
	ptrEnd := off + head + 2*cells
	if ptrEnd > content || content > len(page) {
		return false
	}
	changed := zero(page[ptrEnd:content])
	// Free blocks: a chain in ascending order inside the cell area, each
	// <next offset, size> and then unused bytes.
	for fb, n := be16(off+1), 0; fb != 0 && n < len(page)/4; n++ {
		if fb < content || fb+4 > len(page) {
			break
		}
		next, size := be16(fb), be16(fb+2)
		if size < 4 || fb+size > len(page) {
			break
		}
		changed = zero(page[fb+4:fb+size]) || changed
		if next != 0 && next <= fb+size {
			break
		}
		fb = next
	}
	return changed
}

// zero clears b and reports whether it held anything.
func zero(b []byte) bool {
	dirty := false
	for i := range b {
		if b[i] != 0 {
			b[i] = 0
			dirty = true
		}
	}
	return dirty
}

// The log's pages are scrubbed before every checkpoint copies them into
// the database file (checkpointHeld): a page is rebuilt only by a write,
// so every page that can hold a moved row's old bytes is in the log
// first. SQLite's own automatic checkpoint is off (DSN), and every
// checkpoint of the store goes through checkpointHeld: after a commit that
// grew the log past walScrubPages (Tx.Commit), after a forget (truncated),
// and at Close. The database file then never holds a moved row's copy,
// and a forget's truncation drops the log's frames. Pages written before
// this (a database of an older version) are scrubbed once, in the
// background (sweepPages).

// walScrubPages is the log's length, in frames, past which a commit
// scrubs and checkpoints it (SQLite's default automatic checkpoint).
const walScrubPages = 1000

// walState is how far the log has been scrubbed: its salt (a new one
// after each reset) and the frames scrubbed; the writer slot guards it.
type walState struct {
	salt   [8]byte
	frames int64
	// held is the frames the last checkpoint could not copy (readers of
	// older snapshots) in the log of salt: the next try waits for
	// walScrubPages more.
	held int64
}

// walFile is an open log and what its header says.
type walFile struct {
	f         *os.File
	salt      [8]byte
	frameSize int64
}

// openWAL opens the log of the database at path; nil (and no error) when
// there is none, or not yet a whole header.
func openWAL(path string) (*walFile, error) {
	f, err := os.Open(path + "-wal")
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var head [32]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		f.Close()
		return nil, nil
	}
	if m := binary.BigEndian.Uint32(head[:]); m != 0x377f0682 && m != 0x377f0683 {
		f.Close()
		return nil, fmt.Errorf("store: %s-wal: not a WAL file", path)
	}
	return &walFile{f: f, salt: [8]byte(head[16:24]), frameSize: 24 + int64(binary.BigEndian.Uint32(head[8:]))}, nil
}

// frame returns the page of frame n (counted from 0); ok is false past
// the log's end or at a frame of an earlier generation of the log.
func (w *walFile) frame(n int64) (page int64, ok bool) {
	var fh [24]byte
	if _, err := w.f.ReadAt(fh[:], 32+n*w.frameSize); err != nil || [8]byte(fh[8:16]) != w.salt {
		return 0, false
	}
	return int64(binary.BigEndian.Uint32(fh[:])), true
}

// walPages returns the pages of the log's frames past from, of its
// current salt, and the number of such frames; from is reset to 0 when
// the salt is not want.
func walPages(path string, want [8]byte, from int64) (pages []int64, frames int64, salt [8]byte, err error) {
	w, err := openWAL(path)
	if w == nil {
		return nil, 0, salt, err
	}
	defer w.f.Close()
	if w.salt != want {
		from = 0
	}
	seen := map[int64]bool{}
	for frames = from; ; frames++ {
		pg, ok := w.frame(frames)
		if !ok {
			break
		}
		if !seen[pg] {
			seen[pg] = true
			pages = append(pages, pg)
		}
	}
	return pages, frames, w.salt, nil
}

// scrubWALHeld scrubs the pages of the log's frames written since the last
// scrub (scrubPage), in one transaction on conn; the caller holds the
// writer slot.
func (s *Store) scrubWALHeld(ctx context.Context, conn *sql.Conn) error {
	pages, frames, salt, err := walPages(s.path, s.wal.salt, s.wal.frames)
	if err != nil || len(pages) == 0 {
		return err
	}
	if err := scrubPages(ctx, conn, pages); err != nil {
		return err
	}
	s.wal.salt, s.wal.frames = salt, frames
	return nil
}

// scrubPages scrubs pages in one transaction on conn.
func scrubPages(ctx context.Context, conn *sql.Conn, pages []int64) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: scrub pages: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for _, pg := range pages {
		var data []byte
		err := tx.QueryRowContext(ctx, `SELECT data FROM sqlite_dbpage WHERE pgno = ?`, pg).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			continue // past the end: the file shrank
		}
		if err != nil {
			return fmt.Errorf("store: scrub page %d: %w", pg, err)
		}
		if !scrubPage(data, pg) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sqlite_dbpage SET data = ? WHERE pgno = ?`, data, pg); err != nil {
			return fmt.Errorf("store: scrub page %d: %w", pg, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: scrub pages: %w", err)
	}
	return nil
}

// checkpointHeld scrubs the log's pages and runs a checkpoint of mode
// (PASSIVE or TRUNCATE) on conn; the caller holds the writer slot. It
// reports whether the checkpoint copied every frame (no reader of an older
// snapshot was in the way), and the log's frames.
func (s *Store) checkpointHeld(ctx context.Context, conn *sql.Conn, mode string) (bool, int64, error) {
	if err := s.scrubWALHeld(ctx, conn); err != nil {
		return false, 0, err
	}
	var busy, logFrames, done int64
	if err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(`+mode+`)`).Scan(&busy, &logFrames, &done); err != nil {
		return false, 0, fmt.Errorf("store: checkpoint: %w", err)
	}
	return busy == 0 && done == logFrames, logFrames, nil
}

// checkpointAfterCommit scrubs and checkpoints the log once it holds more
// than walScrubPages frames past those the last checkpoint had to leave
// to readers; the caller holds the writer slot.
func (s *Store) checkpointAfterCommit(ctx context.Context) {
	w, err := openWAL(s.path)
	if w == nil || err != nil {
		return
	}
	held := s.wal.held
	if w.salt != s.wal.salt {
		held = 0 // the log restarted since the last scrub
	}
	_, long := w.frame(held + walScrubPages)
	w.f.Close()
	if !long {
		return
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	done, frames, err := s.checkpointHeld(ctx, conn, "PASSIVE")
	s.wal.held = 0
	if err == nil && !done {
		s.wal.held = frames
	}
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
	unlock, err := s.lockWriter(ctx)
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
	if err := scrubPages(ctx, conn, pages); err != nil {
		return false, err
	}
	s.checkpointAfterCommit(ctx)
	return false, nil
}
