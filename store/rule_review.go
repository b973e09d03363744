package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/candrows"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// Reads of the review queue: counts per project, the polling version, and
// the rules, candidates and evidence of a page, several at once.

// FindReviewCounts counts proposals, held and blocked candidates per
// project (projectIDs nil: every project), from indexes only.
func (s *Store) FindReviewCounts(ctx context.Context, projectIDs []int64) (map[int64]*governance.ReviewCounts, error) {
	all := func() ([]int64, error) { return queryIDs(ctx, s.read, `SELECT id FROM projects ORDER BY id`) }
	return candrows.ReviewCounts(projectIDs, all, func(id int64, c *governance.ReviewCounts) error {
		if err := s.read.QueryRowContext(ctx, `
			SELECT (SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND status = 'proposed'),
				(SELECT COUNT(*) FROM (SELECT 1 FROM candidates WHERE project_id = ?1 AND status = 'held' LIMIT ?2)),
				(SELECT COUNT(*) FROM (SELECT 1 FROM candidates WHERE project_id = ?1 AND status = 'blocked' LIMIT ?2))`,
			id, governance.ReviewCountCap+1).Scan(&c.Proposed, &c.Held, &c.Blocked); err != nil {
			return fmt.Errorf("store: review counts: %w", err)
		}
		return nil
	})
}

// CountProposals counts the proposals waiting in the given projects (nil:
// every project); the navigation badge shows it.
func (s *Store) CountProposals(ctx context.Context, projectIDs []int64) (int, error) {
	q, args := `SELECT COUNT(*) FROM rules WHERE status = 'proposed'`, []any{}
	if projectIDs != nil {
		q += " AND project_id IN (SELECT value FROM json_each(?))"
		args = []any{listArg(projectIDs)}
	}
	var n int
	if err := s.read.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count proposals: %w", err)
	}
	return n, nil
}

// ReviewQueueVersion changes whenever a tab of a project's review queue
// gains or loses items (status "proposed", "held" or "blocked"), so a
// polling page swaps its table only when a beat or a reviewer changed it.
// It reads a few index entries: for proposals, their count and newest id
// and the newest proposed candidate (new evidence); for a candidate tab,
// its (capped) count and newest id.
func (s *Store) ReviewQueueVersion(ctx context.Context, projectID int64, status governance.CandidateStatus) (string, error) {
	var n, maxID, maxCand int64
	q := `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM candidates WHERE project_id = ?1 AND status = ?2 LIMIT ?3)), 0,
		COALESCE((SELECT id FROM candidates WHERE project_id = ?1 AND status = ?2 ORDER BY id DESC LIMIT 1), 0)`
	if status == governance.CandidateProposed {
		q = `SELECT (SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND status = 'proposed'),
			COALESCE((SELECT id FROM rules WHERE project_id = ?1 AND status = 'proposed' ORDER BY id DESC LIMIT 1), 0),
			COALESCE((SELECT id FROM candidates WHERE project_id = ?1 AND status = ?2 ORDER BY id DESC LIMIT 1), 0)`
	}
	if err := s.read.QueryRowContext(ctx, q, projectID, status, governance.ReviewCountCap+1).Scan(&n, &maxID, &maxCand); err != nil {
		return "", fmt.Errorf("store: review version: %w", err)
	}
	return fmt.Sprintf("%s.%d.%d.%d", status, n, maxID, maxCand), nil
}

// FindRulesByIDs returns the rules with these ids (missing ones are left out), by id.
func (s *Store) FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error) {
	var out []*governance.Rule
	if len(ids) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM rules r WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY r.id`,
		[]any{listArg(ids)}, rowscan.AppendV[scanner](scanRule, &out))
	return out, err
}

// candidateColumnsBare are the candidate columns with an empty evidence
// list: the lists come from one join instead of a subquery per candidate.
var candidateColumnsBare = strings.Replace(candidateColumns,
	"(SELECT COALESCE(group_concat(event_seq), '') FROM evidence v WHERE v.candidate_id = c.id)", "''", 1)

// candidatesByIDs loads candidates by id, or by the rules they support,
// with their evidence seqs.
func (s *Store) candidatesByIDs(ctx context.Context, column string, ids []int64) ([]*governance.Candidate, error) {
	set := candrows.NewSet(nil)
	if len(ids) == 0 {
		return set.List, nil
	}
	if err := queryAll(ctx, s.read, `SELECT `+candidateColumnsBare+` FROM candidates c WHERE c.`+column+` IN (SELECT value FROM json_each(?)) ORDER BY c.id`,
		[]any{listArg(ids)}, candrows.Add(set, scanCandidate)); err != nil {
		return nil, err
	}
	err := queryAll(ctx, s.read, `SELECT candidate_id, event_seq FROM evidence WHERE candidate_id IN (SELECT value FROM json_each(?)) ORDER BY candidate_id, event_seq`,
		[]any{listArg(set.IDs())}, candrows.Evidence[scanner](set))
	return set.List, err
}

// CountRuleCandidates counts the candidates supporting each of the rules.
func (s *Store) CountRuleCandidates(ctx context.Context, ruleIDs []int64) (map[int64]int, error) {
	out := make(map[int64]int, len(ruleIDs))
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.read, `SELECT rule_id, COUNT(*) FROM candidates WHERE rule_id IN (SELECT value FROM json_each(?)) GROUP BY rule_id`,
		[]any{listArg(ruleIDs)}, rowscan.Keyed[scanner](out))
	return out, err
}

// FindEvidenceByRules returns the evidence chain of several rules at once,
// keyed by rule id (the review queue shows a page of proposals).
func (s *Store) FindEvidenceByRules(ctx context.Context, ruleIDs []int64) (map[int64][]*governance.EvidenceLink, error) {
	cands, err := s.candidatesByIDs(ctx, "rule_id", ruleIDs)
	if err != nil {
		return nil, err
	}
	links, err := s.FindCandidateEvidence(ctx, cands)
	if err != nil {
		return nil, err
	}
	return candrows.ByRule(links), nil
}

// FindCandidateEvidence returns candidates with their supporting events.
func (s *Store) FindCandidateEvidence(ctx context.Context, cands []*governance.Candidate) ([]*governance.EvidenceLink, error) {
	seqs, _ := candrows.Seqs(cands)
	events := make(map[int64]*governance.Event, len(seqs))
	if err := s.eventsBySeq(ctx, seqs, events); err != nil {
		return nil, err
	}
	return candrows.Links(cands, events), nil
}
