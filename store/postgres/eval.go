package postgres

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// UpsertEvalSuite stores a suite by name: a new name is inserted, an existing
// suite of the same origin gets the new body. An uploaded suite may not
// replace a built-in one (or the reverse): ECONFLICT. A change is audited.
func (s *Store) UpsertEvalSuite(ctx context.Context, suite *evalrow.SuiteRow, actor string) error {
	return s.upsertEvalSuite(ctx, suite, nil, actor)
}

// UpsertEvalSuiteData is UpsertEvalSuite for a suite with a data file
// (kept in parts, evalrow.WriteSuiteData): when the body changes, the file read from data
// replaces the suite's earlier one in the same transaction.
func (s *Store) UpsertEvalSuiteData(ctx context.Context, suite *evalrow.SuiteRow, data io.Reader, actor string) error {
	return s.upsertEvalSuite(ctx, suite, data, actor)
}

// upsertEvalSuite saves the suite (evalrow.SaveSuite) in one
// transaction.
func (s *Store) upsertEvalSuite(ctx context.Context, suite *evalrow.SuiteRow, data io.Reader, actor string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	changed, err := evalrow.SaveSuite(ctx, suiteTx{tx}, suite, data, actor)
	if err != nil || !changed {
		return err
	}
	return tx.Commit(ctx)
}

// suiteTx is the SQL of each step of a suite save (evalrow.SuiteTx).
type suiteTx struct{ *Tx }

func (tx suiteTx) Now() time.Time { return tx.now }

func (tx suiteTx) LockSuiteByName(ctx context.Context, name string) (*evalrow.SuiteRow, error) {
	return findEvalSuite(ctx, tx.Tx, `name = $1 FOR UPDATE`, name)
}

func (tx suiteTx) InsertSuite(ctx context.Context, suite *evalrow.SuiteRow) error {
	err := tx.QueryRow(ctx, `
		INSERT INTO eval_suites (name, origin, body, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		suite.Name, suite.Origin, suite.Body, suite.CreatedAt, suite.UpdatedAt).Scan(&suite.ID)
	if err != nil {
		return mapError(err, "Suite "+suite.Name)
	}
	return nil
}

func (tx suiteTx) UpdateSuiteBody(ctx context.Context, id int64, body string) error {
	_, err := tx.Exec(ctx, `UPDATE eval_suites SET body = $1, updated_at = $2 WHERE id = $3`, body, tx.now, id)
	return err
}

func (tx suiteTx) DropSuiteData(ctx context.Context, id int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM eval_suite_data WHERE suite_id = $1`, id)
	return err
}

func (tx suiteTx) InsertSuitePart(ctx context.Context, id int64, part int, b []byte) error {
	_, err := tx.Exec(ctx, `INSERT INTO eval_suite_data (suite_id, part, bytes) VALUES ($1, $2, $3)`, id, part, b)
	return err
}

func (tx suiteTx) Audit(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, tx.Tx, e)
}

// OpenEvalSuiteData reads the data file of suite id back, a part at a
// time; a suite without one is ENOTFOUND.
func (s *Store) OpenEvalSuiteData(ctx context.Context, id int64) (io.ReadCloser, error) {
	var parts int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM eval_suite_data WHERE suite_id = $1`, id).Scan(&parts); err != nil {
		return nil, fmt.Errorf("postgres: find eval suite data: %w", err)
	}
	if parts == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "The suite has no data file.")
	}
	return evalrow.ReadSuiteData(parts, func(part int) ([]byte, error) {
		var b []byte
		if err := s.pool.QueryRow(ctx, `SELECT bytes FROM eval_suite_data WHERE suite_id = $1 AND part = $2`, id, part).Scan(&b); err != nil {
			return nil, fmt.Errorf("postgres: read eval suite data: %w", err)
		}
		return b, nil
	}), nil
}

// FindEvalSuiteByID returns one suite or ENOTFOUND.
func (s *Store) FindEvalSuiteByID(ctx context.Context, id int64) (*evalrow.SuiteRow, error) {
	return findEvalSuite(ctx, s.pool, `id = $1`, id)
}

// FindEvalSuiteByName returns one suite or ENOTFOUND.
func (s *Store) FindEvalSuiteByName(ctx context.Context, name string) (*evalrow.SuiteRow, error) {
	return findEvalSuite(ctx, s.pool, `name = $1`, name)
}

// FindEvalSuites lists every suite, built-in first, then by name.
func (s *Store) FindEvalSuites(ctx context.Context) ([]*evalrow.SuiteRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+evalSuiteColumns+` FROM eval_suites ORDER BY origin = 'uploaded', name COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres: find eval suites: %w", err)
	}
	defer rows.Close()
	var out []*evalrow.SuiteRow
	for rows.Next() {
		suite, err := scanEvalSuite(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: scan eval suite: %w", err)
		}
		out = append(out, suite)
	}
	return out, rows.Err()
}

