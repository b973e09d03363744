package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
	"github.com/mnemo-console/mnemo/store/internal/baseline"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
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

// upsertEvalSuite saves the suite (evalrow.SaveSuite) in one writer
// transaction.
func (s *Store) upsertEvalSuite(ctx context.Context, suite *evalrow.SuiteRow, data io.Reader, actor string) error {
	tx, err := s.begin(ctx, "UpsertEvalSuite")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	changed, err := evalrow.SaveSuite(ctx, suiteTx{tx}, suite, data, actor)
	if err != nil || !changed {
		return err
	}
	return tx.Commit()
}

// suiteTx is the SQL of each step of a suite save (evalrow.SuiteTx).
type suiteTx struct{ *Tx }

func (tx suiteTx) Now() time.Time { return tx.now }

func (tx suiteTx) LockSuiteByName(ctx context.Context, name string) (*evalrow.SuiteRow, error) {
	return findEvalSuite(ctx, tx.Tx, `name = ?`, name)
}

func (tx suiteTx) InsertSuite(ctx context.Context, suite *evalrow.SuiteRow) error {
	res, err := tx.ExecContext(ctx, `
		INSERT INTO eval_suites (name, origin, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
		suite.Name, suite.Origin, suite.Body, formatTime(suite.CreatedAt), formatTime(suite.UpdatedAt))
	if err != nil {
		return mapError(err, "Suite "+suite.Name)
	}
	suite.ID, err = res.LastInsertId()
	return err
}

func (tx suiteTx) UpdateSuiteBody(ctx context.Context, id int64, body string) error {
	_, err := tx.ExecContext(ctx, `UPDATE eval_suites SET body = ?, updated_at = ? WHERE id = ?`, body, formatTime(tx.now), id)
	return err
}

func (tx suiteTx) DropSuiteData(ctx context.Context, id int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM eval_suite_data WHERE suite_id = ?`, id)
	return err
}

func (tx suiteTx) InsertSuitePart(ctx context.Context, id int64, part int, b []byte) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO eval_suite_data (suite_id, part, bytes) VALUES (?, ?, ?)`, id, part, b)
	return err
}

func (tx suiteTx) Audit(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, tx.Tx, e)
}

// OpenEvalSuiteData reads the data file of suite id back, a part at a
// time; a suite without one is ENOTFOUND.
func (s *Store) OpenEvalSuiteData(ctx context.Context, id int64) (io.ReadCloser, error) {
	var parts int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM eval_suite_data WHERE suite_id = ?`, id).Scan(&parts); err != nil {
		return nil, fmt.Errorf("store: find eval suite data: %w", err)
	}
	if parts == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "The suite has no data file.")
	}
	return evalrow.ReadSuiteData(parts, func(part int) ([]byte, error) {
		var b []byte
		if err := s.db.QueryRowContext(ctx, `SELECT bytes FROM eval_suite_data WHERE suite_id = ? AND part = ?`, id, part).Scan(&b); err != nil {
			return nil, fmt.Errorf("store: read eval suite data: %w", err)
		}
		return b, nil
	}), nil
}

// FindEvalSuiteByID returns one suite or ENOTFOUND.
func (s *Store) FindEvalSuiteByID(ctx context.Context, id int64) (*evalrow.SuiteRow, error) {
	return findEvalSuite(ctx, s.db, `id = ?`, id)
}

// FindEvalSuiteByName returns one suite or ENOTFOUND.
func (s *Store) FindEvalSuiteByName(ctx context.Context, name string) (*evalrow.SuiteRow, error) {
	return findEvalSuite(ctx, s.db, `name = ?`, name)
}

// FindEvalSuites lists every suite, built-in first, then by name.
func (s *Store) FindEvalSuites(ctx context.Context) ([]*evalrow.SuiteRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+evalSuiteColumns+` FROM eval_suites ORDER BY origin = 'uploaded', name`)
	if err != nil {
		return nil, fmt.Errorf("store: find eval suites: %w", err)
	}
	defer rows.Close()
	var out []*evalrow.SuiteRow
	for rows.Next() {
		suite, err := scanEvalSuite(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, suite)
	}
	return out, rows.Err()
}

const evalSuiteColumns = `id, name, origin, body, created_at, updated_at`

