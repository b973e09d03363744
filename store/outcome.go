package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// Outcomes (docs/outcomes.md): agents' reports about recalled memories,
// the reviews the heartbeat drafts from harmful ones, and each project's
// outcome policy. What deciding a review does is store/internal/outcome's;
// the SQL is this file's.

const outcomeColumns = `o.id, o.project_id, o.trace_id, o.subject_id, o.item_id, COALESCE(o.rule_id, 0), o.verdict,
	o.note, o.task, o.session_id, o.actor, COALESCE(o.review_id, 0), o.created_at`

func scanOutcome(row scanner) (*governance.OutcomeReport, error) {
	var (
		r       governance.OutcomeReport
		created string
	)
	if err := row.Scan(&r.ID, &r.ProjectID, &r.TraceID, &r.SubjectID, &r.ItemID, &r.RuleID, &r.Verdict,
		&r.Note, &r.Task, &r.SessionID, &r.Actor, &r.ReviewID, &created); err != nil {
		return nil, err
	}
	r.CreatedAt = parseTime(created)
	return &r, nil
}

// SaveOutcome stores one report with its rule's count and its audit row.
// Concurrent reports are written together, one transaction a batch
// (outcome.Batcher): each is its own row with its own audit row, and a
// second report on the same item of the same recall is ECONFLICT for that
// report alone.
func (s *Store) SaveOutcome(ctx context.Context, actor string, r *governance.OutcomeReport) error {
	r.Actor = actor
	return s.outcomes.Do(r, func(batch []*governance.OutcomeReport) ([]error, error) {
		// The batch is written for every caller in it, whichever leads.
		return s.saveOutcomes(context.WithoutCancel(ctx), batch)
	})
}

