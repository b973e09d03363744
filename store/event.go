package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/ingest"
	"github.com/mnemo-console/mnemo/store/internal/searchquery"
)

const eventColumns = `e.seq, e.id, e.project_id, e.session_id, e.subject_id, e.turn, e.kind, e.role, e.text,
	e.tool, e.status, e.source, e.occurred_at, e.ingested_at, e.redacted`

// IngestEvents validates a batch and stores it in one transaction: either
// every new event is written or none is. Events whose id already exists in
// the project are skipped and reported, so re-sending a batch is harmless.
func (s *Store) IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	return s.ingest(ctx, "IngestEvents", "", projectID, events)
}

// ImportEvents is IngestEvents plus an "events.import" audit row naming the
// actor and the counts, written in the same transaction.
func (s *Store) ImportEvents(ctx context.Context, actor string, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	return s.ingest(ctx, "ImportEvents", actor, projectID, events)
}

// ingest writes a validated batch, audited when an actor is named.
func (s *Store) ingest(ctx context.Context, op, actor string, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	if err := governance.ValidateBatch(events); err != nil {
		return nil, err
	}
	tx, err := s.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	res, err := ingestEvents(ctx, tx, projectID, events)
	if err != nil {
		return nil, err
	}
	if err := auditImport(ctx, tx, actor, projectID, res); err != nil {
		return nil, err
	}
	return res, tx.Commit()
}

// auditImport writes the "events.import" audit row of an ingest, in its
// transaction, when an actor is named.
func auditImport(ctx context.Context, tx *Tx, actor string, projectID int64, res *governance.ImportResult) error {
	if actor == "" {
		return nil
	}
	var slug string
	if err := tx.QueryRowContext(ctx, `SELECT slug FROM projects WHERE id = ?`, projectID).Scan(&slug); err != nil {
		return fmt.Errorf("store: import project: %w", err)
	}
	return appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "events.import", ObjectType: "project", ObjectID: slug, ProjectID: projectID,
		Details: fmt.Sprintf(`{"inserted":%d,"skipped":%d}`, res.Inserted, res.Skipped),
	})
}

// beginBatchIndex makes the row trigger stand aside for the events a
// transaction is about to insert (migration 0017) and returns the last seq
// before them, for endBatchIndex.
func beginBatchIndex(ctx context.Context, tx *Tx) (int64, error) {
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&last); err != nil {
		return 0, fmt.Errorf("store: last event: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE ingest_mode SET batch = 1 WHERE id = 1`); err != nil {
		return 0, fmt.Errorf("store: begin batch index: %w", err)
	}
	return last, nil
}

