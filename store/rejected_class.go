package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/rulerows"
)

// Class rejections of the review queue (governance.RejectedClass): the
// reviewer's actions are lifecycle.RuleActions (RejectClass, LiftClass);
// here are their SQL and the reads.

const rejectedClassColumns = `id, project_id, kind, channel, head, risk, reason, rule_id, actor, created_at, lifted_at, lifted_by`

func scanRejectedClass(r scanner) (*governance.RejectedClass, error) {
	rc := &governance.RejectedClass{}
	var created string
	var lifted NullTime
	err := r.Scan(&rc.ID, &rc.ProjectID, &rc.Class.Kind, &rc.Class.Channel, &rc.Class.Head, &rc.Class.Risk,
		&rc.Reason, &rc.RuleID, &rc.Actor, &created, &lifted, &rc.LiftedBy)
	rc.CreatedAt, rc.LiftedAt = parseTime(created), lifted.Time
	return rc, err
}

func (tx ruleTx) InsertRejectedClass(ctx context.Context, rc *governance.RejectedClass) (int64, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM rejected_classes WHERE project_id = ? AND class_key = ? AND lifted_at IS NULL`,
		rc.ProjectID, rc.Class.Key()).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: find rejected class: %w", err)
	}
	if n > 0 {
		return 0, governance.Errorf(governance.ECONFLICT, "This class is already rejected.")
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO rejected_classes (project_id, class_key, kind, channel, head, risk, reason, rule_id, actor, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rc.ProjectID, rc.Class.Key(), rc.Class.Kind, rc.Class.Channel, rc.Class.Head,
		rc.Class.Risk, rc.Reason, rc.RuleID, rc.Actor, formatTime(rc.CreatedAt))
	if err != nil {
		return 0, fmt.Errorf("store: insert rejected class: %w", err)
	}
	return res.LastInsertId()
}

func (tx ruleTx) LiftRejectedClass(ctx context.Context, projectID, id int64, actor string) (*governance.RejectedClass, error) {
	rc, err := scanRejectedClass(tx.QueryRowContext(ctx, `UPDATE rejected_classes SET lifted_at = ?, lifted_by = ?
		WHERE id = ? AND project_id = ? AND lifted_at IS NULL RETURNING `+rejectedClassColumns, formatTime(tx.now), actor, id, projectID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: lift rejected class: %w", err)
	}
	return rc, nil
}

// FindRejectedClasses lists the class rejections of a project, newest
// first: only the standing ones, or with lifted ones too.
func (s *Store) FindRejectedClasses(ctx context.Context, projectID int64, withLifted bool) ([]*governance.RejectedClass, error) {
	return findRejectedClasses(ctx, s.read, projectID, withLifted)
}

func findRejectedClasses(ctx context.Context, q querier, projectID int64, withLifted bool) ([]*governance.RejectedClass, error) {
	var out []*governance.RejectedClass
	err := queryAll(ctx, q, `SELECT `+rejectedClassColumns+` FROM rejected_classes WHERE project_id = ? AND (? OR lifted_at IS NULL) ORDER BY id DESC`,
		[]any{projectID, withLifted}, rowscan.Append[scanner](scanRejectedClass, &out))
	return out, err
}

// FindEvidenceSpread counts, for each rule, the distinct sessions and
// people among its trusted supporting events (the review queue's rank).
func (s *Store) FindEvidenceSpread(ctx context.Context, ruleIDs []int64) (map[int64]governance.EvidenceSpread, error) {
	out := make(map[int64]governance.EvidenceSpread, len(ruleIDs))
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT c.rule_id, COUNT(DISTINCT e.session_id), COUNT(DISTINCT e.subject_id)
		FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
		WHERE c.rule_id IN (SELECT value FROM json_each(?)) AND e.source <> 'external' GROUP BY c.rule_id`,
		[]any{listArg(ruleIDs)}, rulerows.Spread[scanner](out))
	return out, err
}