func findEvalSuite(ctx context.Context, q querier, where string, arg any) (*evalrow.SuiteRow, error) {
	suite, err := scanEvalSuite(q.QueryRowContext(ctx, `SELECT `+evalSuiteColumns+` FROM eval_suites WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Eval suite not found.")
	}
	return suite, err
}

func scanEvalSuite(r scanner) (*evalrow.SuiteRow, error) {
	var (
		suite            evalrow.SuiteRow
		created, updated string
	)
	if err := r.Scan(&suite.ID, &suite.Name, &suite.Origin, &suite.Body, &created, &updated); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("store: scan eval suite: %w", err)
	}
	suite.CreatedAt, suite.UpdatedAt = parseTime(created), parseTime(updated)
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
	tx, err := s.begin(ctx, "CreateEvalRun")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	suite, err := findEvalSuite(ctx, tx, `id = ?`, run.SuiteID)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO eval_runs (suite_id, status, total, summary, created_by, created_at)
		VALUES (?, 'queued', ?, ?, ?, ?)`,
		run.SuiteID, run.Total, run.Summary, run.CreatedBy, formatTime(tx.now))
	if err != nil {
		return mapError(err, "Eval run")
	}
	run.ID, _ = res.LastInsertId()
	run.SuiteName, run.Status, run.CreatedAt = suite.Name, evalrow.RunQueued, tx.now
	// What the run will read of live projects, for a forget to find it
	// (migration 0080, withholdEvalReads).
	for _, slug := range run.Reads {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO eval_reads (run_id, project_id)
			SELECT ?, id FROM projects WHERE slug = ? AND scratch = 0`, run.ID, slug); err != nil {
			return fmt.Errorf("store: record eval reads: %w", err)
		}
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: run.CreatedBy, Action: "eval.run_queue", ObjectType: "eval_run", ObjectID: fmt.Sprint(run.ID),
		Details: "suite " + suite.Name,
	}); err != nil {
		return err
	}
	return tx.Commit()
}

const evalRunColumns = `r.id, r.suite_id, s.name, r.status, r.total, r.done, r.current_case, r.passed, r.failed, r.skipped,
	r.summary, r.tokens, r.cost, r.error, r.created_by, r.created_at, r.started_at, r.finished_at`

func scanEvalRun(r scanner, extra ...any) (*evalrow.RunRow, error) {
	var (
		run     evalrow.RunRow
		created string
		started NullTime
		ended   NullTime
	)
	dest := append([]any{&run.ID, &run.SuiteID, &run.SuiteName, &run.Status, &run.Total, &run.Done, &run.CurrentCase,
		&run.Passed, &run.Failed, &run.Skipped, &run.Summary, &run.Tokens, &run.Cost, &run.Error, &run.CreatedBy,
		&created, &started, &ended}, extra...)
	if err := r.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("store: scan eval run: %w", err)
	}
	run.CreatedAt, run.StartedAt, run.FinishedAt = parseTime(created), started.Time, ended.Time
	return &run, nil
}

// FindEvalRunByID returns one run or ENOTFOUND.
func (s *Store) FindEvalRunByID(ctx context.Context, id int64) (*evalrow.RunRow, error) {
	return findEvalRunByID(ctx, s.db, id)
}

func findEvalRunByID(ctx context.Context, q querier, id int64) (*evalrow.RunRow, error) {
	run, err := scanEvalRun(q.QueryRowContext(ctx, `SELECT `+evalRunColumns+`
		FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Eval run not found.")
	}
	return run, err
}

// FindEvalRuns lists runs, newest first, with the total count.
func (s *Store) FindEvalRuns(ctx context.Context, f evalrow.RunFilter) ([]*evalrow.RunRow, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if f.SuiteID != nil {
		where, args = append(where, "r.suite_id = ?"), append(args, *f.SuiteID)
	}
	if f.Statuses != nil {
		where, args = append(where, "r.status IN (SELECT value FROM json_each(?))"), append(args, listArg(f.Statuses))
	}
	if f.IDs != nil {
		where, args = append(where, "r.id IN (SELECT value FROM json_each(?))"), append(args, listArg(f.IDs))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+evalRunColumns+`, COUNT(*) OVER ()
		FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY r.id DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: find eval runs: %w", err)
	}
	defer rows.Close()
	var (
		out   []*evalrow.RunRow
		total int
	)
	for rows.Next() {
		run, err := scanEvalRun(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, run)
	}
	return out, total, rows.Err()
}

// ClaimEvalRun marks the oldest queued run as running and returns it;
// ENOTFOUND when nothing is queued.
func (s *Store) ClaimEvalRun(ctx context.Context) (*evalrow.RunRow, error) {
	// A read first: the idle runner polls every second and must not take
	// the writer slot (BEGIN IMMEDIATE) when nothing is queued.
	var queued bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM eval_runs WHERE status = 'queued')`).Scan(&queued); err != nil {
		return nil, fmt.Errorf("store: claim eval run: %w", err)
	}
	if !queued {
		return nil, governance.Errorf(governance.ENOTFOUND, "No queued eval run.")
	}
	tx, err := s.begin(ctx, "ClaimEvalRun")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM eval_runs WHERE status = 'queued' ORDER BY id LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, governance.Errorf(governance.ENOTFOUND, "No queued eval run.")
	}
	if err != nil {
		return nil, fmt.Errorf("store: claim eval run: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE eval_runs SET status = 'running', started_at = ? WHERE id = ?`,
		formatTime(tx.now), id); err != nil {
		return nil, fmt.Errorf("store: claim eval run: %w", err)
	}
	run, err := findEvalRunByID(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	return run, tx.Commit()
}

// UpdateEvalRun patches a run that is still running; ECONFLICT otherwise
// (it was cancelled or has finished).
func (s *Store) UpdateEvalRun(ctx context.Context, id int64, upd evalrow.RunUpdate) error {
	set, args := []string{}, []any{}
	if upd.Total != nil {
		set, args = append(set, "total = ?"), append(args, *upd.Total)
	}
	if upd.CurrentCase != nil {
		set, args = append(set, "current_case = ?"), append(args, *upd.CurrentCase)
	}
	if upd.Summary != nil {
		set, args = append(set, "summary = ?"), append(args, *upd.Summary)
	}
	if len(set) == 0 {
		return nil
	}
	res, err := s.exec(ctx, "UpdateEvalRun", `UPDATE eval_runs SET `+strings.Join(set, ", ")+` WHERE id = ? AND status = 'running'`,
		append(args, id)...)
	if err != nil {
		return fmt.Errorf("store: update eval run %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
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
	tx, err := s.begin(ctx, "SaveEvalResult")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Only a running run takes results: once cancelled (or finished) its
	// counts stay as they were, whenever the runner notices.
	counter := map[string]string{"passed": "passed", "failed": "failed", "error": "failed", "skipped": "skipped"}[res.Status]
	u, err := tx.ExecContext(ctx, `
		UPDATE eval_runs SET done = done + 1, `+counter+` = `+counter+` + 1, tokens = tokens + ?, cost = cost + ?
		WHERE id = ? AND status = 'running'`, tokens, cost, res.RunID)
	if err != nil {
		return fmt.Errorf("store: count eval result: %w", err)
	}
	if n, _ := u.RowsAffected(); n == 0 {
		return nil
	}
	// A forget removed a copy of live events the run made (eval_copies):
	// the case may quote copied text no fingerprint names.
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
	r, err := tx.ExecContext(ctx, `
		INSERT INTO eval_results (run_id, case_id, kind, status, reason, detail, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, case_id) DO NOTHING`,
		res.RunID, res.CaseID, res.Kind, res.Status, res.Reason, res.Detail, formatTime(tx.now))
	if err != nil {
		return mapError(err, "Eval result "+res.CaseID)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return nil // stored before (a resumed run); the rollback undoes the count
	}
	res.ID, _ = r.LastInsertId()
	res.CreatedAt = tx.now
	return tx.Commit()
}

// FindEvalResults lists the results of a run in the order they were stored.
func (s *Store) FindEvalResults(ctx context.Context, runID int64) ([]*evalrow.ResultRow, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, run_id, case_id, kind, status, reason, detail, created_at
		FROM eval_results WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: find eval results: %w", err)
	}
	defer rows.Close()
	var out []*evalrow.ResultRow
	for rows.Next() {
		var (
			r       evalrow.ResultRow
			created string
		)
		if err := rows.Scan(&r.ID, &r.RunID, &r.CaseID, &r.Kind, &r.Status, &r.Reason, &r.Detail, &created); err != nil {
			return nil, fmt.Errorf("store: scan eval result: %w", err)
		}
		r.CreatedAt = parseTime(created)
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
	tx, err := s.begin(ctx, "FinishEvalRun")
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `
		UPDATE eval_runs SET status = ?, summary = ?, error = ?, current_case = '', finished_at = ?
		WHERE id = ? AND status = 'running'`, status, summary, errMsg, formatTime(tx.now), id)
	if err != nil {
		return false, fmt.Errorf("store: finish eval run %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: "eval-runner", Action: "eval.run_finish", ObjectType: "eval_run", ObjectID: fmt.Sprint(id),
		Details: string(status),
	}); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// CancelEvalRun cancels a queued or running run. ENOTFOUND for an unknown
// run, ECONFLICT for one that has already finished.
func (s *Store) CancelEvalRun(ctx context.Context, id int64, actor string) error {
	tx, err := s.begin(ctx, "CancelEvalRun")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	run, err := findEvalRunByID(ctx, tx, id)
	if err != nil {
		return err
	}
	if run.Status.Terminal() {
		return governance.Errorf(governance.ECONFLICT, "The run has already finished (%s).", run.Status)
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE eval_runs SET status = 'cancelled', current_case = '', finished_at = ? WHERE id = ?`,
		formatTime(tx.now), id); err != nil {
		return fmt.Errorf("store: cancel eval run %d: %w", id, err)
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "eval.run_cancel", ObjectType: "eval_run", ObjectID: fmt.Sprint(id),
	}); err != nil {
		return err
	}
	return tx.Commit()
}

// FindRuleChecks returns the code checks (a JSON array) attached to each of
// the given rules; rules without checks are left out.
func (s *Store) FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT id, checks FROM rules WHERE id IN (SELECT value FROM json_each(?)) AND checks NOT IN ('', '[]')`,
		[]any{listArg(ruleIDs)}, rowscan.Keyed[scanner](out))
	if err != nil {
		return nil, fmt.Errorf("store: find rule checks: %w", err)
	}
	return out, nil
}

// SetRuleChecks replaces the code checks (a JSON array, validated by the
// caller) attached to a rule and audits the change.
func (s *Store) SetRuleChecks(ctx context.Context, ruleID int64, checks, actor string) error {
	if checks == "" {
		checks = "[]"
	}
	tx, err := s.begin(ctx, "SetRuleChecks")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var projectID int64
	err = tx.QueryRowContext(ctx, `SELECT project_id FROM rules WHERE id = ?`, ruleID).Scan(&projectID)
	if errors.Is(err, sql.ErrNoRows) {
		return governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	if err != nil {
		return fmt.Errorf("store: set rule checks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rules SET checks = ? WHERE id = ?`, checks, ruleID); err != nil {
		return fmt.Errorf("store: set rule checks: %w", err)
	}
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: actor, Action: "rule.checks_set", ObjectType: "rule", ObjectID: fmt.Sprint(ruleID), ProjectID: projectID,
	}); err != nil {
		return err
	}
	return tx.Commit()
}

// DeleteScratchProjects removes every scratch project (flagged
// governance.Project.Scratch when created) whose slug starts with prefix,
// the run's own; a project that is not flagged is never touched, whatever
// its slug.
func (s *Store) DeleteScratchProjects(ctx context.Context, prefix string) error {
	if prefix == "" {
		return governance.Errorf(governance.EINVALID, "A scratch prefix must name a run.")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM projects WHERE scratch = 1 AND substr(slug, 1, ?) = ? ORDER BY id`, len(prefix), prefix)
	if err != nil {
		return fmt.Errorf("store: find scratch projects: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if err := s.deleteScratchProjects(ctx, ids); err != nil {
		return err
	}
	// The run's copy records go with its scratch projects (a case's own
	// prefix is longer than the run's, so its cleanup keeps them).
	var copies int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM eval_copies WHERE substr(prefix, 1, ?) = ?`, len(prefix), prefix).Scan(&copies); err != nil {
		return fmt.Errorf("store: find eval copies: %w", err)
	}
	if copies == 0 {
		return nil
	}
	tx, err := s.begin(ctx, "DeleteScratchProjects")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM eval_copies WHERE substr(prefix, 1, ?) = ?`, len(prefix), prefix); err != nil {
		return fmt.Errorf("store: remove eval copies: %w", err)
	}
	return tx.Commit()
}

// deleteScratchProjects removes the scratch projects ids. Removing an
// event's terms from the word index one by one (secure-delete) costs
// milliseconds an event, so when the projects hold so many events that
// rewriting each index once costs less (bulkForget, as a large forget
// decides), they go in one transaction that marks their rows deleted and
// rebuilds the indexes at its end; otherwise each goes in a transaction of
// its own. A project gone meanwhile (another cleanup, a forget removing
// copies) is skipped.
func (s *Store) deleteScratchProjects(ctx context.Context, ids []int64) error {
	var events, all int
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM events WHERE project_id IN (SELECT value FROM json_each(?))),
		(SELECT COALESCE(MAX(seq), 0) FROM events)`, listArg(ids)).Scan(&events, &all); err != nil {
		return fmt.Errorf("store: count scratch events: %w", err)
	}
	if !bulkForget(events, all) {
		for _, id := range ids {
			if err := s.DeleteScratchProject(ctx, id); err != nil && governance.ErrorCode(err) != governance.ENOTFOUND {
				return err
			}
		}
		return nil
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	indexes, err := secureIndexes(ctx, tx)
	if err != nil {
		return err
	}
	if err := setSecureDelete(ctx, tx, indexes, false); err != nil {
		return err
	}
	for _, id := range ids {
		if err := deleteScratchProject(ctx, tx, id, true); err != nil && governance.ErrorCode(err) != governance.ENOTFOUND {
			return err
		}
	}
	if err := rewriteIndexes(ctx, tx, indexes); err != nil {
		return err
	}
	if err := setSecureDelete(ctx, tx, indexes, true); err != nil {
		return err
	}
	return tx.Commit()
}

// DeleteScratchProject removes a project an eval run created, with every
// row of every layer that belongs to it (audit rows stay). It refuses any
// project that was not created as a scratch project (EFORBIDDEN).
func (s *Store) DeleteScratchProject(ctx context.Context, projectID int64) error {
	tx, err := s.begin(ctx, "DeleteScratchProject")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := deleteScratchProject(ctx, tx, projectID, false); err != nil {
		return err
	}
	return tx.Commit()
}

// deleteScratchProject removes one scratch project in tx; with rebuild the
// caller rebuilds the full-text indexes before it commits.
func deleteScratchProject(ctx context.Context, tx *Tx, projectID int64, rebuild bool) error {
	var (
		slug    string
		scratch bool
	)
	err := tx.QueryRowContext(ctx, `SELECT slug, scratch FROM projects WHERE id = ?`, projectID).Scan(&slug, &scratch)
	if errors.Is(err, sql.ErrNoRows) {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return fmt.Errorf("store: delete scratch project: %w", err)
	}
	if !scratch {
		return governance.Errorf(governance.EFORBIDDEN, "Project %s is not an eval scratch project.", slug)
	}
	return deleteProjectRows(ctx, tx, &governance.Project{ID: projectID, Slug: slug}, rebuild)
}

// NewTextBaseline opens an empty bare full-text baseline in a new
// temporary directory (store/internal/baseline), for the eval runner's
// retrieval benchmarks; it shares nothing with s.
func (s *Store) NewTextBaseline(ctx context.Context) (evalrow.TextBaseline, error) {
	return baseline.Open(ctx, "")
}

// withholdForgotten withholds the forgotten statements a result's detail
// quotes (governance.WithholdForgotten), reading the suppressions in tx.
func withholdForgotten(ctx context.Context, tx *Tx, detail string) (string, error) {
	return governance.WithholdForgotten(detail, func(fps []string) (map[string]bool, error) {
		forgotten := map[string]bool{}
		if err := queryAll(ctx, tx, `SELECT DISTINCT fingerprint FROM suppressions WHERE fingerprint IN (SELECT value FROM json_each(?))`,
			[]any{listArg(fps)}, func(r scanner) error {
				var fp string
				err := r.Scan(&fp)
				forgotten[fp] = true
				return err
			}); err != nil {
			return nil, fmt.Errorf("store: check eval result: %w", err)
		}
		return forgotten, nil
	})
}