// endBatchIndex indexes every event inserted after seq last — all of
// project projectID — in one statement (one FTS5 segment for the batch
// instead of one per event), bumps the project's index version when there
// were any, and lets the row trigger index again.
func endBatchIndex(ctx context.Context, tx *Tx, projectID, last int64) error {
	if _, err := tx.ExecContext(ctx, batchIndexSQL, last); err != nil {
		return fmt.Errorf("store: index batch: %w", err)
	}
	if _, err := tx.ExecContext(ctx, batchIndexVersionSQL, projectID, last); err != nil {
		return fmt.Errorf("store: index batch version: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE ingest_mode SET batch = 0 WHERE id = 1`); err != nil {
		return fmt.Errorf("store: end batch index: %w", err)
	}
	return nil
}

// The statements of endBatchIndex. Each reads the batch by the events'
// rowid (seq > last), never by scanning an index of every event: the
// version bump was "SELECT DISTINCT project_id FROM events WHERE seq > ?
// ORDER BY project_id", which SQLite answered by walking the whole
// events_subject index (1M entries: 60 ms of CPU in each ingest's writer
// turn, most of the mixed load's writer time). TestIngestStatementsSeek
// checks their plans.
const (
	batchIndexSQL = `
		INSERT INTO events_words (rowid, scope, terms)
		SELECT seq, scope, terms FROM events_terms WHERE seq > ?`
	batchIndexVersionSQL = `
		INSERT INTO event_index_versions (project_id, version)
		SELECT ?, 1 WHERE EXISTS (SELECT 1 FROM events WHERE seq > ?)
		ON CONFLICT (project_id) DO UPDATE SET version = version + 1`
)

func ingestEvents(ctx context.Context, tx *Tx, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	w, err := newEventWriter(ctx, tx, projectID, 0)
	if err != nil {
		return nil, err
	}
	defer w.close()
	for _, e := range events {
		if err := w.write(ctx, e); err != nil {
			return nil, err
		}
	}
	if err := w.finish(ctx); err != nil {
		return nil, err
	}
	return w.Res, nil
}

// eventWriter inserts events of one project inside a transaction: ids
// already present are skipped and counted, the batch is indexed in one
// statement at the end, and the sessions table is kept in step. Batch
// ingest and the streamed import both write through it.
type eventWriter struct {
	tx        *Tx
	stmt      *sql.Stmt
	projectID int64
	ingested  string
	last      int64 // the highest seq before the batch
	*ingest.Tally
	// reopen is an event id whose stored text a longer one replaces.
	reopen string
	// forgotten finds the tombstone of an event id a subject forget left
	// (tombstone.go); nil while the project has had none.
	forgotten *sql.Stmt
	forgetKey []byte
}

func newEventWriter(ctx context.Context, tx *Tx, projectID int64, maxSkipped int) (*eventWriter, error) {
	last, err := beginBatchIndex(ctx, tx)
	if err != nil {
		return nil, err
	}
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO events (id, project_id, session_id, subject_id, turn, kind, role, text, tool, status, source, occurred_at, ingested_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id, id) DO NOTHING`)
	if err != nil {
		return nil, fmt.Errorf("store: prepare ingest: %w", err)
	}
	w := &eventWriter{tx: tx, stmt: stmt, projectID: projectID, ingested: formatTime(tx.now), last: last,
		Tally: ingest.NewTally(maxSkipped)}
	err = tx.QueryRowContext(ctx, `SELECT key FROM forget_keys WHERE project_id = ?`, projectID).Scan(&w.forgetKey)
	switch {
	case isNoRows(err):
	case err != nil:
		stmt.Close()
		return nil, fmt.Errorf("store: forget key: %w", err)
	default:
		if w.forgotten, err = tx.PrepareContext(ctx, `SELECT COUNT(*) FROM events WHERE project_id = ? AND id = ?`); err != nil {
			stmt.Close()
			return nil, fmt.Errorf("store: prepare ingest: %w", err)
		}
	}
	return w, nil
}

// write inserts one event, or counts it as skipped when its id exists,
// also as the tombstone a subject forget left of it: a forgotten event
// sent again does not come back.
func (w *eventWriter) write(ctx context.Context, e *governance.Event) error {
	if w.forgotten != nil {
		var n int
		if err := w.forgotten.QueryRowContext(ctx, w.projectID, forgetplan.Tombstone(w.forgetKey, forgetplan.EventTombstone, e.ID)).Scan(&n); err != nil {
			return fmt.Errorf("store: find tombstone: %w", err)
		}
		if n > 0 {
			w.Skip(e.ID)
			return nil
		}
	}
	r, err := w.stmt.ExecContext(ctx, e.ID, w.projectID, e.SessionID, e.SubjectID, e.Turn, e.Kind, e.Role, e.Text,
		e.Tool, e.Status, e.Source, formatTime(e.OccurredAt), w.ingested)
	if err != nil {
		return mapError(err, "Event "+e.ID)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		if e.ID == w.reopen && w.reopen != "" {
			return w.replace(ctx, e)
		}
		w.Skip(e.ID)
		return nil
	}
	e.Seq, _ = r.LastInsertId()
	e.ProjectID, e.IngestedAt = w.projectID, w.tx.now
	w.Insert(e)
	if w.SessionsFull() {
		return w.flushSessions(ctx)
	}
	return nil
}

// flushSessions writes the counts kept so far to the sessions table
// (ingest.Tally.FlushSessions).
func (w *eventWriter) flushSessions(ctx context.Context) error {
	return w.FlushSessions(func(si *governance.SessionInfo) error { return upsertSession(ctx, w.tx, w.projectID, si) })
}

// replace gives the stored event e.ID the text of e, the same message read
// again with parts appended since (follow mode). Only a longer text that
// extends the stored one replaces it, and never the text of an event a
// forget redacted. The word index follows through the update trigger,
// which stands aside while a batch is written (ingest_mode.batch,
// migrations 0017, 0037): for an event indexed before this batch it acts
// for this one statement; an event of this batch (seq > last) is indexed
// with its final text by endBatchIndex.
func (w *eventWriter) replace(ctx context.Context, e *governance.Event) error {
	var seq int64
	if err := w.tx.QueryRowContext(ctx, `SELECT seq FROM events WHERE project_id = ? AND id = ?`, w.projectID, e.ID).Scan(&seq); err != nil {
		return fmt.Errorf("store: find reopened event: %w", err)
	}
	indexed := seq <= w.last
	if indexed {
		if err := setIndexBatch(ctx, w.tx, false); err != nil {
			return err
		}
	}
	r, err := w.tx.ExecContext(ctx, `
		UPDATE events SET text = ? WHERE project_id = ? AND id = ? AND redacted = 0
			AND length(text) < length(?) AND substr(?, 1, length(text)) = text`,
		e.Text, w.projectID, e.ID, e.Text, e.Text)
	if err != nil {
		return mapError(err, "Event "+e.ID)
	}
	if indexed {
		if err := setIndexBatch(ctx, w.tx, true); err != nil {
			return err
		}
	}
	if n, _ := r.RowsAffected(); n > 0 {
		w.Res.Replaced++
		return nil
	}
	w.Skip(e.ID)
	return nil
}

// finish indexes the batch and updates the sessions it touched.
func (w *eventWriter) finish(ctx context.Context) error {
	if err := w.flushSessions(ctx); err != nil {
		return err
	}
	return endBatchIndex(ctx, w.tx, w.projectID, w.last)
}

func (w *eventWriter) close() {
	w.stmt.Close()
	if w.forgotten != nil {
		w.forgotten.Close()
	}
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
// session order when a session is given (by turn, then seq; a session_end
// comes last even when it has no turn) and by seq otherwise.
func (s *Store) FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error) {
	if f.Query != "" {
		return nil, 0, governance.Errorf(governance.EINVALID, "Use SearchEvents for a text query.")
	}
	where, args := eventWhere(f)
	order := " ORDER BY e.seq"
	if f.SessionID != nil {
		order = " ORDER BY e.kind = 'session_end', e.turn, e.seq"
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+eventColumns+`, COUNT(*) OVER () FROM events e WHERE `+
		strings.Join(where, " AND ")+order+pageSQL, pageArgs(args, f.Limit, f.Offset)...)
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
		add("e.project_id IN (SELECT value FROM json_each(?))", listArg(f.ProjectIDs))
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

// searchRankWindow bounds the matches a search ranks by relevance: a query
// matching more ranks its newest searchRankWindow matches. It is the
// count's bound: every match is ranked while the count is exact, and bm25
// (a lookup of each ranked row's size and instances) is not spent on rows
// past the ones the count shows.
const searchRankWindow = maxSearchCount + 1

// SearchEvents finds events for a query, most relevant first (or newest
// first with SearchNewest). Words of the query may match in any number —
// more matches and rarer words rank higher (FTS5 bm25 over events_words) —
// and match by English stem ("commit" finds "committing"); a Chinese run
// matches through its character pairs, so a substring of two or more
// characters is found, and a single character through its own term. A
// quoted phrase must occur exactly (case-insensitive). The total is capped
// at maxSearchCount+1; past it, the newest searchRankWindow matches are the
// ones ranked.
func (s *Store) SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error) {
	q := parseSearch(f.Query)
	if len(q.phrases)+len(q.any)+len(q.exact) == 0 {
		// Nothing to match: punctuation or stop words alone.
		return nil, 0, governance.Errorf(governance.EINVALID, "Type something to search for.")
	}
	release, err := s.heavyRead(ctx, "SearchEvents")
	if err != nil {
		return nil, 0, err
	}
	defer release()
	where, args := eventWhere(f)
	for _, p := range q.exact {
		where = append(where, "instr(lower(e.text), ?) > 0")
		args = append(args, strings.ToLower(p))
	}
	from, order := "events e", " ORDER BY e.seq DESC"
	if len(q.phrases)+len(q.any) > 0 {
		projects, err := s.searchProjects(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		if len(projects) == 0 {
			return nil, 0, nil
		}
		if matchAlone(f, q) {
			return s.searchIndex(ctx, f, q.match(projects, f.SubjectID), q.highlight)
		}
		// Ordering by the index's rowid lets FTS5 walk its doclists
		// backwards and stop at the limit; by rank it scores every match.
		from = "events_words w JOIN events e ON e.seq = w.rowid"
		where = append([]string{"events_words MATCH ?"}, where...)
		args = append([]any{q.match(projects, f.SubjectID)}, args...)
		order = " ORDER BY w.rank, w.rowid DESC"
		if f.Order == governance.SearchNewest {
			order = " ORDER BY w.rowid DESC"
		}
	}
	cond := strings.Join(where, " AND ")

	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+from+` WHERE `+cond+
		fmt.Sprintf(" LIMIT %d)", maxSearchCount+1), args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count search: %w", err)
	}
	query := `SELECT ` + eventColumns + ` FROM ` + from + ` WHERE ` + cond + order + pageSQL
	if total > maxSearchCount && f.Order != governance.SearchNewest && len(q.phrases)+len(q.any) > 0 {
		// FTS5 scores every match it sorts: past searchRankWindow matches,
		// the newest searchRankWindow are ranked, which bounds the cost.
		query = `SELECT ` + strings.ReplaceAll(eventColumns, "e.", "m.") + ` FROM (SELECT e.*, w.rank AS score FROM ` + from +
			` WHERE ` + cond + fmt.Sprintf(` ORDER BY w.rowid DESC LIMIT %d) m`, searchRankWindow) +
			` ORDER BY m.score, m.seq DESC` + pageSQL
	}
	out, err := s.searchHits(ctx, query, pageArgs(args, f.Limit, f.Offset), q.highlight)
	return out, total, err
}

// searchHits runs a search's page query and highlights its hits.
func (s *Store) searchHits(ctx context.Context, query string, args []any, highlight []string) ([]*governance.EventHit, error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search events: %w", err)
	}
	defer rows.Close()
	var out []*governance.EventHit
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, &governance.EventHit{Event: e, Fragments: governance.Highlight(e.Text, highlight, 240)})
	}
	return out, rows.Err()
}

// matchAlone reports whether a search's word index query (searchQuery.match)
// is its whole filter: no exact phrase to check in the text, and nothing
// asked of the events beyond the projects and subject the index terms and
// scope already carry.
func matchAlone(f governance.EventFilter, q searchQuery) bool {
	rest := f
	rest.ProjectID, rest.ProjectIDs, rest.SubjectID = nil, nil, nil
	where, _ := eventWhere(rest)
	return len(q.exact) == 0 && len(where) == 1
}

// searchIndex is SearchEvents when the index query is the whole filter
// (matchAlone): the matches are counted and ranked in the word index alone,
// and only the page's events are read. Joining every match to its event
// (to check a project the index terms already name) cost a table seek per
// counted or ranked match and copied up to searchRankWindow whole rows to
// sort them: about a quarter of a search's CPU at 1M events. The order,
// the count and the rank window are SearchEvents'.
func (s *Store) searchIndex(ctx context.Context, f governance.EventFilter, match string, highlight []string) ([]*governance.EventHit, int, error) {
	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM events_words WHERE events_words MATCH ?`+
		fmt.Sprintf(" LIMIT %d)", maxSearchCount+1), match).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count search: %w", err)
	}
	// hits are the page's (seq, score), best first.
	hits := `SELECT rowid AS seq, rank AS score FROM events_words WHERE events_words MATCH ? ORDER BY rank, rowid DESC` + pageSQL
	switch {
	case f.Order == governance.SearchNewest:
		hits = `SELECT rowid AS seq, 0 AS score FROM events_words WHERE events_words MATCH ? ORDER BY rowid DESC` + pageSQL
	case total > maxSearchCount:
		// FTS5 scores every match it sorts: past searchRankWindow
		// matches, the newest searchRankWindow are ranked.
		hits = `SELECT seq, score FROM (SELECT rowid AS seq, rank AS score FROM events_words WHERE events_words MATCH ?
			ORDER BY rowid DESC` + fmt.Sprintf(" LIMIT %d)", searchRankWindow) + ` ORDER BY score, seq DESC` + pageSQL
	}
	out, err := s.searchHits(ctx, `SELECT `+eventColumns+` FROM (`+hits+`) h JOIN events e ON e.seq = h.seq ORDER BY h.score, h.seq DESC`,
		pageArgs([]any{match}, f.Limit, f.Offset), highlight)
	return out, total, err
}

