package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/rulerows"
)

// The review queue's stored rank (migration 0085, as SQLite's store keeps
// it): the rank of each proposal is kept on its rule with the epoch of its
// inputs; the migration's triggers forget it whenever an input changes.

// FindStaleRanks returns a project's proposals whose rank is not known
// (new, an input changed since, or ranked with another
// governance.RankVersion than version), by id, with the epoch of each
// one's inputs as read.
func (s *Store) FindStaleRanks(ctx context.Context, projectID int64, version int) ([]*governance.Rule, map[int64]int64, error) {
	var st rulerows.Stale
	err := queryAll(ctx, s.pool, `SELECT `+ruleColumns+`, r.rank_epoch FROM rules r
		WHERE r.project_id = $1 AND r.status = 'proposed' AND (r.rank_score IS NULL OR r.rank_version <> $2) ORDER BY r.id`,
		[]any{projectID, version}, rulerows.StaleRows[pgx.Row](scanRule, &st))
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: find stale ranks: %w", err)
	}
	return st.Rules, st.Epochs, nil
}

// SetRanks keeps computed ranks, each only while its rule is still a
// proposal at the epoch the rank was computed from. Each rank is its own
// statement: a rank is a cache of what the rule's inputs say, so keeping
// some of them is as good as keeping all, and holding one rule's row lock
// at a time never deadlocks with a beat that attaches evidence.
func (s *Store) SetRanks(ctx context.Context, ranks []governance.StoredRank) error {
	for _, r := range ranks {
		if _, err := s.pool.Exec(ctx, `UPDATE rules SET rank_score = $1, rank_reasons = $2, rank_version = $3
			WHERE id = $4 AND rank_epoch = $5 AND status = 'proposed'`, r.Rank.Score, rulerows.Reasons(r.Rank), r.Version, r.RuleID, r.Epoch); err != nil {
			return fmt.Errorf("postgres: set ranks: %w", err)
		}
	}
	return nil
}

// FindRankedProposals reads one page of a project's proposals in stored
// rank order (governance.RankedOrder), with their ranks, and how many
// proposals the project has. A proposal whose rank is not known sorts
// last.
func (s *Store) FindRankedProposals(ctx context.Context, projectID int64, offset, limit int) ([]*governance.Rule, []governance.Rank, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM rules WHERE project_id = $1 AND status = 'proposed'`, projectID).Scan(&total); err != nil {
		return nil, nil, 0, fmt.Errorf("postgres: count proposals: %w", err)
	}
	var rules []*governance.Rule
	var ranks []governance.Rank
	err := queryAll(ctx, s.pool, `SELECT `+ruleColumns+`, r.rank_score, r.rank_reasons FROM rules r
		WHERE r.project_id = $1 AND r.status = 'proposed' ORDER BY r.rank_score DESC NULLS LAST, r.id DESC LIMIT $2 OFFSET $3`,
		[]any{projectID, max(limit, 0), max(offset, 0)}, rulerows.Ranked[pgx.Row](scanRule, &rules, &ranks))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("postgres: find ranked proposals: %w", err)
	}
	return rules, ranks, total, nil
}
