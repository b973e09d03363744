// Package pagescrub zeroes what SQLite leaves of moved rows inside the
// pages of a database: the bytes of a b-tree page that hold no cell. It
// reads the write-ahead log's header and frame headers to learn which
// pages a checkpoint is about to copy, and rewrites those pages through
// SQLite's sqlite_dbpage virtual table in one transaction, so it never
// writes the file itself. docs/forget.md, "Page scrubbing", says why and
// when the store calls it.
package pagescrub

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Page zeroes the bytes of a b-tree page that hold no cell: the gap
// between its cell pointers and its cells, and the inside of its free
// blocks. SQLite's secure_delete zeroes a cell where it is deleted, but a
// page rebuilt when cells move between pages (a split, siblings
// rebalanced after an update grew a row or deletions emptied one) keeps
// its old cells' bytes in that gap: copies of rows that now live on
// another page, which a later forget of those rows never reaches.
// pgno 1 has the database header first. Any page that is not a b-tree
// page, or whose header does not add up, is left as it is. It reports
// whether it changed page.
func Page(page []byte, pgno int64) bool {
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

// Pages scrubs pages (Page) of the database conn is open on, in one
// transaction on conn; a page past the file's end is skipped.
func Pages(ctx context.Context, conn *sql.Conn, pages []int64) (err error) {
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
		if !Page(data, pg) {
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

// Log is the write-ahead log of one database as its checkpoints see it:
// how far it has been scrubbed (its salt, a new one after each reset, and
// the frames scrubbed) and the frames the last checkpoint had to leave to
// readers of older snapshots. Its caller serializes its use (the store's
// writer slot).
type Log struct {
	path   string
	salt   [8]byte
	frames int64
	held   int64
}

// NewLog is the log of the database file at path, not yet scrubbed.
func NewLog(path string) *Log { return &Log{path: path} }

// Scrub scrubs, in one transaction on conn, the pages of the log's frames
// written since the last Scrub.
func (l *Log) Scrub(ctx context.Context, conn *sql.Conn) error {
	pages, frames, salt, err := walPages(l.path, l.salt, l.frames)
	if err != nil || len(pages) == 0 {
		return err
	}
	if err := Pages(ctx, conn, pages); err != nil {
		return err
	}
	l.salt, l.frames = salt, frames
	return nil
}

// Longer reports whether the log holds more than n frames past those the
// last checkpoint left to readers (Checkpointed).
func (l *Log) Longer(n int64) bool {
	w, err := openWAL(l.path)
	if w == nil || err != nil {
		return false
	}
	defer w.f.Close()
	held := l.held
	if w.salt != l.salt {
		held = 0 // the log restarted since the last scrub
	}
	_, long := w.frame(held + n)
	return long
}

// Checkpointed records a checkpoint's outcome: whether it copied every
// frame, and the log's frames then.
func (l *Log) Checkpointed(all bool, frames int64) {
	l.held = 0
	if !all {
		l.held = frames
	}
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