// searchProjects are the projects a search's filter names: its project,
// its list, or (neither) every project.
func (s *Store) searchProjects(ctx context.Context, f governance.EventFilter) ([]int64, error) {
	switch {
	case f.ProjectID != nil:
		return []int64{*f.ProjectID}, nil
	case f.ProjectIDs != nil:
		return f.ProjectIDs, nil
	}
	var ids []int64
	err := queryAll(ctx, s.read, `SELECT id FROM projects ORDER BY id`, nil, func(r scanner) error {
		var id int64
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: search projects: %w", err)
	}
	return ids, nil
}

// searchQuery is a parsed search: phrases that must match, phrases of which
// any may (single terms, and the phrases first when both are given), each
// as its tokenizer terms; exact substrings, and what to highlight.
type searchQuery struct {
	phrases   [][]string
	any       [][]string
	exact     []string
	highlight []string
}

// parseSearch reads a query (searchquery.Parse), each phrase as its terms.
func parseSearch(text string) searchQuery {
	p := searchquery.Parse(text, nil, func(terms []string) []string { return terms })
	return searchQuery{phrases: p.Phrases, any: p.Any, exact: p.Exact, highlight: p.Highlight}
}

// match is the events_words query of q over the given projects' rows (the
// subject's alone when one is named): every phrase, and any of the loose
// terms. An event's terms all carry its own project, so a phrase found in
// one project and a term in another never make one match.
func (q searchQuery) match(projects []int64, subject *string) string {
	var parts []string
	anyOf := func(phrase func(p int64) []string) string {
		var alts []string
		for _, p := range projects {
			alts = append(alts, phrase(p)...)
		}
		return "(" + strings.Join(alts, " OR ") + ")"
	}
	if subject != nil {
		parts = append(parts, "scope: "+anyOf(func(p int64) []string { return []string{subjectScope(p, *subject)} }))
	}
	for _, ph := range q.phrases {
		parts = append(parts, inTerms(anyOf(func(p int64) []string { return []string{scopedPhrase(p, ph)} }), ph))
	}
	if len(q.any) > 0 {
		parts = append(parts, inTerms(anyOf(func(p int64) []string {
			out := make([]string, len(q.any))
			for i, ph := range q.any {
				out[i] = scopedPhrase(p, ph)
			}
			return out
		}), q.any...))
	}
	return strings.Join(parts, " AND ")
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
		FROM sessions WHERE `+strings.Join(where, " AND ")+` ORDER BY last_seq DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset)...)
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
