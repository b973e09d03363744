package transcript

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	_ "modernc.org/sqlite" // the Hermes state.db reader
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
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return rep, fmt.Errorf("transcript: open hermes db: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'messages')`).Scan(&tables); err != nil {
		return rep, governance.Errorf(governance.EINVALID, "The file is not a readable SQLite database.")
	}
	if tables != 2 {
		return rep, governance.Errorf(governance.EINVALID, "The database has no Hermes sessions and messages tables.")
	}
	// One pass over messages joined to their session, ordered by session
	// start: rows stream, nothing is held but the current session.
	rows, err := db.QueryContext(ctx, `
		SELECT m.id, m.session_id, COALESCE(s.user_id, ''), m.role, m.content, m.tool_call_id, m.tool_calls, m.tool_name, m.timestamp,
			s.ended_at, COALESCE(s.end_reason, '')
		FROM messages m JOIN sessions s ON s.id = m.session_id
		ORDER BY s.started_at, s.id, m.timestamp, m.id`)
	if err != nil {
		return rep, fmt.Errorf("transcript: read hermes messages: %w", err)
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
			id                                 int64
			session, user, role                string
			content, callID, toolCalls, toolNm sql.NullString
			ts                                 sql.NullFloat64
			ended                              sql.NullFloat64
			reason                             string
		)
		if err := rows.Scan(&id, &session, &user, &role, &content, &callID, &toolCalls, &toolNm, &ts, &ended, &reason); err != nil {
			return rep, fmt.Errorf("transcript: scan hermes message: %w", err)
		}
		rep.Lines++
		if session != current {
			if err := end(); err != nil {
				return rep, err
			}
			current, endAt, endReason, currentUser = session, ended, reason, user
			sessionCount++
		}
		lastRow = id
		c.line = int(id)
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
		if !at.IsZero() {
			lastAt = at
		}
		fill := func(e *governance.Event) {
			e.ID = shortID("hm:", session+":"+strconv.FormatInt(id, 10))
			e.SubjectID = user
			e.OccurredAt = at
			if role == "tool" && e.Status == "" {
				e.Status = governance.StatusPassed // Hermes stores failures with exit_code or error
			}
		}
		if err := c.message(int(id), session, "", raw, fill); err != nil {
			return rep, err
		}
	}
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("transcript: read hermes messages: %w", err)
	}
	if err := end(); err != nil {
		return rep, err
	}
	return rep, finish(rep, opts)
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
