package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

var _ governance.EventService = (*Store)(nil)

const eventColumns = `e.seq, e.id, e.project_id, e.session_id, e.subject_id, e.turn, e.kind, e.role, e.text,
	e.tool, e.status, e.source, e.occurred_at, e.ingested_at, e.redacted`

// IngestEvents validates a batch and stores it in one transaction: either
// every new event is written or none is. Events whose id already exists in
// the project are skipped and reported, so re-sending a batch is harmless.
func (s *Store) IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	return s.ingest(ctx, "", projectID, events)
}

// ImportEvents is IngestEvents plus an "events.import" audit row naming the
// actor and the counts, written in the same transaction.
func (s *Store) ImportEvents(ctx context.Context, actor string, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	return s.ingest(ctx, actor, projectID, events)
}

// ingest writes a validated batch, audited when an actor is named.
func (s *Store) ingest(ctx context.Context, actor string, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	if err := governance.ValidateBatch(events); err != nil {
		return nil, err
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res, err := ingestEvents(ctx, tx, projectID, events)
	if err != nil {
		return nil, err
	}
	if actor != "" {
		var slug string
		if err := tx.QueryRowContext(ctx, `SELECT slug FROM projects WHERE id = ?`, projectID).Scan(&slug); err != nil {
			return nil, fmt.Errorf("store: import project: %w", err)
		}
		if err := appendAudit(ctx, tx, &governance.AuditEntry{
			Actor: actor, Action: "events.import", ObjectType: "project", ObjectID: slug, ProjectID: projectID,
			Details: fmt.Sprintf(`{"inserted":%d,"skipped":%d}`, res.Inserted, res.Skipped),
		}); err != nil {
			return nil, err
		}
	}
	return res, tx.Commit()
}

func ingestEvents(ctx context.Context, tx *Tx, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO events (id, project_id, session_id, subject_id, turn, kind, role, text, tool, status, source, occurred_at, ingested_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id, id) DO NOTHING`)
	if err != nil {
		return nil, fmt.Errorf("store: prepare ingest: %w", err)
	}
	defer stmt.Close()
	result := &governance.ImportResult{}
	sessions := map[string]*governance.SessionInfo{}
	var order []string
	ingested := formatTime(tx.now)
	for _, e := range events {
		r, err := stmt.ExecContext(ctx, e.ID, projectID, e.SessionID, e.SubjectID, e.Turn, e.Kind, e.Role, e.Text,
			e.Tool, e.Status, e.Source, formatTime(e.OccurredAt), ingested)
		if err != nil {
			return nil, mapError(err, "Event "+e.ID)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			result.Skipped++
			result.SkippedIDs = append(result.SkippedIDs, e.ID)
			continue
		}
		e.Seq, _ = r.LastInsertId()
		e.ProjectID, e.IngestedAt = projectID, tx.now
		result.Inserted++
		si := sessions[e.SessionID]
		if si == nil {
			si = &governance.SessionInfo{SessionID: e.SessionID, FirstAt: e.OccurredAt, LastAt: e.OccurredAt}
			sessions[e.SessionID] = si
			order = append(order, e.SessionID)
		}
		addToSession(si, e)
	}
	for _, id := range order {
		if err := upsertSession(ctx, tx, projectID, sessions[id]); err != nil {
			return nil, err
		}
	}
	return result, nil
}

func addToSession(si *governance.SessionInfo, e *governance.Event) {
	if e.SubjectID != "" {
		si.SubjectID = e.SubjectID
	}
	if e.Kind == governance.KindSessionEnd {
		si.Ended = true
	} else {
		si.Events++
	}
	if e.Status == governance.StatusFailed {
		si.Failed++
	}
	if e.Source == governance.SourceExternal {
		si.External++
	}
	if e.OccurredAt.Before(si.FirstAt) {
		si.FirstAt = e.OccurredAt
	}
	if e.OccurredAt.After(si.LastAt) {
		si.LastAt = e.OccurredAt
	}
	si.LastSeq = max(si.LastSeq, e.Seq)
}

func upsertSession(ctx context.Context, tx *Tx, projectID int64, si *governance.SessionInfo) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sessions (project_id, session_id, subject_id, events, failed, external, first_at, last_at, ended, last_seq)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id, session_id) DO UPDATE SET
			subject_id = CASE WHEN excluded.subject_id <> '' THEN excluded.subject_id ELSE subject_id END,
			events = events + excluded.events,
			failed = failed + excluded.failed,
			external = external + excluded.external,
			first_at = MIN(first_at, excluded.first_at),
			last_at = MAX(last_at, excluded.last_at),
			ended = MAX(ended, excluded.ended),
			last_seq = MAX(last_seq, excluded.last_seq)`,
		projectID, si.SessionID, si.SubjectID, si.Events, si.Failed, si.External,
		formatTime(si.FirstAt), formatTime(si.LastAt), si.Ended, si.LastSeq)
	if err != nil {
		return fmt.Errorf("store: upsert session: %w", err)
	}
	return nil
}