// saveOutcomes writes a batch of reports in one transaction.
func (s *Store) saveOutcomes(ctx context.Context, batch []*governance.OutcomeReport) ([]error, error) {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	errs := make([]error, len(batch))
	for i, r := range batch {
		res, err := tx.execPrepared(ctx, `
			INSERT INTO recall_outcomes (project_id, trace_id, subject_id, item_id, rule_id, verdict, note, task, session_id, actor, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (trace_id, item_id) DO NOTHING`,
			r.ProjectID, r.TraceID, r.SubjectID, r.ItemID, nullInt(r.RuleID), r.Verdict, r.Note, r.Task, r.SessionID, r.Actor,
			formatTime(tx.now))
		if err != nil {
			// A foreign key (a recall forgotten meanwhile) fails this
			// statement only; the transaction goes on.
			if governance.ErrorCode(mapError(err, "Report")) != governance.ECONFLICT {
				return nil, fmt.Errorf("store: insert outcome: %w", err)
			}
			errs[i] = governance.Errorf(governance.ENOTFOUND, "Recall %d not found.", r.TraceID)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 {
			errs[i] = outcome.ErrReported(r)
			continue
		}
		r.ID, _ = res.LastInsertId()
		r.CreatedAt = tx.now
		if r.RuleID != 0 {
			col := outcome.CountColumn(r.Verdict)
			if _, err := tx.execPrepared(ctx, `
				INSERT INTO rule_outcomes (rule_id, project_id, `+col+`) VALUES (?, ?, 1)
				ON CONFLICT (rule_id) DO UPDATE SET `+col+` = `+col+` + 1`, r.RuleID, r.ProjectID); err != nil {
				return nil, fmt.Errorf("store: count outcome: %w", err)
			}
		}
		if err := appendAudit(ctx, tx, outcome.ReportAudit(r.Actor, r)); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return errs, nil
}

// FindOutcomeTarget reads what a report on recall traceID is checked
// against — its scope, task hash and included items — without decoding
// the whole trace; ENOTFOUND when there is no such recall.
func (s *Store) FindOutcomeTarget(ctx context.Context, traceID int64) (*governance.OutcomeTarget, error) {
	t := &governance.OutcomeTarget{TraceID: traceID}
	var included string
	err := s.read.QueryRowContext(ctx, `
		SELECT project_id, subject_id, task_hash,
			(SELECT json_group_array(json_extract(value, '$.id')) FROM json_each(trace, '$.trace.considered')
				WHERE json_extract(value, '$.included'))
		FROM recall_traces WHERE id = ?`, traceID).Scan(&t.ProjectID, &t.SubjectID, &t.TaskHash, &included)
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Recall %d not found.", traceID)
	}
	if err != nil {
		return nil, fmt.Errorf("store: find outcome target: %w", err)
	}
	if err := json.Unmarshal([]byte(included), &t.Included); err != nil {
		return nil, fmt.Errorf("store: outcome target items: %w", err)
	}
	return t, nil
}

// FindOutcomes lists reports, newest first, with the total count.
func (s *Store) FindOutcomes(ctx context.Context, f governance.OutcomeFilter) ([]*governance.OutcomeReport, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	add := func(cond string, v any) { where, args = append(where, cond), append(args, v) }
	if f.ProjectID != 0 {
		add("o.project_id = ?", f.ProjectID)
	}
	if f.TraceID != 0 {
		add("o.trace_id = ?", f.TraceID)
	}
	if f.RuleID != 0 {
		add("o.rule_id = ?", f.RuleID)
	}
	if f.ReviewID != 0 {
		add("o.review_id = ?", f.ReviewID)
	}
	if f.SubjectID != nil {
		add("o.subject_id = ?", *f.SubjectID)
	}
	var (
		out   []*governance.OutcomeReport
		total int
	)
	err := queryAll(ctx, s.read, `SELECT `+outcomeColumns+`, COUNT(*) OVER () FROM recall_outcomes o
		WHERE `+strings.Join(where, " AND ")+` ORDER BY o.id DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset),
		func(row scanner) error {
			r, err := scanOutcome(countScanner{row, &total})
			if err == nil {
				out = append(out, r)
			}
			return err
		})
	if err != nil {
		return nil, 0, fmt.Errorf("store: find outcomes: %w", err)
	}
	return nonNil(out), total, nil
}

// countScanner reads a row's trailing COUNT(*) OVER () into n.
type countScanner struct {
	row scanner
	n   *int
}

func (c countScanner) Scan(dest ...any) error { return c.row.Scan(append(dest, c.n)...) }

// FindRuleOutcomes returns the report counts of the given rules (rules
// without reports are left out).
func (s *Store) FindRuleOutcomes(ctx context.Context, ruleIDs []int64) (map[int64]governance.OutcomeCounts, error) {
	out := map[int64]governance.OutcomeCounts{}
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT rule_id, helped, not_used, misled, conflicted FROM rule_outcomes
		WHERE rule_id IN (SELECT value FROM json_each(?))`, []any{listArg(ruleIDs)}, func(row scanner) error { return outcome.Counts(row.Scan, out) })
	if err != nil {
		return nil, fmt.Errorf("store: find rule outcomes: %w", err)
	}
	return out, nil
}

// FindOutcomePolicy returns a project's outcome policy (the default when
// it set none).
func (s *Store) FindOutcomePolicy(ctx context.Context, projectID int64) (governance.OutcomePolicy, error) {
	p := governance.DefaultOutcomePolicy(projectID)
	err := s.read.QueryRowContext(ctx, `SELECT threshold, require_no_regression FROM outcome_policies WHERE project_id = ?`,
		projectID).Scan(&p.Threshold, &p.RequireNoRegression)
	if err != nil && !isNoRows(err) {
		return p, fmt.Errorf("store: find outcome policy: %w", err)
	}
	return p, nil
}

// SetOutcomePolicy stores a project's outcome policy with its audit row.
func (s *Store) SetOutcomePolicy(ctx context.Context, actor string, p governance.OutcomePolicy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO outcome_policies (project_id, threshold, require_no_regression) VALUES (?, ?, ?)
		ON CONFLICT (project_id) DO UPDATE SET threshold = excluded.threshold, require_no_regression = excluded.require_no_regression`,
		p.ProjectID, p.Threshold, p.RequireNoRegression); err != nil {
		return fmt.Errorf("store: set outcome policy: %w", err)
	}
	if err := appendAudit(ctx, tx, outcome.PolicyAudit(actor, p)); err != nil {
		return err
	}
	return tx.Commit()
}

const reviewColumns = `v.id, v.project_id, v.rule_id, v.rule_version, COALESCE(v.replacement_id, 0), v.status, v.sessions,
	v.reason, v.case_added, v.decided_by, v.decided_at, v.created_at, v.updated_at`

func scanReview(row scanner) (*governance.OutcomeReview, error) {
	var (
		r                governance.OutcomeReview
		decided          NullTime
		created, updated string
	)
	if err := row.Scan(&r.ID, &r.ProjectID, &r.RuleID, &r.RuleVersion, &r.ReplacementID, &r.Status, &r.Sessions,
		&r.Reason, &r.CaseAdded, &r.DecidedBy, &decided, &created, &updated); err != nil {
		return nil, err
	}
	r.DecidedAt, r.CreatedAt, r.UpdatedAt = decided.Time, parseTime(created), parseTime(updated)
	return &r, nil
}

// FindOutcomeReviews lists reviews, newest first, with the total count.
func (s *Store) FindOutcomeReviews(ctx context.Context, f governance.OutcomeReviewFilter) ([]*governance.OutcomeReview, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if f.ProjectID != 0 {
		where, args = append(where, "v.project_id = ?"), append(args, f.ProjectID)
	}
	if f.ProjectIDs != nil {
		where, args = append(where, "v.project_id IN (SELECT value FROM json_each(?))"), append(args, listArg(f.ProjectIDs))
	}
	if f.RuleID != 0 {
		where, args = append(where, "(v.rule_id = ? OR v.replacement_id = ?)"), append(args, f.RuleID, f.RuleID)
	}
	if len(f.Statuses) > 0 {
		where, args = append(where, "v.status IN (SELECT value FROM json_each(?))"), append(args, listArg(f.Statuses))
	}
	var (
		out   []*governance.OutcomeReview
		total int
	)
	err := queryAll(ctx, s.read, `SELECT `+reviewColumns+`, COUNT(*) OVER () FROM outcome_reviews v
		WHERE `+strings.Join(where, " AND ")+` ORDER BY v.id DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset),
		func(row scanner) error {
			r, err := scanReview(countScanner{row, &total})
			if err == nil {
				out = append(out, r)
			}
			return err
		})
	if err != nil {
		return nil, 0, fmt.Errorf("store: find outcome reviews: %w", err)
	}
	return nonNil(out), total, nil
}

