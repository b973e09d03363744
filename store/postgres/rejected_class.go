package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/rulerows"
)

// Class rejections of the review queue (governance.RejectedClass): the
// reviewer's actions are lifecycle.RuleActions (RejectClass, LiftClass);
// here are their SQL and the reads.

const rejectedClassColumns = `id, project_id, kind, channel, head, risk, reason, rule_id, actor, created_at, lifted_at, lifted_by`

func scanRejectedClass(r pgx.Row) (*governance.RejectedClass, error) {
	rc := &governance.RejectedClass{}
	var kind, channel, reason string
	err := r.Scan(&rc.ID, &rc.ProjectID, &kind, &channel, &rc.Class.Head, &rc.Class.Risk,
		&reason, &rc.RuleID, &rc.Actor, &rc.CreatedAt, &rc.LiftedAt, &rc.LiftedBy)
	rc.Class.Kind, rc.Class.Channel, rc.Reason = governance.MemoryType(kind), governance.PromotionReason(channel), governance.ClassReason(reason)
	rc.CreatedAt = rc.CreatedAt.UTC()
	if rc.LiftedAt != nil {
		t := rc.LiftedAt.UTC()
		rc.LiftedAt = &t
	}
	return rc, err
}

func (tx ruleTx) InsertRejectedClass(ctx context.Context, rc *governance.RejectedClass) (int64, error) {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM rejected_classes WHERE project_id = $1 AND class_key = $2 AND lifted_at IS NULL`,
		rc.ProjectID, rc.Class.Key()).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: find rejected class: %w", err)
	}
	if n > 0 {
		return 0, governance.Errorf(governance.ECONFLICT, "This class is already rejected.")
	}
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO rejected_classes (project_id, class_key, kind, channel, head, risk, reason, rule_id, actor, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`, rc.ProjectID, rc.Class.Key(), string(rc.Class.Kind),
		string(rc.Class.Channel), rc.Class.Head, rc.Class.Risk, string(rc.Reason), rc.RuleID, rc.Actor, rc.CreatedAt).Scan(&id); err != nil {
		return 0, fmt.Errorf("postgres: insert rejected class: %w", err)
	}
	return id, nil
}

func (tx ruleTx) LiftRejectedClass(ctx context.Context, projectID, id int64, actor string) (*governance.RejectedClass, error) {
	rc, err := scanRejectedClass(tx.QueryRow(ctx, `UPDATE rejected_classes SET lifted_at = $1, lifted_by = $2
		WHERE id = $3 AND project_id = $4 AND lifted_at IS NULL RETURNING `+rejectedClassColumns, tx.now, actor, id, projectID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: lift rejected class: %w", err)
	}
	return rc, nil
}

// FindRejectedClasses lists the class rejections of a project, newest
// first: only the standing ones, or with lifted ones too.
func (s *Store) FindRejectedClasses(ctx context.Context, projectID int64, withLifted bool) ([]*governance.RejectedClass, error) {
	return findRejectedClasses(ctx, s.pool, projectID, withLifted)
}

func findRejectedClasses(ctx context.Context, q dbtx, projectID int64, withLifted bool) ([]*governance.RejectedClass, error) {
	var out []*governance.RejectedClass
	err := queryAll(ctx, q, `SELECT `+rejectedClassColumns+` FROM rejected_classes WHERE project_id = $1 AND ($2 OR lifted_at IS NULL) ORDER BY id DESC`,
		[]any{projectID, withLifted}, rowscan.Append[pgx.Row](scanRejectedClass, &out))
	return out, err
}

// FindEvidenceSpread counts, for each rule, the distinct sessions and
// people among its trusted supporting events (the review queue's rank).
func (s *Store) FindEvidenceSpread(ctx context.Context, ruleIDs []int64) (map[int64]governance.EvidenceSpread, error) {
	out := make(map[int64]governance.EvidenceSpread, len(ruleIDs))
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.pool, `SELECT c.rule_id, count(DISTINCT e.session_id), count(DISTINCT e.subject_id)
		FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
		WHERE c.rule_id = ANY($1) AND e.source <> 'external' GROUP BY c.rule_id`,
		[]any{ruleIDs}, rulerows.Spread[pgx.Row](out))
	return out, err
}
