package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/ingest"
)

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

func (s *Store) ingest(ctx context.Context, actor string, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	if err := governance.ValidateBatch(events); err != nil {
		return nil, err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	if err := tx.lockProjectIngest(ctx, projectID); err != nil {
		return nil, err
	}
	res, err := insertEvents(ctx, tx, projectID, events)
	if err != nil {
		return nil, err
	}
	if err := auditImport(ctx, tx, actor, projectID, res); err != nil {
		return nil, err
	}
	return res, tx.Commit(ctx)
}

// auditImport writes the "events.import" audit row of an ingest, in its
// transaction, when an actor is named.
func auditImport(ctx context.Context, tx *Tx, actor string, projectID int64, res *governance.ImportResult) error {
	if actor == "" {
		return nil
	}
	var slug string
	if err := tx.QueryRow(ctx, `SELECT slug FROM projects WHERE id = $1`, projectID).Scan(&slug); err != nil {
		return fmt.Errorf("postgres: import project: %w", err)
	}
	return appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "events.import", ObjectType: "project", ObjectID: slug, ProjectID: projectID,
		Details: fmt.Sprintf(`{"inserted":%d,"skipped":%d}`, res.Inserted, res.Skipped),
	})
}

// insertEvents writes a validated batch of one project's events.
func insertEvents(ctx context.Context, tx *Tx, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	w := newEventWriter(tx, projectID, 0)
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

// writeChunk is how many events an eventWriter sends in one round trip.
const writeChunk = 500

// eventWriter inserts events of one project inside a transaction, in
// chunks (one INSERT of writeChunk rows, one round trip): ids already
// present — in the table or earlier in the same writer — are skipped and
// counted, and the sessions table is kept in step at the end. Batch
// ingest and the streamed import both write through it.
type eventWriter struct {
	tx        *Tx
	projectID int64
	pending   []*governance.Event
	*ingest.Tally
	// reopen is an event id whose stored text a longer one replaces.
	reopen string
	// forgetKey makes the tombstone a subject forget left of an event id
	// (tombstone.go); nil while the project has had none. keyRead: looked up.
	forgetKey []byte
	keyRead   bool
}

func newEventWriter(tx *Tx, projectID int64, maxSkipped int) *eventWriter {
	return &eventWriter{tx: tx, projectID: projectID, Tally: ingest.NewTally(maxSkipped)}
}

// write queues one validated event, sending the queue when it is full.
func (w *eventWriter) write(ctx context.Context, e *governance.Event) error {
	w.pending = append(w.pending, e)
	if len(w.pending) < writeChunk {
		return nil
	}
	return w.flush(ctx)
}

func (w *eventWriter) flush(ctx context.Context) error {
	if len(w.pending) == 0 {
		return nil
	}
	forgotten, err := w.forgotten(ctx)
	if err != nil {
		return err
	}
	send := w.pending
	if len(forgotten) > 0 {
		send = make([]*governance.Event, 0, len(w.pending))
		for _, e := range w.pending {
			if !forgotten[e.ID] {
				send = append(send, e)
			}
		}
	}
	n := len(send)
	var (
		ids, sessions, subjects, kinds, roles, texts, tools, statuses, sources, words = make([]string, n), make([]string, n),
			make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n),
			make([]string, n), make([]string, n)
		turns    = make([]int64, n)
		occurred = make([]time.Time, n)
	)
	for i, e := range send {
		ids[i], sessions[i], subjects[i], turns[i] = e.ID, e.SessionID, e.SubjectID, int64(e.Turn)
		kinds[i], roles[i], texts[i], tools[i] = string(e.Kind), string(e.Role), e.Text, e.Tool
		statuses[i], sources[i], occurred[i], words[i] = e.Status, string(e.Source), utc(e.OccurredAt), tsvectorOf(e.Text)
	}
	// One statement per chunk: the rows go in the chunk's order (ORDER BY
	// the ordinality), so seqs follow it; ids already stored — or earlier
	// in the chunk — are not returned.
	rows, err := w.tx.Query(ctx, `
		INSERT INTO events (id, project_id, session_id, subject_id, turn, kind, role, text, tool, status, source,
			occurred_at, ingested_at, words)
		SELECT u.id, $1, u.session_id, u.subject_id, u.turn, u.kind, u.role, u.text, u.tool, u.status, u.source,
			u.occurred_at, $2, u.words::tsvector
		FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[],
			$11::text[], $12::text[], $13::timestamptz[], $14::text[])
			WITH ORDINALITY AS u(id, session_id, subject_id, turn, kind, role, text, tool, status, source, occurred_at, words, n)
		ORDER BY u.n
		ON CONFLICT (project_id, id) DO NOTHING
		RETURNING id, seq`,
		w.projectID, w.tx.now, ids, sessions, subjects, turns, kinds, roles, texts, tools, statuses, sources, occurred, words)
	if err != nil {
		return mapError(err, "Events")
	}
	inserted := make(map[string]int64, n)
	for rows.Next() {
		var (
			id  string
			seq int64
		)
		if err := rows.Scan(&id, &seq); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: insert events: %w", err)
		}
		inserted[id] = seq
	}
	if err := rows.Err(); err != nil {
		return mapError(err, "Events")
	}
	for _, e := range w.pending {
		seq, ok := inserted[e.ID]
		if !ok && e.ID == w.reopen && w.reopen != "" && !forgotten[e.ID] {
			if err := w.replace(ctx, e); err != nil {
				return err
			}
			continue
		}
		if !ok {
			w.Skip(e.ID)
			continue
		}
		delete(inserted, e.ID) // a repeat later in the chunk was skipped
		e.Seq, e.ProjectID, e.IngestedAt = seq, w.projectID, w.tx.now
		e.OccurredAt = utc(e.OccurredAt)
		w.Insert(e)
	}
	w.pending = w.pending[:0]
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