// FindOutcomeReviewByID returns one review; ENOTFOUND when there is none.
func (s *Store) FindOutcomeReviewByID(ctx context.Context, id int64) (*governance.OutcomeReview, error) {
	return findReviewIn(ctx, s.read, id)
}

func findReviewIn(ctx context.Context, q querier, id int64) (*governance.OutcomeReview, error) {
	r, err := scanReview(q.QueryRowContext(ctx, `SELECT `+reviewColumns+` FROM outcome_reviews v WHERE v.id = ?`, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Review not found.")
	}
	return r, err
}

// DecideOutcomeReview accepts or discards an open review, with what
// accepting does to its rules, in one transaction (lifecycle.DecideReview).
func (s *Store) DecideOutcomeReview(ctx context.Context, actor string, id int64, accept bool, reason string, caseAdded bool) (*governance.OutcomeReview, error) {
	wrap := func(tx ruleTx) lifecycle.ReviewTx { return outcomeTx{tx} }
	if err := lifecycle.DecideReviewIn(ctx, ruleStore{s}, wrap, actor, id, accept, reason, caseAdded); err != nil {
		return nil, err
	}
	return s.FindOutcomeReviewByID(ctx, id)
}

// outcomeTx is lifecycle.ReviewTx in SQLite.
type outcomeTx struct{ ruleTx }

func (tx outcomeTx) LockReview(ctx context.Context, id int64) (*governance.OutcomeReview, error) {
	return findReviewIn(ctx, tx.Tx, id)
}

func (tx outcomeTx) SetReviewDecision(ctx context.Context, id int64, status governance.OutcomeReviewStatus, reason, by string, caseAdded bool) (bool, error) {
	return tx.one(ctx, "decide review", `UPDATE outcome_reviews SET status = ?, reason = ?, decided_by = ?, decided_at = ?,
		case_added = ?, updated_at = ? WHERE id = ? AND status = 'open'`,
		status, reason, by, formatTime(tx.now), caseAdded, formatTime(tx.now), id)
}

// LoadOutcomeReviewInput reads what the heartbeat's outcome step decides
// on for one project (governance.PlanOutcomeReviews).
func (s *Store) LoadOutcomeReviewInput(ctx context.Context, projectID int64) (*governance.OutcomeReviewInput, error) {
	in := &governance.OutcomeReviewInput{ProjectID: projectID}
	var err error
	if in.Policy, err = s.FindOutcomePolicy(ctx, projectID); err != nil {
		return nil, err
	}
	err = queryAll(ctx, s.read, `SELECT `+outcomeColumns+` FROM recall_outcomes o
		WHERE o.project_id = ? AND o.review_id IS NULL AND o.rule_id IS NOT NULL AND o.verdict IN ('misled', 'conflicted_with_current')
		ORDER BY o.id`, []any{projectID}, rowscan.Append[scanner](scanOutcome, &in.Reports))
	if err != nil {
		return nil, fmt.Errorf("store: pending outcomes: %w", err)
	}
	if in.Open, _, err = s.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{ProjectID: projectID,
		Statuses: []governance.OutcomeReviewStatus{governance.ReviewOpen}}); err != nil {
		return nil, err
	}
	if len(in.Reports) == 0 && len(in.Open) == 0 {
		return in, nil
	}
	err = queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.project_id = ? AND (r.status IN ('active', 'stale') OR (r.supersedes IS NOT NULL AND r.status = 'proposed'))
		ORDER BY r.id`, []any{projectID}, rowscan.AppendV[scanner](scanRule, &in.Rules))
	if err != nil {
		return nil, fmt.Errorf("store: outcome rules: %w", err)
	}
	return in, nil
}

// ApplyOutcomeReviewPlan writes the outcome step's plan in one transaction:
// reviews opened (or given more evidence) with their reports linked, open
// reviews of rules that left use closed, an audit row each.
func (s *Store) ApplyOutcomeReviewPlan(ctx context.Context, plan *governance.OutcomeReviewPlan) error {
	if plan.Empty() {
		return nil
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := formatTime(tx.now)
	for _, d := range plan.Drafts {
		id := d.ReviewID
		if id == 0 {
			res, err := tx.ExecContext(ctx, `INSERT INTO outcome_reviews (project_id, rule_id, rule_version, replacement_id, sessions, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, plan.ProjectID, d.RuleID, d.RuleVersion, nullInt(d.ReplacementID), d.Sessions, now, now)
			if err != nil {
				return fmt.Errorf("store: open outcome review: %w", mapError(err, "Review of rule"))
			}
			id, _ = res.LastInsertId()
		} else if _, err := tx.ExecContext(ctx, `UPDATE outcome_reviews SET sessions = ?, replacement_id = ?, updated_at = ?
			WHERE id = ? AND status = 'open'`, d.Sessions, nullInt(d.ReplacementID), now, id); err != nil {
			return fmt.Errorf("store: add outcome evidence: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE recall_outcomes SET review_id = ? WHERE review_id IS NULL AND id IN (SELECT value FROM json_each(?))`,
			id, listArg(d.ReportIDs)); err != nil {
			return fmt.Errorf("store: link outcome evidence: %w", err)
		}
		if err := appendAudit(ctx, tx, outcome.ReviewOpenAudit(plan.ProjectID, d, id)); err != nil {
			return err
		}
	}
	for _, id := range plan.Close {
		otx := outcomeTx{ruleTx{tx}}
		ok, err := otx.SetReviewDecision(ctx, id, governance.ReviewDiscarded, governance.ReviewClosedReason, "heartbeat", false)
		if err != nil {
			return err
		}
		if ok {
			if err := appendAudit(ctx, tx, outcome.CloseAudit(plan.ProjectID, id)); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// RecallItemsNow returns, for the recall item ids given (rule:N,
// episode:N, event:N) of project projectID, each one's receipt entry as
// memory holds it now; forgotten, redacted and unknown items are left
// out.
func (s *Store) RecallItemsNow(ctx context.Context, projectID int64, ids []string) (map[string]governance.ReceiptItem, error) {
	out := map[string]governance.ReceiptItem{}
	queries := map[governance.RecallKind]string{
		governance.RecallKindRule:    `SELECT id, version, text FROM rules WHERE project_id = ? AND status <> 'forgotten' AND id IN (SELECT value FROM json_each(?))`,
		governance.RecallKindEpisode: `SELECT id, 0, summary FROM episodes WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))`,
		governance.RecallKindEvent:   `SELECT seq, 0, text FROM events WHERE project_id = ? AND redacted = 0 AND seq IN (SELECT value FROM json_each(?))`,
	}
	for _, q := range outcome.SplitItems(ids) {
		if len(q.IDs) == 0 {
			continue
		}
		if err := queryAll(ctx, s.read, queries[q.Kind], []any{projectID, listArg(q.IDs)}, func(row scanner) error {
			return outcome.ItemRow(q, row.Scan, out)
		}); err != nil {
			return nil, fmt.Errorf("store: recall items now: %w", err)
		}
	}
	return out, nil
}

// RulesStamp names the state of a project's rules: it changes whenever a
// rule of the project is added or changes (a cached comparison of the
// project's eval suites is valid for one stamp).
func (s *Store) RulesStamp(ctx context.Context, projectID int64) (string, error) {
	h := outcome.NewStamp()
	err := queryAll(ctx, s.read, `SELECT id, status, version, paused, COALESCE(expires_at, ''), COALESCE(supersedes, 0), updated_at
		FROM rules WHERE project_id = ? ORDER BY id`, []any{projectID}, func(row scanner) error {
		return h.Add(row.Scan)
	})
	if err != nil {
		return "", fmt.Errorf("store: rules stamp: %w", err)
	}
	return h.String(), nil
}

// execPrepared runs a write statement of a hot path inside the
// transaction through the statement cache (prepared once per connection).
func (t *Tx) execPrepared(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.store.read.stmt(ctx, query)
	if err != nil || st == nil {
		return t.ExecContext(ctx, query, args...)
	}
	return t.StmtContext(ctx, st).ExecContext(ctx, args...)
}
