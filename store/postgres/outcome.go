package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/lifecycle"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// Outcomes (docs/outcomes.md), as the SQLite store keeps them: reports,
// per-rule counts, reviews and each project's policy. What deciding a
// review does is store/internal/outcome's.

const outcomeColumns = `o.id, o.project_id, o.trace_id, o.subject_id, o.item_id, COALESCE(o.rule_id, 0), o.verdict,
	o.note, o.task, o.session_id, o.actor, COALESCE(o.review_id, 0), o.created_at`

func scanOutcome(row pgx.Row, extra ...any) (*governance.OutcomeReport, error) {
	var r governance.OutcomeReport
	if err := row.Scan(append([]any{&r.ID, &r.ProjectID, &r.TraceID, &r.SubjectID, &r.ItemID, &r.RuleID, &r.Verdict,
		&r.Note, &r.Task, &r.SessionID, &r.Actor, &r.ReviewID, &r.CreatedAt}, extra...)...); err != nil {
		return nil, err
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

// SaveOutcome stores one report with its rule's count and its audit row,
// in one transaction. A second report on the same item of the same
// recall is ECONFLICT.
func (s *Store) SaveOutcome(ctx context.Context, actor string, r *governance.OutcomeReport) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	err = tx.QueryRow(ctx, `
		INSERT INTO recall_outcomes (project_id, trace_id, subject_id, item_id, rule_id, verdict, note, task, session_id, actor, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (trace_id, item_id) DO NOTHING RETURNING id`,
		r.ProjectID, r.TraceID, r.SubjectID, r.ItemID, nullID(r.RuleID), string(r.Verdict), r.Note, r.Task, r.SessionID, actor,
		tx.now).Scan(&r.ID)
	if isNoRows(err) {
		return outcome.ErrReported(r)
	}
	if governance.ErrorCode(mapError(err, "Report")) == governance.ECONFLICT {
		// Uniqueness is ON CONFLICT's: what is left is the recall's
		// foreign key (it was forgotten meanwhile).
		return governance.Errorf(governance.ENOTFOUND, "Recall %d not found.", r.TraceID)
	}
	if err != nil {
		return fmt.Errorf("postgres: insert outcome: %w", err)
	}
	r.Actor, r.CreatedAt = actor, tx.now
	if r.RuleID != 0 {
		col := outcome.CountColumn(r.Verdict)
		if _, err := tx.Exec(ctx, `
			INSERT INTO rule_outcomes (rule_id, project_id, `+col+`) VALUES ($1, $2, 1)
			ON CONFLICT (rule_id) DO UPDATE SET `+col+` = rule_outcomes.`+col+` + 1`, r.RuleID, r.ProjectID); err != nil {
			return fmt.Errorf("postgres: count outcome: %w", err)
		}
	}
	if err := appendAudit(ctx, tx, outcome.ReportAudit(actor, r)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// nullID stores an unset id (0) as NULL.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// FindOutcomeTarget reads what a report on recall traceID is checked
// against — its scope, task hash and included items — without decoding
// the whole trace in Go; ENOTFOUND when there is no such recall.
func (s *Store) FindOutcomeTarget(ctx context.Context, traceID int64) (*governance.OutcomeTarget, error) {
	t := &governance.OutcomeTarget{TraceID: traceID}
	err := s.pool.QueryRow(ctx, `
		SELECT project_id, subject_id, task_hash,
			ARRAY(SELECT e->>'id' FROM jsonb_array_elements(trace::jsonb->'trace'->'considered') e WHERE (e->>'included')::boolean)
		FROM recall_traces WHERE id = $1`, traceID).Scan(&t.ProjectID, &t.SubjectID, &t.TaskHash, &t.Included)
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Recall %d not found.", traceID)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find outcome target: %w", err)
	}
	return t, nil
}

// FindOutcomes lists reports, newest first, with the total count.
func (s *Store) FindOutcomes(ctx context.Context, f governance.OutcomeFilter) ([]*governance.OutcomeReport, int, error) {
	w := &where{}
	if f.ProjectID != 0 {
		w.add("o.project_id = ?", f.ProjectID)
	}
	if f.TraceID != 0 {
		w.add("o.trace_id = ?", f.TraceID)
	}
	if f.RuleID != 0 {
		w.add("o.rule_id = ?", f.RuleID)
	}
	if f.ReviewID != 0 {
		w.add("o.review_id = ?", f.ReviewID)
	}
	if f.SubjectID != nil {
		w.add("o.subject_id = ?", *f.SubjectID)
	}
	var (
		out   = []*governance.OutcomeReport{}
		total int
	)
	limit, args := page(w.args, f.Limit, f.Offset)
	err := queryAll(ctx, s.pool, `SELECT `+outcomeColumns+`, count(*) OVER () FROM recall_outcomes o
		WHERE `+w.String()+` ORDER BY o.id DESC`+limit, args, func(row pgx.Row) error {
		r, err := scanOutcome(row, &total)
		if err == nil {
			out = append(out, r)
		}
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find outcomes: %w", err)
	}
	return out, total, nil
}

// FindRuleOutcomes returns the report counts of the given rules (rules
// without reports are left out).
func (s *Store) FindRuleOutcomes(ctx context.Context, ruleIDs []int64) (map[int64]governance.OutcomeCounts, error) {
	out := map[int64]governance.OutcomeCounts{}
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.pool, `SELECT rule_id, helped, not_used, misled, conflicted FROM rule_outcomes WHERE rule_id = ANY($1)`,
		[]any{ruleIDs}, func(row pgx.Row) error { return outcome.Counts(row.Scan, out) })
	if err != nil {
		return nil, fmt.Errorf("postgres: find rule outcomes: %w", err)
	}
	return out, nil
}

// FindOutcomePolicy returns a project's outcome policy (the default when
// it set none).
func (s *Store) FindOutcomePolicy(ctx context.Context, projectID int64) (governance.OutcomePolicy, error) {
	p := governance.DefaultOutcomePolicy(projectID)
	err := s.pool.QueryRow(ctx, `SELECT threshold, require_no_regression FROM outcome_policies WHERE project_id = $1`,
		projectID).Scan(&p.Threshold, &p.RequireNoRegression)
	if err != nil && !isNoRows(err) {
		return p, fmt.Errorf("postgres: find outcome policy: %w", err)
	}
	return p, nil
}

// SetOutcomePolicy stores a project's outcome policy with its audit row.
func (s *Store) SetOutcomePolicy(ctx context.Context, actor string, p governance.OutcomePolicy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if _, err := tx.Exec(ctx, `
		INSERT INTO outcome_policies (project_id, threshold, require_no_regression) VALUES ($1, $2, $3)
		ON CONFLICT (project_id) DO UPDATE SET threshold = excluded.threshold, require_no_regression = excluded.require_no_regression`,
		p.ProjectID, p.Threshold, p.RequireNoRegression); err != nil {
		return fmt.Errorf("postgres: set outcome policy: %w", mapError(err, "Outcome policy"))
	}
	if err := appendAudit(ctx, tx, outcome.PolicyAudit(actor, p)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

const reviewColumns = `v.id, v.project_id, v.rule_id, v.rule_version, COALESCE(v.replacement_id, 0), v.status, v.sessions,
	v.reason, v.case_added, v.decided_by, v.decided_at, v.created_at, v.updated_at`

func scanReview(row pgx.Row, extra ...any) (*governance.OutcomeReview, error) {
	var (
		r       governance.OutcomeReview
		decided *time.Time
	)
	if err := row.Scan(append([]any{&r.ID, &r.ProjectID, &r.RuleID, &r.RuleVersion, &r.ReplacementID, &r.Status, &r.Sessions,
		&r.Reason, &r.CaseAdded, &r.DecidedBy, &decided, &r.CreatedAt, &r.UpdatedAt}, extra...)...); err != nil {
		return nil, err
	}
	if decided != nil {
		t := decided.UTC()
		r.DecidedAt = &t
	}
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return &r, nil
}

// FindOutcomeReviews lists reviews, newest first, with the total count.
func (s *Store) FindOutcomeReviews(ctx context.Context, f governance.OutcomeReviewFilter) ([]*governance.OutcomeReview, int, error) {
	return findReviews(ctx, s.pool, f)
}

func findReviews(ctx context.Context, q dbtx, f governance.OutcomeReviewFilter) ([]*governance.OutcomeReview, int, error) {
	w := &where{}
	if f.ProjectID != 0 {
		w.add("v.project_id = ?", f.ProjectID)
	}
	if f.ProjectIDs != nil {
		w.add("v.project_id = ANY(?)", f.ProjectIDs)
	}
	if f.RuleID != 0 {
		w.add("(v.rule_id = ? OR v.replacement_id = ?)", f.RuleID, f.RuleID)
	}
	if len(f.Statuses) > 0 {
		w.add("v.status = ANY(?)", strs(f.Statuses))
	}
	var (
		out   = []*governance.OutcomeReview{}
		total int
	)
	limit, args := page(w.args, f.Limit, f.Offset)
	err := queryAll(ctx, q, `SELECT `+reviewColumns+`, count(*) OVER () FROM outcome_reviews v
		WHERE `+w.String()+` ORDER BY v.id DESC`+limit, args, func(row pgx.Row) error {
		r, err := scanReview(row, &total)
		if err == nil {
			out = append(out, r)
		}
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find outcome reviews: %w", err)
	}
	return out, total, nil
}

// FindOutcomeReviewByID returns one review; ENOTFOUND when there is none.
func (s *Store) FindOutcomeReviewByID(ctx context.Context, id int64) (*governance.OutcomeReview, error) {
	return findReviewIn(ctx, s.pool, id, "")
}

func findReviewIn(ctx context.Context, q dbtx, id int64, lock string) (*governance.OutcomeReview, error) {
	r, err := scanReview(q.QueryRow(ctx, `SELECT `+reviewColumns+` FROM outcome_reviews v WHERE v.id = $1 `+lock, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Review not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find outcome review: %w", err)
	}
	return r, nil
}

// DecideOutcomeReview accepts or discards an open review, with what
// accepting does to its rules, in one transaction (lifecycle.DecideReview); the
// review's row is locked first, so two reviewers take turns.
func (s *Store) DecideOutcomeReview(ctx context.Context, actor string, id int64, accept bool, reason string, caseAdded bool) (*governance.OutcomeReview, error) {
	wrap := func(tx ruleTx) lifecycle.ReviewTx { return outcomeTx{tx} }
	if err := lifecycle.DecideReviewIn(ctx, ruleStore{s}, wrap, actor, id, accept, reason, caseAdded); err != nil {
		return nil, err
	}
	return s.FindOutcomeReviewByID(ctx, id)
}

// outcomeTx is lifecycle.ReviewTx in PostgreSQL.
type outcomeTx struct{ ruleTx }

func (tx outcomeTx) LockReview(ctx context.Context, id int64) (*governance.OutcomeReview, error) {
	return findReviewIn(ctx, tx.Tx, id, "FOR UPDATE")
}

func (tx outcomeTx) SetReviewDecision(ctx context.Context, id int64, status governance.OutcomeReviewStatus, reason, by string, caseAdded bool) (bool, error) {
	n, err := tx.exec(ctx, "decide review", `UPDATE outcome_reviews SET status = $1, reason = $2, decided_by = $3, decided_at = $4,
		case_added = $5, updated_at = $4 WHERE id = $6 AND status = 'open'`, string(status), reason, by, tx.now, caseAdded, id)
	return n == 1, err
}

// LoadOutcomeReviewInput reads what the heartbeat's outcome step decides
// on for one project (governance.PlanOutcomeReviews).
func (s *Store) LoadOutcomeReviewInput(ctx context.Context, projectID int64) (*governance.OutcomeReviewInput, error) {
	in := &governance.OutcomeReviewInput{ProjectID: projectID}
	var err error
	if in.Policy, err = s.FindOutcomePolicy(ctx, projectID); err != nil {
		return nil, err
	}
	err = queryAll(ctx, s.pool, `SELECT `+outcomeColumns+` FROM recall_outcomes o
		WHERE o.project_id = $1 AND o.review_id IS NULL AND o.rule_id IS NOT NULL AND o.verdict IN ('misled', 'conflicted_with_current')
		ORDER BY o.id`, []any{projectID}, rowscan.AppendV[pgx.Row](scanOutcome, &in.Reports))
	if err != nil {
		return nil, fmt.Errorf("postgres: pending outcomes: %w", err)
	}
	if in.Open, _, err = s.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{ProjectID: projectID,
		Statuses: []governance.OutcomeReviewStatus{governance.ReviewOpen}}); err != nil {
		return nil, err
	}
	if len(in.Reports) == 0 && len(in.Open) == 0 {
		return in, nil
	}
	err = queryAll(ctx, s.pool, `SELECT `+ruleColumns+` FROM rules r
		WHERE r.project_id = $1 AND (r.status IN ('active', 'stale') OR (r.supersedes IS NOT NULL AND r.status = 'proposed'))
		ORDER BY r.id`, []any{projectID}, rowscan.AppendV[pgx.Row](scanRule, &in.Rules))
	if err != nil {
		return nil, fmt.Errorf("postgres: outcome rules: %w", err)
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
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	for _, d := range plan.Drafts {
		id := d.ReviewID
		if id == 0 {
			if err := tx.QueryRow(ctx, `INSERT INTO outcome_reviews (project_id, rule_id, rule_version, replacement_id, sessions, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`, plan.ProjectID, d.RuleID, d.RuleVersion, nullID(d.ReplacementID),
				d.Sessions, tx.now).Scan(&id); err != nil {
				return fmt.Errorf("postgres: open outcome review: %w", mapError(err, "Review of rule"))
			}
		} else if _, err := tx.Exec(ctx, `UPDATE outcome_reviews SET sessions = $1, replacement_id = $2, updated_at = $3
			WHERE id = $4 AND status = 'open'`, d.Sessions, nullID(d.ReplacementID), tx.now, id); err != nil {
			return fmt.Errorf("postgres: add outcome evidence: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE recall_outcomes SET review_id = $1 WHERE review_id IS NULL AND id = ANY($2)`,
			id, d.ReportIDs); err != nil {
			return fmt.Errorf("postgres: link outcome evidence: %w", err)
		}
		if err := appendAudit(ctx, tx, outcome.ReviewOpenAudit(plan.ProjectID, d, id)); err != nil {
			return err
		}
	}
	for _, id := range plan.Close {
		ok, err := outcomeTx{ruleTx{tx}}.SetReviewDecision(ctx, id, governance.ReviewDiscarded, governance.ReviewClosedReason, "heartbeat", false)
		if err != nil {
			return err
		}
		if ok {
			if err := appendAudit(ctx, tx, outcome.CloseAudit(plan.ProjectID, id)); err != nil {
				return err
			}
		}
	}
	return tx.Commit(ctx)
}

// RecallItemsNow returns, for the recall item ids given (rule:N,
// episode:N, event:N) of project projectID, each one's receipt entry as
// memory holds it now; forgotten, redacted and unknown items are left
// out.
func (s *Store) RecallItemsNow(ctx context.Context, projectID int64, ids []string) (map[string]governance.ReceiptItem, error) {
	out := map[string]governance.ReceiptItem{}
	queries := map[governance.RecallKind]string{
		governance.RecallKindRule:    `SELECT id, version, text FROM rules WHERE project_id = $1 AND status <> 'forgotten' AND id = ANY($2)`,
		governance.RecallKindEpisode: `SELECT id, 0, summary FROM episodes WHERE project_id = $1 AND id = ANY($2)`,
		governance.RecallKindEvent:   `SELECT seq, 0, text FROM events WHERE project_id = $1 AND NOT redacted AND seq = ANY($2)`,
	}
	for _, q := range outcome.SplitItems(ids) {
		if len(q.IDs) == 0 {
			continue
		}
		if err := queryAll(ctx, s.pool, queries[q.Kind], []any{projectID, q.IDs}, func(row pgx.Row) error {
			return outcome.ItemRow(q, row.Scan, out)
		}); err != nil {
			return nil, fmt.Errorf("postgres: recall items now: %w", err)
		}
	}
	return out, nil
}

// RulesStamp names the state of a project's rules: it changes whenever a
// rule of the project is added or changes.
func (s *Store) RulesStamp(ctx context.Context, projectID int64) (string, error) {
	h := outcome.NewStamp()
	err := queryAll(ctx, s.pool, `SELECT id, status, version, paused, COALESCE(expires_at::text, ''), COALESCE(supersedes, 0), updated_at::text
		FROM rules WHERE project_id = $1 ORDER BY id`, []any{projectID}, func(row pgx.Row) error {
		return h.Add(row.Scan)
	})
	if err != nil {
		return "", fmt.Errorf("postgres: rules stamp: %w", err)
	}
	return h.String(), nil
}