// forgotten returns the ids of the pending events that a subject forget
// left a tombstone of: a forgotten event sent again does not come back.
func (w *eventWriter) forgotten(ctx context.Context) (map[string]bool, error) {
	if !w.keyRead {
		err := w.tx.QueryRow(ctx, `SELECT key FROM forget_keys WHERE project_id = $1`, w.projectID).Scan(&w.forgetKey)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("postgres: forget key: %w", err)
		}
		w.keyRead = true
	}
	if w.forgetKey == nil {
		return nil, nil
	}
	byTombstone := make(map[string]string, len(w.pending))
	stones := make([]string, 0, len(w.pending))
	for _, e := range w.pending {
		t := forgetplan.Tombstone(w.forgetKey, forgetplan.EventTombstone, e.ID)
		byTombstone[t] = e.ID
		stones = append(stones, t)
	}
	out := map[string]bool{}
	err := queryAll(ctx, w.tx, `SELECT id FROM events WHERE project_id = $1 AND id = ANY($2)`, []any{w.projectID, stones}, func(r pgx.Row) error {
		var t string
		if err := r.Scan(&t); err != nil {
			return err
		}
		out[byTombstone[t]] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: find tombstones: %w", err)
	}
	return out, nil
}

// replace gives the stored event e.ID the text of e, the same message read
// again with parts appended since (follow mode): only a longer text that
// extends the stored one, and never the text of a redacted event.
func (w *eventWriter) replace(ctx context.Context, e *governance.Event) error {
	tag, err := w.tx.Exec(ctx, `
		UPDATE events SET text = $1, words = $2::tsvector
		WHERE project_id = $3 AND id = $4 AND NOT redacted AND length(text) < length($1) AND starts_with($1, text)`,
		e.Text, tsvectorOf(e.Text), w.projectID, e.ID)
	if err != nil {
		return mapError(err, "Event "+e.ID)
	}
	if tag.RowsAffected() > 0 {
		w.Res.Replaced++
		return nil
	}
	w.Skip(e.ID)
	return nil
}

// finish sends what is queued and updates the sessions the events touched.
func (w *eventWriter) finish(ctx context.Context) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	return w.flushSessions(ctx)
}

// ImportStream stores the events produce emits in a single transaction:
// memory stays bounded (events go out in chunks) whatever their number,
// and either every new event is written or none is. When produce returns
// an error (a rejected file), everything it emitted is rolled back. Events
// whose id already exists in the project (or earlier in the same stream)
// are skipped and counted. An "events.import" audit row naming the actor
// is written in the same transaction when actor is not empty. An emitted
// event is kept until its chunk is sent: the producer hands over a new
// one each time.
func (s *Store) ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.importStream(ctx, actor, projectID, "", produce, nil)
}

// importStream is ImportStream with a hook run in the same transaction
// before the commit; an event emitted with the id reopen replaces the
// stored text of that id (see ImportChunk).
func (s *Store) importStream(ctx context.Context, actor string, projectID int64, reopen string, produce func(emit func(*governance.Event) error) error,
	before func(context.Context, *Tx, *governance.ImportResult) error) (*governance.ImportResult, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	if err := tx.lockProjectIngest(ctx, projectID); err != nil {
		return nil, err
	}
	w := newEventWriter(tx, projectID, ingest.MaxStreamSkippedIDs)
	w.reopen = reopen
	emit := ingest.Emitter(func(e *governance.Event) error { return w.write(ctx, e) })
	if err := produce(emit); err != nil {
		return nil, err
	}
	if err := w.finish(ctx); err != nil {
		return nil, err
	}
	if err := auditImport(ctx, tx, actor, projectID, w.Res); err != nil {
		return nil, err
	}
	if before != nil {
		if err := before(ctx, tx, w.Res); err != nil {
			return nil, err
		}
	}
	return w.Res, tx.Commit(ctx)
}