// FindEventBySeq returns one event or ENOTFOUND.
func (s *Store) FindEventBySeq(ctx context.Context, seq int64) (*governance.Event, error) {
	events, _, err := s.FindEvents(ctx, governance.EventFilter{Seq: &seq, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Event not found.")
	}
	return events[0], nil
}

// FindEvents lists events matching the filter (no full-text query), in
// session order when a session is given and by seq otherwise.
func (s *Store) FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error) {
	if f.Query != "" {
		return nil, 0, governance.Errorf(governance.EINVALID, "Use SearchEvents for a text query.")
	}
	where, args := eventWhere(f)
	order := " ORDER BY e.seq"
	if f.SessionID != nil {
		order = " ORDER BY e.turn, e.seq"
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+eventColumns+`, COUNT(*) OVER () FROM events e WHERE `+
		strings.Join(where, " AND ")+order+limitOffset(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: find events: %w", err)
	}
	defer rows.Close()
	var (
		out   []*governance.Event
		total int
	)
	for rows.Next() {
		e, err := scanEvent(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

func eventWhere(f governance.EventFilter) ([]string, []any) {
	where, args := []string{"1 = 1"}, []any{}
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.ProjectID != nil {
		add("e.project_id = ?", *f.ProjectID)
	}
	if f.ProjectIDs != nil {
		ph := []string{"NULL"}
		for _, id := range f.ProjectIDs {
			ph = append(ph, "?")
			args = append(args, id)
		}
		where = append(where, "e.project_id IN ("+strings.Join(ph, ",")+")")
	}
	if f.SessionID != nil {
		add("e.session_id = ?", *f.SessionID)
	}
	if f.SubjectID != nil {
		add("e.subject_id = ?", *f.SubjectID)
	}
	if f.Role != nil {
		add("e.role = ?", *f.Role)
	}
	if f.Status != nil {
		add("e.status = ?", *f.Status)
	}
	if f.Source != nil {
		add("e.source = ?", *f.Source)
	}
	if f.Seq != nil {
		add("e.seq = ?", *f.Seq)
	}
	if f.AfterSeq != nil {
		add("e.seq > ?", *f.AfterSeq)
	}
	return where, args
}

func scanEvent(r scanner, extra ...any) (*governance.Event, error) {
	var (
		e                  governance.Event
		occurred, ingested string
	)
	dest := append([]any{&e.Seq, &e.ID, &e.ProjectID, &e.SessionID, &e.SubjectID, &e.Turn, &e.Kind, &e.Role, &e.Text,
		&e.Tool, &e.Status, &e.Source, &occurred, &ingested, &e.Redacted}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, fmt.Errorf("store: scan event: %w", err)
	}
	e.OccurredAt, e.IngestedAt = parseTime(occurred), parseTime(ingested)
	return &e, nil
}

// maxSearchCount caps how many matches a search counts; beyond it the UI
// says "more than".
const maxSearchCount = 1000

// SearchEvents finds events whose text contains every term of the query
// (Chinese substrings and English words, case-insensitive), newest first.
// Terms of three or more characters go through the trigram index,
// two-character CJK words through the CJK pair index, and anything shorter
// is matched with LIKE on the rows the indexes and filters leave. The total
// is capped at maxSearchCount+1.
func (s *Store) SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error) {
	terms := searchTerms(f.Query)
	if len(terms) == 0 {
		return nil, 0, governance.Errorf(governance.EINVALID, "Type something to search for.")
	}
	where, args := eventWhere(f)
	var phrases, pairs []string
	for _, t := range terms {
		switch {
		case utf8.RuneCountInString(t) >= 3:
			phrases = append(phrases, ftsPhrase(t))
		case isCJKPair(t):
			pairs = append(pairs, ftsPhrase(t))
		default:
			where = append(where, `e.text LIKE ? ESCAPE '\'`)
			args = append(args, "%"+likeEscape(t)+"%")
		}
	}
	// The query is driven by one full-text index (trigram for terms of three
	// or more characters, else the CJK pair index); the other, if needed,
	// filters. Ordering by the driving index's rowid lets FTS5 walk its
	// doclists backwards and stop at the limit instead of sorting every match.
	from, order := "events e", " ORDER BY e.seq DESC"
	switch {
	case len(phrases) > 0:
		from, order = "events_fts f JOIN events e ON e.seq = f.rowid", " ORDER BY f.rowid DESC"
		where = append([]string{"events_fts MATCH ?"}, where...)
		args = append([]any{strings.Join(phrases, " AND ")}, args...)
		if len(pairs) > 0 {
			where = append(where, "e.seq IN (SELECT rowid FROM events_cjk WHERE events_cjk MATCH ?)")
			args = append(args, strings.Join(pairs, " AND "))
		}
	case len(pairs) > 0:
		from, order = "events_cjk c JOIN events e ON e.seq = c.rowid", " ORDER BY c.rowid DESC"
		where = append([]string{"events_cjk MATCH ?"}, where...)
		args = append([]any{strings.Join(pairs, " AND ")}, args...)
	}
	cond := strings.Join(where, " AND ")

	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+from+` WHERE `+cond+
		fmt.Sprintf(" LIMIT %d)", maxSearchCount+1), args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count search: %w", err)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+eventColumns+` FROM `+from+` WHERE `+cond+
		order+limitOffset(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: search events: %w", err)
	}
	defer rows.Close()
	var out []*governance.EventHit
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, &governance.EventHit{Event: e, Fragments: governance.Highlight(e.Text, terms, 240)})
	}
	return out, total, rows.Err()
}

func ftsPhrase(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// searchTerms splits a query on white space, dropping quotes and empties.
func searchTerms(q string) []string {
	var out []string
	for _, t := range strings.Fields(q) {
		t = strings.Trim(t, `"`)
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FindSessions lists the sessions of a project, most recent activity first.
func (s *Store) FindSessions(ctx context.Context, f governance.SessionFilter) ([]*governance.SessionInfo, int, error) {
	where, args := []string{"project_id = ?"}, []any{f.ProjectID}
	if f.SubjectID != nil {
		where, args = append(where, "subject_id = ?"), append(args, *f.SubjectID)
	}
	if f.SessionID != nil {
		where, args = append(where, "session_id = ?"), append(args, *f.SessionID)
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT project_id, session_id, subject_id, events, failed, external, first_at, last_at, ended, last_seq, COUNT(*) OVER ()
		FROM sessions WHERE `+strings.Join(where, " AND ")+` ORDER BY last_seq DESC`+limitOffset(f.Limit, f.Offset), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: find sessions: %w", err)
	}
	defer rows.Close()
	var (
		out   []*governance.SessionInfo
		total int
	)
	for rows.Next() {
		var (
			si          governance.SessionInfo
			first, last string
		)
		if err := rows.Scan(&si.ProjectID, &si.SessionID, &si.SubjectID, &si.Events, &si.Failed, &si.External,
			&first, &last, &si.Ended, &si.LastSeq, &total); err != nil {
			return nil, 0, err
		}
		si.FirstAt, si.LastAt = parseTime(first), parseTime(last)
		out = append(out, &si)
	}
	return out, total, rows.Err()
}

// FindSession returns one session or ENOTFOUND.
func (s *Store) FindSession(ctx context.Context, projectID int64, sessionID string) (*governance.SessionInfo, error) {
	sessions, _, err := s.FindSessions(ctx, governance.SessionFilter{ProjectID: projectID, SessionID: &sessionID, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(sessions) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Session not found.")
	}
	return sessions[0], nil
}