const evalSuiteColumns = `id, name, origin, body, created_at, updated_at`

func findEvalSuite(ctx context.Context, q querier, where string, arg any) (*evalrow.SuiteRow, error) {
	suite, err := scanEvalSuite(q.QueryRow(ctx, `SELECT `+evalSuiteColumns+` FROM eval_suites WHERE `+where, arg))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Eval suite not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find eval suite: %w", err)
	}
	return suite, nil
}

func scanEvalSuite(r pgx.Row) (*evalrow.SuiteRow, error) {
	var suite evalrow.SuiteRow
	if err := r.Scan(&suite.ID, &suite.Name, &suite.Origin, &suite.Body, &suite.CreatedAt, &suite.UpdatedAt); err != nil {
		return nil, err
	}
	suite.CreatedAt, suite.UpdatedAt = suite.CreatedAt.UTC(), suite.UpdatedAt.UTC()
	return &suite, nil
}

// CreateEvalRun queues a run of a suite; the runner picks it up.
func (s *Store) CreateEvalRun(ctx context.Context, run *evalrow.RunRow) error {
	if run.CreatedBy == "" {
		return governance.Errorf(governance.EINVALID, "A run needs the name of who started it.")
	}
	if run.Summary == "" {
		run.Summary = "{}"
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	suite, err := findEvalSuite(ctx, tx, `id = $1`, run.SuiteID)
	if err != nil {
		return err
	}
	err = tx.QueryRow(ctx, `
		INSERT INTO eval_runs (suite_id, status, total, summary, created_by, created_at)
		VALUES ($1, 'queued', $2, $3, $4, $5) RETURNING id`,
		run.SuiteID, run.Total, run.Summary, run.CreatedBy, tx.now).Scan(&run.ID)
	if err != nil {
		return mapError(err, "Eval run")
	}
	run.SuiteName, run.Status, run.CreatedAt = suite.Name, evalrow.RunQueued, tx.now
	// What the run will read of live projects, for a forget to find it
	// (migration 0060, withholdEvalReads).
	for _, slug := range run.Reads {
		if _, err := tx.Exec(ctx, `INSERT INTO eval_reads (run_id, project_id)
			SELECT $1, id FROM projects WHERE slug = $2 AND NOT scratch ON CONFLICT DO NOTHING`, run.ID, slug); err != nil {
			return fmt.Errorf("postgres: record eval reads: %w", err)
		}
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: run.CreatedBy, Action: "eval.run_queue", ObjectType: "eval_run", ObjectID: fmt.Sprint(run.ID),
		Details: "suite " + suite.Name,
	}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

const evalRunColumns = `r.id, r.suite_id, s.name, r.status, r.total, r.done, r.current_case, r.passed, r.failed, r.skipped,
	r.summary, r.tokens, r.cost, r.error, r.created_by, r.created_at, r.started_at, r.finished_at`

func scanEvalRun(r pgx.Row, extra ...any) (*evalrow.RunRow, error) {
	var (
		run            evalrow.RunRow
		started, ended *time.Time
	)
	dest := append([]any{&run.ID, &run.SuiteID, &run.SuiteName, &run.Status, &run.Total, &run.Done, &run.CurrentCase,
		&run.Passed, &run.Failed, &run.Skipped, &run.Summary, &run.Tokens, &run.Cost, &run.Error, &run.CreatedBy,
		&run.CreatedAt, &started, &ended}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	run.CreatedAt, run.StartedAt, run.FinishedAt = run.CreatedAt.UTC(), utcPtr(started), utcPtr(ended)
	return &run, nil
}

// FindEvalRunByID returns one run or ENOTFOUND.
func (s *Store) FindEvalRunByID(ctx context.Context, id int64) (*evalrow.RunRow, error) {
	return findEvalRunByID(ctx, s.pool, id, "")
}

// findEvalRunByID reads one run; lock, when set, is a locking clause
// (FOR UPDATE OF r).
func findEvalRunByID(ctx context.Context, q querier, id int64, lock string) (*evalrow.RunRow, error) {
	run, err := scanEvalRun(q.QueryRow(ctx, `SELECT `+evalRunColumns+`
		FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE r.id = $1 `+lock, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Eval run not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find eval run: %w", err)
	}
	return run, nil
}

// FindEvalRuns lists runs, newest first, with the total count.
func (s *Store) FindEvalRuns(ctx context.Context, f evalrow.RunFilter) ([]*evalrow.RunRow, int, error) {
	var w where
	if f.SuiteID != nil {
		w.add("r.suite_id = ?", *f.SuiteID)
	}
	if f.Statuses != nil {
		statuses := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			statuses[i] = string(st)
		}
		w.add("r.status = ANY(?)", statuses)
	}
	if f.IDs != nil {
		w.add("r.id = ANY(?)", f.IDs)
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	rows, err := s.pool.Query(ctx, `SELECT `+evalRunColumns+`, count(*) OVER ()
		FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id
		WHERE `+w.String()+` ORDER BY r.id DESC`+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find eval runs: %w", err)
	}
	defer rows.Close()
	var (
		out   []*evalrow.RunRow
		total int
	)
	for rows.Next() {
		run, err := scanEvalRun(rows, &total)
		if err != nil {
			return nil, 0, fmt.Errorf("postgres: scan eval run: %w", err)
		}
		out = append(out, run)
	}
	return out, total, rows.Err()
}

// ClaimEvalRun marks the oldest queued run as running and returns it;
// ENOTFOUND when nothing is queued. Claimers on several instances each get
// a different run (a queued row another claimer has locked is skipped).
func (s *Store) ClaimEvalRun(ctx context.Context) (*evalrow.RunRow, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	var id int64
	err = tx.QueryRow(ctx, `
		UPDATE eval_runs SET status = 'running', started_at = $1
		WHERE id = (SELECT id FROM eval_runs WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id`, tx.now).Scan(&id)
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "No queued eval run.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: claim eval run: %w", err)
	}
	run, err := findEvalRunByID(ctx, tx, id, "")
	if err != nil {
		return nil, err
	}
	return run, tx.Commit(ctx)
}

// UpdateEvalRun patches a run that is still running; ECONFLICT otherwise
// (it was cancelled or has finished).
func (s *Store) UpdateEvalRun(ctx context.Context, id int64, upd evalrow.RunUpdate) error {
	var w where
	if upd.Total != nil {
		w.add("total = ?", *upd.Total)
	}
	if upd.CurrentCase != nil {
		w.add("current_case = ?", *upd.CurrentCase)
	}
	if upd.Summary != nil {
		w.add("summary = ?", *upd.Summary)
	}
	if len(w.conds) == 0 {
		return nil
	}
	tag, err := s.pool.Exec(ctx, `UPDATE eval_runs SET `+strings.Join(w.conds, ", ")+
		` WHERE id = `+w.arg(id)+` AND status = 'running'`, w.args...)
	if err != nil {
		return fmt.Errorf("postgres: update eval run %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return governance.Errorf(governance.ECONFLICT, "Eval run %d is not running.", id)
	}
	return nil
}

// SaveEvalResult stores the result of one case and advances the run's
// counters, token usage and cost in the same transaction. A result for a
// case already stored is ignored, so a resumed run never counts twice.
func (s *Store) SaveEvalResult(ctx context.Context, res *evalrow.ResultRow, tokens int, cost float64) error {
	switch res.Status {
	case "passed", "failed", "skipped", "error":
	default:
		return governance.Errorf(governance.EINVALID, "Result status %q is not passed, failed, skipped or error.", res.Status)
	}
	if res.Detail == "" {
		res.Detail = "{}"
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	// Only a running run takes results: once cancelled (or finished) its
	// counts stay as they were, whenever the runner notices.
	counter := map[string]string{"passed": "passed", "failed": "failed", "error": "failed", "skipped": "skipped"}[res.Status]
	u, err := tx.Exec(ctx, `
		UPDATE eval_runs SET done = done + 1, `+counter+` = `+counter+` + 1, tokens = tokens + $1, cost = cost + $2
		WHERE id = $3 AND status = 'running'`, tokens, cost, res.RunID)
	if err != nil {
		return fmt.Errorf("postgres: count eval result: %w", err)
	}
	if u.RowsAffected() == 0 {
		return nil
	}
	// A forget removed a copy of live events the run made (eval_copies):
	// the case may quote copied text no fingerprint names. Checked before
	// the suppressions' lock, in the order a forget takes them.
	if gone, err := copyForgotten(ctx, tx, res.RunID); err != nil {
		return err
	} else if gone {
		res.Detail = "{}"
	}
	// A case may have read a rule before a forget that committed while it
	// ran: the text it quotes is withheld here, inside the write.
	if res.Detail, err = withholdForgotten(ctx, tx, res.Detail); err != nil {
		return err
	}
	err = tx.QueryRow(ctx, `
		INSERT INTO eval_results (run_id, case_id, kind, status, reason, detail, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (run_id, case_id) DO NOTHING
		RETURNING id`,
		res.RunID, res.CaseID, res.Kind, res.Status, res.Reason, res.Detail, tx.now).Scan(&res.ID)
	if isNoRows(err) {
		return nil // stored before (a resumed run); the rollback undoes the count
	}
	if err != nil {
		return mapError(err, "Eval result "+res.CaseID)
	}
	res.CreatedAt = tx.now
	return tx.Commit(ctx)
}

// FindEvalResults lists the results of a run in the order they were stored.
func (s *Store) FindEvalResults(ctx context.Context, runID int64) ([]*evalrow.ResultRow, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, run_id, case_id, kind, status, reason, detail, created_at
		FROM eval_results WHERE run_id = $1 ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("postgres: find eval results: %w", err)
	}
	defer rows.Close()
	var out []*evalrow.ResultRow
	for rows.Next() {
		var r evalrow.ResultRow
		if err := rows.Scan(&r.ID, &r.RunID, &r.CaseID, &r.Kind, &r.Status, &r.Reason, &r.Detail, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("postgres: scan eval result: %w", err)
		}
		r.CreatedAt = r.CreatedAt.UTC()
		out = append(out, &r)
	}
	return out, rows.Err()
}

// FinishEvalRun ends a running run with its final status, summary and
// error. It reports false (and changes nothing) when the run is no longer
// running, e.g. because it was cancelled meanwhile.
func (s *Store) FinishEvalRun(ctx context.Context, id int64, status evalrow.RunStatus, summary, errMsg string) (bool, error) {
	if !status.Terminal() {
		return false, governance.Errorf(governance.EINVALID, "Status %q does not finish a run.", status)
	}
	if summary == "" {
		summary = "{}"
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.rollback()
	tag, err := tx.Exec(ctx, `
		UPDATE eval_runs SET status = $1, summary = $2, error = $3, current_case = '', finished_at = $4
		WHERE id = $5 AND status = 'running'`, string(status), summary, errMsg, tx.now, id)
	if err != nil {
		return false, fmt.Errorf("postgres: finish eval run %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: "eval-runner", Action: "eval.run_finish", ObjectType: "eval_run", ObjectID: fmt.Sprint(id),
		Details: string(status),
	}); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// CancelEvalRun cancels a queued or running run. ENOTFOUND for an unknown
// run, ECONFLICT for one that has already finished. The run's row is
// locked, so a finish on another instance either lands first (ECONFLICT
// here) or finds it cancelled.
func (s *Store) CancelEvalRun(ctx context.Context, id int64, actor string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	run, err := findEvalRunByID(ctx, tx, id, "FOR UPDATE OF r")
	if err != nil {
		return err
	}
	if run.Status.Terminal() {
		return governance.Errorf(governance.ECONFLICT, "The run has already finished (%s).", run.Status)
	}
	if _, err := tx.Exec(ctx, `
		UPDATE eval_runs SET status = 'cancelled', current_case = '', finished_at = $1 WHERE id = $2`,
		tx.now, id); err != nil {
		return fmt.Errorf("postgres: cancel eval run %d: %w", id, err)
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "eval.run_cancel", ObjectType: "eval_run", ObjectID: fmt.Sprint(id),
	}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// withholdForgotten withholds the forgotten statements a result's detail
// quotes (governance.WithholdForgotten). The share lock on suppressions
// makes a running forget and this write take turns: a forget that wrote
// its suppressions first commits before they are read here, and one that
// comes later writes them, and scrubs the stored results, after this
// result is committed.
func withholdForgotten(ctx context.Context, tx *Tx, detail string) (string, error) {
	return governance.WithholdForgotten(detail, func(fps []string) (map[string]bool, error) {
		if _, err := tx.Exec(ctx, `LOCK TABLE suppressions IN SHARE MODE`); err != nil {
			return nil, fmt.Errorf("postgres: check eval result: %w", err)
		}
		forgotten := map[string]bool{}
		if err := queryAll(ctx, tx, `SELECT DISTINCT fingerprint FROM suppressions WHERE fingerprint = ANY($1)`, []any{fps},
			func(r pgx.Row) error {
				var fp string
				err := r.Scan(&fp)
				forgotten[fp] = true
				return err
			}); err != nil {
			return nil, fmt.Errorf("postgres: check eval result: %w", err)
		}
		return forgotten, nil
	})
}