func upsertSession(ctx context.Context, tx *Tx, projectID int64, si *governance.SessionInfo) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO sessions AS s (project_id, session_id, subject_id, events, failed, external, first_at, last_at, ended, last_seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (project_id, session_id) DO UPDATE SET
			subject_id = CASE WHEN excluded.subject_id <> '' THEN excluded.subject_id ELSE s.subject_id END,
			events = s.events + excluded.events,
			failed = s.failed + excluded.failed,
			external = s.external + excluded.external,
			first_at = LEAST(s.first_at, excluded.first_at),
			last_at = GREATEST(s.last_at, excluded.last_at),
			ended = s.ended OR excluded.ended,
			last_seq = GREATEST(s.last_seq, excluded.last_seq)`,
		projectID, si.SessionID, si.SubjectID, si.Events, si.Failed, si.External,
		si.FirstAt, si.LastAt, si.Ended, si.LastSeq)
	if err != nil {
		return fmt.Errorf("postgres: upsert session: %w", err)
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
	var w where
	eventWhere(&w, f)
	order := " ORDER BY e.seq"
	if f.SessionID != nil {
		// A session_end has no turn (0) and may arrive first: it ends the
		// session, so it comes last, as on SQLite.
		order = " ORDER BY e.kind = 'session_end', e.turn, e.seq"
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	// The projects are in the text (eventWhere): the plans pool's.
	rows, err := s.plans.Query(ctx, `SELECT `+eventColumns+`, count(*) OVER () FROM events e WHERE `+
		w.String()+order+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find events: %w", err)
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

// where collects the conditions of a query and their numbered arguments.
type where struct {
	conds []string
	args  []any
}

// add appends cond with each ? numbered as the next argument (one
// argument per ?, in order).
func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", fmt.Sprintf("$%d", len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

// projectIs is the condition that column holds one of the project ids,
// written into the statement's text rather than passed as an argument:
// whatever plan the server makes of it, cached or not, holds only those
// projects' partitions of a partitioned table (see Store.plans). The ids
// are integers the store formats, never text from outside.
func projectIs(column string, ids ...int64) string {
	switch len(ids) {
	case 0:
		return "false"
	case 1:
		return column + " = " + strconv.FormatInt(ids[0], 10)
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.FormatInt(id, 10)
	}
	return column + " IN (" + strings.Join(list, ", ") + ")"
}

// arg adds v as the next argument and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, " AND ")
}

func eventWhere(w *where, f governance.EventFilter) {
	if f.ProjectID != nil {
		w.conds = append(w.conds, projectIs("e.project_id", *f.ProjectID))
	}
	if f.ProjectIDs != nil {
		w.conds = append(w.conds, projectIs("e.project_id", f.ProjectIDs...))
	}
	if f.SessionID != nil {
		w.add("e.session_id = ?", *f.SessionID)
	}
	if f.SubjectID != nil {
		w.add("e.subject_id = ?", *f.SubjectID)
	}
	if f.Role != nil {
		w.add("e.role = ?", string(*f.Role))
	}
	if f.Status != nil {
		w.add("e.status = ?", *f.Status)
	}
	if f.Source != nil {
		w.add("e.source = ?", string(*f.Source))
	}
	if f.Seq != nil {
		w.add("e.seq = ?", *f.Seq)
	}
	if f.AfterSeq != nil {
		w.add("e.seq > ?", *f.AfterSeq)
	}
}

func scanEvent(r pgx.Row, extra ...any) (*governance.Event, error) {
	var (
		e                  governance.Event
		occurred, ingested time.Time
	)
	dest := append([]any{&e.Seq, &e.ID, &e.ProjectID, &e.SessionID, &e.SubjectID, &e.Turn, &e.Kind, &e.Role, &e.Text,
		&e.Tool, &e.Status, &e.Source, &occurred, &ingested, &e.Redacted}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, fmt.Errorf("postgres: scan event: %w", err)
	}
	e.OccurredAt, e.IngestedAt = occurred.UTC(), ingested.UTC()
	return &e, nil
}

// maxSearchCount caps how many matches a search counts; beyond it the UI
// says "more than". searchRankWindow bounds the matches a search ranks by
// relevance: a query matching more ranks its newest searchRankWindow
// matches. Both are the SQLite store's.
const (
	maxSearchCount   = 1000
	searchRankWindow = maxSearchCount + 1
)

// SearchEvents finds events for a query, most relevant first (or newest
// first with SearchNewest), with the SQLite store's reading of the query
// and its results contract (store/storetest's TestSearchRanking).
//
// Each event's words column holds the terms the tokenizer package cuts
// (English stems, CJK character pairs and single characters) with their
// positions; GIN indexes it and the query is a tsquery over the same
// terms: loose words are OR-ed, a Chinese run matches through its
// character pairs, a quoted phrase is a <-> phrase of its terms and must
// also occur exactly in the text (case-insensitive). Relevance is BM25's
// shape built from PostgreSQL's ts_rank: the sum over the query's parts of
// ts_rank (term frequency, divided by 1 + the log of the event's number of
// distinct terms: normalisation 16, the closest to SQLite's order on the
// contract's fixture) weighted by the part's
// inverse document frequency, so more matched words and rarer words rank
// higher; ties go to the newest.
func (s *Store) SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error) {
	q := parseSearch(f.Query)
	if len(q.phrases)+len(q.any)+len(q.exact) == 0 {
		// Nothing to match: punctuation or stop words alone.
		return nil, 0, governance.Errorf(governance.EINVALID, "Type something to search for.")
	}
	var w where
	eventWhere(&w, f)
	for _, p := range q.exact {
		w.add("strpos(lower(e.text), ?) > 0", strings.ToLower(p))
	}
	ranked := q.ranked()
	if len(ranked) > 0 {
		w.add("e.words @@ ?::tsquery", q.match())
	}
	cond := w.String()
	if len(ranked) > 0 && f.Order != governance.SearchNewest {
		return s.searchRanked(ctx, &w, cond, ranked, q.highlight, f)
	}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM events e WHERE `+cond+
		fmt.Sprintf(" LIMIT %d) m", maxSearchCount+1), w.args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("postgres: count search: %w", err)
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	rows, err := s.pool.Query(ctx, `SELECT `+eventColumns+` FROM events e WHERE `+cond+` ORDER BY e.seq DESC`+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: search events: %w", err)
	}
	out, _, err := scanHits(rows, q.highlight, false)
	return out, total, err
}

