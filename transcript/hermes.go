package transcript

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"modernc.org/sqlite" // the Hermes state.db reader
	sqlitelib "modernc.org/sqlite/lib"
)

// ParseFile reads the file at path: a Hermes state.db (detected by the
// SQLite header, or forced with FormatHermes) or any line-oriented format.
func ParseFile(ctx context.Context, path string, opts Options, emit Emit) (*Report, error) {
	if opts.Name == "" {
		opts.Name = path
	}
	f, err := os.Open(path)
	if err != nil {
		return &Report{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	format := opts.Format
	if format == FormatAuto {
		if format, err = Detect(br); err != nil {
			return &Report{}, err
		}
	}
	if format == FormatHermes {
		return parseHermes(ctx, path, opts, emit)
	}
	opts.Format = format
	return Parse(ctx, br, opts, emit)
}

// IsSQLite reports whether the start of a file is a SQLite database header.
func IsSQLite(head []byte) bool { return len(head) >= 16 && string(head[:16]) == sqliteMagic }

// parseHermes reads a Hermes Agent state.db, opened read-only: its sessions
// (id, source, user_id, started_at, ended_at, end_reason) and messages
// (id, session_id, role, content, tool_call_id, tool_calls, tool_name,
// timestamp) tables, session by session in start order. Messages are chat
// messages: user and assistant text, tool calls rendered on the assistant's
// event, tool results as tool events whose status comes from the exit_code
// or error their JSON content carries. A session with ended_at gets a
// session_end event. user_id is the subject. The report's "line" is the
// message row id. Ids are "hm:<session>:<row id>".
func parseHermes(ctx context.Context, path string, opts Options, emit Emit) (*Report, error) {
	rep := &Report{Format: FormatHermes}
	db, err := openHermes(ctx, path)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	ctx, cancel := db.bound(ctx)
	defer cancel()
	if err := quickCheck(ctx, db); err != nil {
		return rep, db.fail(ctx, err)
	}
	// One pass over messages joined to their session, ordered by session
	// start: rows stream, nothing is held but the current session.
	rows, err := db.QueryContext(ctx, `
		SELECT `+hermesMessageColumns+`, s.ended_at, substr(COALESCE(s.end_reason, ''), 1, ?)
		FROM messages m JOIN sessions s ON s.id = m.session_id
		ORDER BY s.started_at, s.id, m.timestamp, m.id`, append(hermesMessageArgs(), hermesMaxID)...)
	if err != nil {
		return rep, db.fail(ctx, fmt.Errorf("transcript: read hermes messages: %w", err))
	}
	defer rows.Close()
	c := newChatParser(opts, rep, emit)
	var (
		current      string
		endAt        sql.NullFloat64
		endReason    string
		currentUser  string
		lastAt       time.Time
		lastRow      int64
		sessionCount int
	)
	end := func() error {
		if current == "" || !endAt.Valid {
			return nil
		}
		c.line = int(lastRow)
		return c.send(&governance.Event{
			ID: shortID("hm:", current+":end"), SessionID: current, SubjectID: currentUser,
			Kind: governance.KindSessionEnd, Text: endReason, OccurredAt: unixTime(endAt.Float64, lastAt),
		})
	}
	for rows.Next() {
		var (
			m      hermesRow
			ended  sql.NullFloat64
			reason string
		)
		if err := rows.Scan(append(m.dest(), &ended, &reason)...); err != nil {
			return rep, db.fail(ctx, fmt.Errorf("transcript: scan hermes message: %w", err))
		}
		if err := db.spend(m.size() + len(reason)); err != nil {
			return rep, err
		}
		rep.Lines++
		id, session, user := m.id, m.session, m.user
		if session != current {
			if err := end(); err != nil {
				return rep, err
			}
			current, endAt, endReason, currentUser = session, ended, reason, user
			sessionCount++
		}
		lastRow = id
		if at := unixTime(m.ts.Float64, time.Time{}); !at.IsZero() {
			lastAt = at
		}
		if err := c.hermesMessage(&m); err != nil {
			return rep, err
		}
	}
	if err := rows.Err(); err != nil {
		return rep, db.fail(ctx, fmt.Errorf("transcript: read hermes messages: %w", err))
	}
	if err := end(); err != nil {
		return rep, err
	}
	return rep, finish(rep, opts)
}

// hermesDB is a Hermes state.db opened for one read, on one connection
// whose limits bound what the read may produce (openHermes).
type hermesDB struct {
	db *sql.DB
	*sql.Conn
	// budget is the bytes of values the read may still produce; size the
	// bytes of the file and its log.
	budget, size int64
}

// Bounds of a read of a Hermes database: SQLite stores text as it is, so
// no value of a real database is longer than the file that holds it, and
// all of a read's values together are not either. hermesSlack allows for
// the rows a live database gains while it is read. The time a read may
// take grows with the file: hermesTimeBase plus hermesTimePerMiB for each
// MiB.
const (
	hermesSlack      = 1 << 20
	hermesTimeBase   = 10 * time.Second
	hermesTimePerMiB = time.Second
	// hermesMaxID bounds an id-like value (a session, user, tool call or
	// tool name, a role, an end reason), in characters: a row with a
	// longer one is malformed.
	hermesMaxID = 1024
	// hermesMaxText bounds what is read of a content or tool_calls value,
	// in characters (the event keeps at most MaxEventTextBytes of it).
	hermesMaxText = 256 << 10
)

// Errors of a read that exceeds its bounds.
var (
	errHermesTime   = governance.Errorf(governance.EINVALID, "Reading the database took longer than its size allows; it was stopped and nothing was imported.")
	errHermesOutput = governance.Errorf(governance.EINVALID, "The database produced more text than its file holds (it computes values as they are read); it was refused and nothing was imported.")
)

// openHermes opens a Hermes state.db read-only (query_only as well: this
// process never writes to another program's database; in WAL mode a
// reader neither blocks Hermes nor sees a half-written transaction) and
// checks that it has Hermes's tables. The file's schema is not trusted
// (trusted_schema off: its views, triggers and defaults may call only
// harmless functions; a generated column, computed as it is read, is
// refused), every b-tree cell's size is checked as it is read, and no
// value, stored or computed, may be longer than the file (SQLite's length
// limit on the connection), so a damaged or crafted file fails with an
// error instead of taking the memory it describes.
func openHermes(ctx context.Context, path string) (*hermesDB, error) {
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(path + suffix); err == nil {
			size += st.Size()
		}
	}
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)" +
		"&_pragma=trusted_schema(0)&_pragma=cell_size_check(1)&_pragma=mmap_size(0)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("transcript: open hermes db: %w", err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, governance.Errorf(governance.EINVALID, "The file is not a readable SQLite database.")
	}
	h := &hermesDB{db: db, Conn: conn, size: size, budget: size + hermesSlack}
	if _, err := sqlite.Limit(conn, sqlitelib.SQLITE_LIMIT_LENGTH, int(min(size+hermesSlack, math.MaxInt32))); err != nil {
		h.Close()
		return nil, fmt.Errorf("transcript: limit hermes db: %w", err)
	}
	var tables int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'messages')`).Scan(&tables); err != nil {
		h.Close()
		return nil, governance.Errorf(governance.EINVALID, "The file is not a readable SQLite database.")
	}
	if tables != 2 {
		h.Close()
		return nil, governance.Errorf(governance.EINVALID, "The database has no Hermes sessions and messages tables.")
	}
	// table_xinfo's hidden is 2 for a virtual generated column, 3 for a
	// stored one (its value is in the file like any other).
	var generated int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_xinfo('messages') WHERE hidden = 2`).Scan(&generated); err == nil {
		var more int
		err = conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_xinfo('sessions') WHERE hidden = 2`).Scan(&more)
		generated += more
	}
	if err != nil || generated > 0 {
		h.Close()
		return nil, governance.Errorf(governance.EINVALID, "The database computes columns as they are read (generated columns); Hermes's tables have none, so it was refused.")
	}
	return h, nil
}

// Close closes the connection and the database.
func (h *hermesDB) Close() error {
	h.Conn.Close()
	return h.db.Close()
}

// bound is ctx with the read's time limit.
func (h *hermesDB) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	limit := hermesTimeBase + time.Duration(h.size>>20)*hermesTimePerMiB
	return context.WithTimeoutCause(ctx, limit, errHermesTime)
}

// spend takes n bytes of values read from the budget.
func (h *hermesDB) spend(n int) error {
	if h.budget -= int64(n); h.budget < 0 {
		return errHermesOutput
	}
	return nil
}

// fail says why a read failed: past its time limit, a value longer than
// the file (SQLite's length limit), or err.
func (h *hermesDB) fail(ctx context.Context, err error) error {
	if context.Cause(ctx) == errHermesTime {
		return errHermesTime
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlitelib.SQLITE_TOOBIG {
		return errHermesOutput
	}
	return err
}

// hermesMessageColumns are what a read takes of a message row (m) and its
// session (s), each value cut in the SQL to what an event can hold, with
// flags saying whether an id-like value or a text was longer
// (hermesMessageArgs are its arguments; hermesRow scans it).
const hermesMessageColumns = `m.id, substr(m.session_id, 1, ?), substr(COALESCE(s.user_id, ''), 1, ?), substr(m.role, 1, ?),
			substr(m.content, 1, ?), substr(m.tool_call_id, 1, ?), substr(m.tool_calls, 1, ?), substr(m.tool_name, 1, ?), m.timestamp,
			COALESCE(length(m.session_id) > ? OR length(s.user_id) > ? OR length(m.role) > ? OR length(m.tool_call_id) > ? OR length(m.tool_name) > ?, 0),
			COALESCE(length(m.content) > ? OR length(m.tool_calls) > ?, 0)`

func hermesMessageArgs() []any {
	return []any{hermesMaxID, hermesMaxID, hermesMaxID, hermesMaxText, hermesMaxID, hermesMaxText, hermesMaxID,
		hermesMaxID, hermesMaxID, hermesMaxID, hermesMaxID, hermesMaxID, hermesMaxText, hermesMaxText}
}

// hermesRow is one row of hermesMessageColumns.
type hermesRow struct {
	id                                 int64
	session, user, role                string
	content, callID, toolCalls, toolNm sql.NullString
	ts                                 sql.NullFloat64
	longID, longText                   bool
}

func (m *hermesRow) dest() []any {
	return []any{&m.id, &m.session, &m.user, &m.role, &m.content, &m.callID, &m.toolCalls, &m.toolNm, &m.ts, &m.longID, &m.longText}
}

// size is the bytes of text the row holds.
func (m *hermesRow) size() int {
	return len(m.session) + len(m.user) + len(m.role) + len(m.content.String) + len(m.callID.String) + len(m.toolCalls.String) + len(m.toolNm.String)
}

// hermesMessage turns one row of Hermes's messages table into events: the
// row is a chat message; its id is "hm:<session>:<row id>".
func (c *chatParser) hermesMessage(m *hermesRow) error {
	id, session, user, role := m.id, m.session, m.user, m.role
	content, callID, toolCalls, toolNm, ts := m.content, m.callID, m.toolCalls, m.toolNm, m.ts
	c.line = int(id)
	if m.longID {
		c.rep.bad(c.line, governance.Say("a session, user, role or tool value is longer than %d characters", hermesMaxID))
		return nil
	}
	if m.longText {
		c.clipped() // the text was cut in the SQL, past what an event keeps
	}
	msg := map[string]any{"role": role}
	if content.Valid {
		msg["content"] = content.String
	}
	if callID.Valid {
		msg["tool_call_id"] = callID.String
	}
	if toolNm.Valid {
		msg["name"] = toolNm.String
	}
	if toolCalls.Valid && toolCalls.String != "" {
		msg["tool_calls"] = json.RawMessage(toolCallsJSON(toolCalls.String))
	}
	raw, _ := json.Marshal(msg)
	at := unixTime(ts.Float64, time.Time{})
	fill := func(e *governance.Event) {
		e.ID = shortID("hm:", session+":"+strconv.FormatInt(id, 10))
		e.SubjectID = user
		e.OccurredAt = at
		if role == "tool" && e.Status == "" {
			e.Status = governance.StatusPassed // Hermes stores failures with exit_code or error
		}
	}
	return c.message(int(id), session, "", raw, fill)
}

// hermesFollowRows bounds the messages one poll of a followed state.db
// reads (the rest come at the next polls).
const hermesFollowRows = 5000

// FollowHermes reads what a Hermes state.db gained since cp: the messages
// whose row id is above cp.Offset (in row id order, at most
// hermesFollowRows), then, once no message is left behind, a session_end
// for every session that ended since cp.EndedMark (sessions.ended_at, in
// milliseconds). Both are read in one read transaction, a consistent
// snapshot of the live database. It returns the checkpoint after what it
// read; ids are those of a whole import, so the two never duplicate each
// other.
func FollowHermes(ctx context.Context, path string, cp governance.FollowCheckpoint, opts Options, emit Emit) (*Report, governance.FollowCheckpoint, error) {
	rep := &Report{Format: FormatHermes}
	db, err := openHermes(ctx, path)
	if err != nil {
		return rep, cp, err
	}
	defer db.Close()
	ctx, cancel := db.bound(ctx)
	defer cancel()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rep, cp, db.fail(ctx, fmt.Errorf("transcript: read hermes db: %w", err))
	}
	defer tx.Rollback()
	c := newChatParser(opts, rep, emit)
	rows, err := tx.QueryContext(ctx, `
		SELECT `+hermesMessageColumns+`
		FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE m.id > ? ORDER BY m.id LIMIT ?`, append(hermesMessageArgs(), cp.Offset, hermesFollowRows)...)
	if err != nil {
		return rep, cp, db.fail(ctx, fmt.Errorf("transcript: read hermes messages: %w", err))
	}
	next := cp
	for rows.Next() {
		var m hermesRow
		if err := rows.Scan(m.dest()...); err != nil {
			rows.Close()
			return rep, cp, db.fail(ctx, fmt.Errorf("transcript: scan hermes message: %w", err))
		}
		if err := db.spend(m.size()); err != nil {
			rows.Close()
			return rep, cp, err
		}
		rep.Lines++
		if err := c.hermesMessage(&m); err != nil {
			rows.Close()
			return rep, cp, err
		}
		next.Offset, next.Lines = m.id, next.Lines+1
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, cp, db.fail(ctx, fmt.Errorf("transcript: read hermes messages: %w", err))
	}
	if rep.Lines == hermesFollowRows {
		return rep, next, nil // sessions end once their messages are all read
	}
	ends, err := tx.QueryContext(ctx, `
		SELECT substr(s.id, 1, ?), substr(COALESCE(s.user_id, ''), 1, ?), s.ended_at, substr(COALESCE(s.end_reason, ''), 1, ?),
			(SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id)
		FROM sessions s
		WHERE s.ended_at IS NOT NULL AND CAST(s.ended_at * 1000 AS INTEGER) > ?
			AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)
		ORDER BY s.ended_at, s.id`, hermesMaxID, hermesMaxID, hermesMaxID, cp.EndedMark)
	if err != nil {
		return rep, cp, db.fail(ctx, fmt.Errorf("transcript: read hermes sessions: %w", err))
	}
	defer ends.Close()
	for ends.Next() {
		var (
			session, user, reason string
			ended                 float64
			last                  sql.NullFloat64
		)
		if err := ends.Scan(&session, &user, &ended, &reason, &last); err != nil {
			return rep, cp, db.fail(ctx, fmt.Errorf("transcript: scan hermes session: %w", err))
		}
		if err := db.spend(len(session) + len(user) + len(reason)); err != nil {
			return rep, cp, err
		}
		if err := c.send(&governance.Event{ID: shortID("hm:", session+":end"), SessionID: session, SubjectID: user,
			Kind: governance.KindSessionEnd, Text: reason, OccurredAt: unixTime(ended, unixTime(last.Float64, time.Time{}))}); err != nil {
			return rep, cp, err
		}
		next.EndedMark = max(next.EndedMark, int64(ended*1000))
	}
	if err := ends.Err(); err != nil {
		return rep, cp, db.fail(ctx, fmt.Errorf("transcript: read hermes sessions: %w", err))
	}
	return rep, next, nil
}

// toolCallsJSON keeps a stored tool_calls value that is JSON, and wraps one
// that is not as a string (reported as malformed by the chat parser).
func toolCallsJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// unixTime converts Hermes's REAL seconds; zero or invalid gives fallback.
func unixTime(sec float64, fallback time.Time) time.Time {
	if sec <= 0 || math.IsNaN(sec) || math.IsInf(sec, 0) || sec > 1e11 {
		return fallback
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC().Truncate(time.Millisecond)
}

// quickCheck runs SQLite's quick_check over a state.db before a whole
// import reads it (b-tree structure, page and cell bounds, record
// formats): any finding refuses the file, so a damaged one is reported as
// such rather than failing half read. A followed database is not checked
// at every poll; a damaged page fails its read.
func quickCheck(ctx context.Context, db *hermesDB) error {
	damaged := governance.Errorf(governance.EINVALID, "The database file is damaged: SQLite's integrity check failed.")
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return damaged
	}
	defer rows.Close()
	ok := false
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil || line != "ok" {
			return damaged
		}
		ok = true
	}
	if rows.Err() != nil || !ok {
		return damaged
	}
	return nil
}

// markRollbackJournal sets the file format bytes of an uploaded SQLite
// file's header (offsets 18 and 19) from 2 (WAL) to 1 (rollback journal):
// the copy is complete in itself, and a read-only reader of a WAL
// database would otherwise create -wal and -shm files beside it.
func markRollbackJournal(f *os.File) error {
	var hdr [2]byte
	if _, err := f.ReadAt(hdr[:], 18); err != nil {
		return nil // too short to be a database: openHermes says so
	}
	if hdr[0] != 2 && hdr[1] != 2 {
		return nil
	}
	if _, err := f.WriteAt([]byte{1, 1}, 18); err != nil {
		return fmt.Errorf("transcript: copy upload: %w", err)
	}
	return nil
}
