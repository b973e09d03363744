package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/rulerows"
)

// The review queue's stored rank (migration 0102): the rank of each
// proposal is kept on its rule with the epoch of its inputs; the
// migration's triggers forget it (rank_score NULL, the epoch bumped)
// whenever an input changes, whichever write changes it.

// FindStaleRanks returns a project's proposals whose rank is not known
// (new, an input changed since they were ranked, or ranked with another
// governance.RankVersion than version), by id, with the epoch of each
// one's inputs as read.
func (s *Store) FindStaleRanks(ctx context.Context, projectID int64, version int) ([]*governance.Rule, map[int64]int64, error) {
	var st rulerows.Stale
	err := queryAll(ctx, s.read, `SELECT `+ruleColumns+`, r.rank_epoch FROM rules r INDEXED BY rules_rank_version
		WHERE r.project_id = ? AND r.status = 'proposed' AND (r.rank_score IS NULL OR r.rank_version <> ?) ORDER BY r.id`,
		[]any{projectID, version}, rulerows.StaleRows[scanner](scanRule, &st))
	if err != nil {
		return nil, nil, fmt.Errorf("store: find stale ranks: %w", err)
	}
	return st.Rules, st.Epochs, nil
}

// SetRanks keeps computed ranks, each only while its rule is still a
// proposal at the epoch the rank was computed from.
func (s *Store) SetRanks(ctx context.Context, ranks []governance.StoredRank) error {
	if len(ranks) == 0 {
		return nil
	}
	tx, err := s.begin(ctx, "SetRanks")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `UPDATE rules SET rank_score = ?, rank_reasons = ?, rank_version = ?
		WHERE id = ? AND rank_epoch = ? AND status = 'proposed'`)
	if err != nil {
		return fmt.Errorf("store: set ranks: %w", err)
	}
	defer stmt.Close()
	for _, r := range ranks {
		if _, err := stmt.ExecContext(ctx, r.Rank.Score, rulerows.Reasons(r.Rank), r.Version, r.RuleID, r.Epoch); err != nil {
			return fmt.Errorf("store: set ranks: %w", err)
		}
	}
	return tx.Commit()
}

// FindRankedProposals reads one page of a project's proposals in stored
// rank order (best first, the newer first among equals:
// governance.RankedOrder), with their ranks, and how many proposals the
// project has. A proposal whose rank is not known sorts last; the caller
// ranks those first (FindStaleRanks).
func (s *Store) FindRankedProposals(ctx context.Context, projectID int64, offset, limit int) ([]*governance.Rule, []governance.Rank, int, error) {
	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM rules WHERE project_id = ? AND status = 'proposed'`, projectID).Scan(&total); err != nil {
		return nil, nil, 0, fmt.Errorf("store: count proposals: %w", err)
	}
	var rules []*governance.Rule
	var ranks []governance.Rank
	err := queryAll(ctx, s.read, `SELECT `+ruleColumns+`, r.rank_score, r.rank_reasons FROM rules r
		WHERE r.project_id = ? AND r.status = 'proposed' ORDER BY r.rank_score DESC, r.id DESC LIMIT ? OFFSET ?`,
		[]any{projectID, max(limit, 0), max(offset, 0)}, rulerows.Ranked[scanner](scanRule, &rules, &ranks))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("store: find ranked proposals: %w", err)
	}
	return rules, ranks, total, nil
}