// searchRanked is a search most relevant first, in one statement: the
// newest searchRankWindow matches (all of them when there are fewer) are
// scored and counted, and the page is cut from them by score. That is
// the contract of a count first (up to maxSearchCount+1) and a window
// only past it — a query of up to maxSearchCount matches has them all in
// the window, one of more has more than maxSearchCount in it — in one
// pass over the matches instead of two: a count of a common word through
// the GIN index builds the bitmap of every match of the partition (60,000
// of the load project's 1M events for 酒店), while the newest matches come
// from the primary key read backwards.
func (s *Store) searchRanked(ctx context.Context, w *where, cond string, ranked []tsPart, highlight []string,
	f governance.EventFilter) ([]*governance.EventHit, int, error) {
	weights, err := s.idf(ctx, ranked)
	if err != nil {
		return nil, 0, err
	}
	terms := make([]string, len(ranked))
	for i, part := range ranked {
		terms[i] = fmt.Sprintf("ts_rank(e.words, %s::tsquery, 16) * %s::float8", w.arg(part.query), w.arg(weights[i]))
	}
	score := strings.Join(terms, " + ")
	if f.ProjectID != nil && f.ProjectIDs == nil && s.windows != nil {
		out, total, ok, err := s.searchWindowed(ctx, *f.ProjectID, w, cond, score, highlight, f)
		if err != nil || ok {
			return out, total, err
		}
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	rows, err := s.pool.Query(ctx, `SELECT `+eventColumns+`, count(*) OVER ()
		FROM (SELECT e.*, `+score+` AS score FROM events e WHERE `+cond+
		fmt.Sprintf(" ORDER BY e.seq DESC LIMIT %d", searchRankWindow)+`) e
		ORDER BY e.score DESC, e.seq DESC`+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: search events: %w", err)
	}
	out, total, err := scanHits(rows, highlight, true)
	if err != nil {
		return nil, 0, err
	}
	if len(out) == 0 && f.Offset > 0 {
		// A page past the end returns no row, so no count: count again.
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM events e WHERE `+cond+
			fmt.Sprintf(" LIMIT %d) m", maxSearchCount+1), w.args[:len(w.args)-2*len(ranked)]...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("postgres: count search: %w", err)
		}
	}
	return out, min(total, maxSearchCount+1), nil
}

// scanHits reads the events of a search, with the match count after the
// columns when counted, and cuts their fragments.
func scanHits(rows pgx.Rows, highlight []string, counted bool) ([]*governance.EventHit, int, error) {
	defer rows.Close()
	var (
		out   []*governance.EventHit
		total int
	)
	for rows.Next() {
		var extra []any
		if counted {
			extra = append(extra, &total)
		}
		e, err := scanEvent(rows, extra...)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, &governance.EventHit{Event: e, Fragments: governance.Highlight(e.Text, highlight, 240)})
	}
	return out, total, rows.Err()
}

// idf returns the inverse document frequency of each part of a query over
// the whole table (as FTS5's BM25 computes it): ln(1 + (N − n + 0.5)/(n +
// 0.5)) for n matching events of N. On a table of statsFrom events or
// more, n comes from the statistics ANALYZE (or autovacuum) keeps for the
// words column of each partition — the frequencies of its most common
// lexemes; a lexeme not among them is rarer than all of them, and a phrase
// is as rare as its rarest term — so a search reads one catalog row a
// partition instead of counting.
// On a smaller table, or one never analysed, n is counted through the GIN
// index, up to searchRankWindow (a part matching more is common: its
// weight is about the same either way).
func (s *Store) idf(ctx context.Context, parts []tsPart) ([]float64, error) {
	out := make([]float64, len(parts))
	if len(parts) == 1 {
		out[0] = 1 // one part: the weight changes no order
		return out, nil
	}
	// The statistics are kept per partition of events (autovacuum never
	// analyses a partitioned table's parent): a term's count is the sum
	// over the partitions of its frequency there (or, when it is not among
	// a partition's most common, half the least frequency listed) times
	// the partition's size.
	st, err := s.eventStats(ctx)
	if err != nil {
		return nil, err
	}
	total := st.total
	idf := func(n float64) float64 { return max(math.Log(1+(total-n+0.5)/(n+0.5)), 1e-6) }
	if total >= s.statsFrom && len(st.parts) > 0 {
		for i, p := range parts {
			n := total
			for _, t := range p.terms {
				var nt float64
				for _, ps := range st.parts {
					ft, ok := ps.freqs[t]
					if !ok {
						ft = ps.least / 2
					}
					nt += ft * ps.rows
				}
				n = min(n, nt)
			}
			out[i] = idf(n)
		}
		return out, nil
	}
	cols := []string{`(SELECT count(*) FROM events)`}
	args := make([]any, len(parts))
	for i, p := range parts {
		args[i] = p.query
		cols = append(cols, fmt.Sprintf(`(SELECT count(*) FROM (SELECT 1 FROM events WHERE words @@ $%d::tsquery LIMIT %d) m)`,
			i+1, searchRankWindow))
	}
	counts := make([]int64, len(parts)+1)
	dest := make([]any, len(counts))
	for i := range counts {
		dest[i] = &counts[i]
	}
	if err := s.pool.QueryRow(ctx, `SELECT `+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
		return nil, fmt.Errorf("postgres: search term frequencies: %w", err)
	}
	total = float64(counts[0])
	for i := range parts {
		total = max(total, float64(counts[i+1]))
	}
	for i := range parts {
		out[i] = idf(float64(counts[i+1]))
	}
	return out, nil
}

// FindSessions lists the sessions of a project, most recent activity first.
func (s *Store) FindSessions(ctx context.Context, f governance.SessionFilter) ([]*governance.SessionInfo, int, error) {
	var w where
	w.add("project_id = ?", f.ProjectID)
	if f.SubjectID != nil {
		w.add("subject_id = ?", *f.SubjectID)
	}
	if f.SessionID != nil {
		w.add("session_id = ?", *f.SessionID)
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	rows, err := s.plans.Query(ctx, `
		SELECT project_id, session_id, subject_id, events, failed, external, first_at, last_at, ended, last_seq, count(*) OVER ()
		FROM sessions WHERE `+w.String()+` ORDER BY last_seq DESC`+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find sessions: %w", err)
	}
	defer rows.Close()
	var (
		out   []*governance.SessionInfo
		total int
	)
	for rows.Next() {
		var si governance.SessionInfo
		if err := rows.Scan(&si.ProjectID, &si.SessionID, &si.SubjectID, &si.Events, &si.Failed, &si.External,
			&si.FirstAt, &si.LastAt, &si.Ended, &si.LastSeq, &total); err != nil {
			return nil, 0, err
		}
		si.FirstAt, si.LastAt = si.FirstAt.UTC(), si.LastAt.UTC()
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
