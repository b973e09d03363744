package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/candrows"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// Reads of the consolidated layer (candidates with their evidence,
// episodes) and of the review queue, and the reviewer's decisions on a
// held or blocked candidate.

const candidateColumns = `c.id, c.project_id, c.session_id, c.subject_id, c.type, c.statement, c.durable, c.extractor,
	c.status, c.status_reason, c.why_not_placed, c.group_id, COALESCE(c.rule_id, 0), c.fingerprint, c.findings, c.created_at, c.updated_at`

// candidateEvidence is the column of a candidate's evidence seqs, ascending.
const candidateEvidence = `ARRAY(SELECT v.event_seq FROM evidence v WHERE v.candidate_id = c.id ORDER BY v.event_seq)`

func scanCandidate(r pgx.Row, extra ...any) (*governance.Candidate, error) {
	var (
		c                   governance.Candidate
		findings, notPlaced string
	)
	dest := append([]any{&c.ID, &c.ProjectID, &c.SessionID, &c.SubjectID, &c.Type, &c.Statement, &c.Durable, &c.Extractor,
		&c.Status, &c.StatusReason, &notPlaced, &c.GroupID, &c.RuleID, &c.Fingerprint, &findings, &c.CreatedAt, &c.UpdatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(findings), &c.Findings)
	c.WhyNotPlaced = governance.ParseNotPlaced(notPlaced)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return &c, nil
}

// findCandidatesIn lists the candidates matching w with their evidence, by id.
func findCandidatesIn(ctx context.Context, q dbtx, w *where, lock string) ([]*governance.Candidate, error) {
	var out []*governance.Candidate
	err := queryAll(ctx, q, `SELECT `+candidateColumns+`, `+candidateEvidence+` FROM candidates c WHERE `+w.String()+` ORDER BY c.id `+lock,
		w.args, func(r pgx.Row) error {
			var seqs []int64
			c, err := scanCandidate(r, &seqs)
			if err == nil {
				c.EvidenceSeqs = nonEmpty(seqs)
				out = append(out, c)
			}
			return err
		})
	return out, err
}

// nonEmpty is nil for an empty list, as the SQLite store returns none.
func nonEmpty(seqs []int64) []int64 {
	if len(seqs) == 0 {
		return nil
	}
	return seqs
}

// FindCandidates lists candidates with their evidence seqs, oldest first,
// and how many match; with a Limit it reads a page (ids in index order, a
// separate count capped as the filter says).
func (s *Store) FindCandidates(ctx context.Context, f governance.CandidateFilter) ([]*governance.Candidate, int, error) {
	w := candidateWhere(f)
	if f.Limit <= 0 {
		out, err := findCandidatesIn(ctx, s.pool, w, "")
		return out[min(max(f.Offset, 0), len(out)):], len(out), err
	}
	total, err := countRows(ctx, s.pool, "candidates c", w, f.Offset, f.Limit, f.CountCap)
	if err != nil {
		return nil, 0, err
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	ids, err := queryIDs(ctx, s.pool, `SELECT c.id FROM candidates c WHERE `+w.String()+` ORDER BY c.id`+limit, args)
	if err != nil || len(ids) == 0 {
		return nil, total, err
	}
	cands, err := candidatesByIDs(ctx, s.pool, "id", ids)
	return cands, total, err
}

func candidateWhere(f governance.CandidateFilter) *where {
	w := &where{}
	if f.ProjectID != 0 {
		w.add("c.project_id = ?", f.ProjectID)
	}
	if f.ProjectIDs != nil {
		w.add("c.project_id = ANY(?)", f.ProjectIDs)
	}
	if f.SubjectID != nil {
		w.add("c.subject_id = ?", *f.SubjectID)
	}
	if f.SessionID != nil {
		w.add("c.session_id = ?", *f.SessionID)
	}
	if len(f.Statuses) > 0 {
		w.add("c.status = ANY(?)", strs(f.Statuses))
	}
	if f.RuleID != 0 {
		w.add("c.rule_id = ?", f.RuleID)
	}
	if f.EventSeq != 0 {
		w.add("c.id IN (SELECT candidate_id FROM evidence WHERE event_seq = ?)", f.EventSeq)
	}
	return w
}

// FindCandidateByID returns one candidate or ENOTFOUND.
func (s *Store) FindCandidateByID(ctx context.Context, id int64) (*governance.Candidate, error) {
	return candidateIn(ctx, s.pool, id, "")
}

// candidateIn reads one candidate on q (ENOTFOUND when it is gone).
func candidateIn(ctx context.Context, q dbtx, id int64, lock string) (*governance.Candidate, error) {
	w := &where{}
	w.add("c.id = ?", id)
	cands, err := findCandidatesIn(ctx, q, w, lock)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	return cands[0], nil
}

// candidatesByIDs loads candidates by id, or by the rules they support
// (column "rule_id"), with their evidence seqs from one join.
func candidatesByIDs(ctx context.Context, q dbtx, column string, ids []int64) ([]*governance.Candidate, error) {
	set := candrows.NewSet([]*governance.Candidate{})
	if len(ids) == 0 {
		return set.List, nil
	}
	if err := queryAll(ctx, q, `SELECT `+candidateColumns+` FROM candidates c WHERE c.`+column+` = ANY($1) ORDER BY c.id`,
		[]any{ids}, candrows.Add(set, func(r pgx.Row) (*governance.Candidate, error) { return scanCandidate(r) })); err != nil {
		return nil, err
	}
	err := queryAll(ctx, q, `SELECT candidate_id, event_seq FROM evidence WHERE candidate_id = ANY($1) ORDER BY candidate_id, event_seq`,
		[]any{set.IDs()}, candrows.Evidence[pgx.Row](set))
	return set.List, err
}

// CountRuleCandidates counts the candidates supporting each of the rules.
func (s *Store) CountRuleCandidates(ctx context.Context, ruleIDs []int64) (map[int64]int, error) {
	out := make(map[int64]int, len(ruleIDs))
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, s.pool, `SELECT rule_id, count(*) FROM candidates WHERE rule_id = ANY($1) GROUP BY rule_id`,
		[]any{ruleIDs}, rowscan.Keyed[pgx.Row](out))
	return out, err
}

// FindEvidenceByRules returns the evidence chain of several rules at once,
// keyed by rule id.
func (s *Store) FindEvidenceByRules(ctx context.Context, ruleIDs []int64) (map[int64][]*governance.EvidenceLink, error) {
	cands, err := candidatesByIDs(ctx, s.pool, "rule_id", ruleIDs)
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
	seqs, projects := candrows.Seqs(cands)
	events := make(map[int64]*governance.Event, len(seqs))
	if err := eventsBySeq(ctx, s.pool, projects, seqs, events); err != nil {
		return nil, err
	}
	return candrows.Links(cands, events), nil
}

// eventsBySeq loads the given events of projects into m. Naming the
// projects lets the planner read only their partitions of events, so a
// forget's rewrite of another project's partition does not hold it up.
func eventsBySeq(ctx context.Context, q dbtx, projects, seqs []int64, m map[int64]*governance.Event) error {
	if len(seqs) == 0 {
		return nil
	}
	return queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE e.project_id = ANY($1) AND e.seq = ANY($2)`,
		[]any{projects, seqs}, func(r pgx.Row) error {
			e, err := scanEvent(r)
			if err == nil {
				m[e.Seq] = e
			}
			return err
		})
}

// FindEpisodes lists episodes, most recent session first.
func (s *Store) FindEpisodes(ctx context.Context, f governance.EpisodeFilter) ([]*governance.Episode, int, error) {
	w := &where{}
	if f.ProjectID != 0 {
		w.add("e.project_id = ?", f.ProjectID)
	}
	if f.ProjectIDs != nil {
		w.add("e.project_id = ANY(?)", f.ProjectIDs)
	}
	if f.SubjectID != nil {
		w.add("e.subject_id = ?", *f.SubjectID)
	}
	if f.SessionID != nil {
		w.add("e.session_id = ?", *f.SessionID)
	}
	var (
		out   []*governance.Episode
		total int
	)
	limit, args := page(w.args, f.Limit, f.Offset)
	err := queryAll(ctx, s.pool, `SELECT `+episodeColumns+`, count(*) OVER () FROM episodes e WHERE `+w.String()+
		` ORDER BY e.last_seq DESC, e.id DESC`+limit, args, func(r pgx.Row) error {
		e, err := scanEpisode(r, &total)
		if err == nil {
			out = append(out, e)
		}
		return err
	})
	return out, total, err
}

// episodeColumns are the columns scanEpisode reads (episodes aliased e).
const episodeColumns = `e.id, e.project_id, e.session_id, e.subject_id, e.summary, e.first_seq, e.last_seq, e.event_count,
	e.extractor, e.created_at, e.updated_at`

func scanEpisode(r pgx.Row, extra ...any) (*governance.Episode, error) {
	var e governance.Episode
	dest := append([]any{&e.ID, &e.ProjectID, &e.SessionID, &e.SubjectID, &e.Summary, &e.FirstSeq, &e.LastSeq, &e.EventCount,
		&e.Extractor, &e.CreatedAt, &e.UpdatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, fmt.Errorf("postgres: scan episode: %w", err)
	}
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return &e, nil
}

// FindReviewCounts counts proposals, held and blocked candidates per
// project (projectIDs nil: every project), each candidate count stopped
// past governance.ReviewCountCap.
func (s *Store) FindReviewCounts(ctx context.Context, projectIDs []int64) (map[int64]*governance.ReviewCounts, error) {
	all := func() ([]int64, error) { return queryIDs(ctx, s.pool, `SELECT id FROM projects ORDER BY id`, nil) }
	return candrows.ReviewCounts(projectIDs, all, func(id int64, c *governance.ReviewCounts) error {
		if err := s.pool.QueryRow(ctx, `
			SELECT (SELECT count(*) FROM rules WHERE project_id = $1 AND status = 'proposed'),
				(SELECT count(*) FROM (SELECT 1 FROM candidates WHERE project_id = $1 AND status = 'held' LIMIT $2) h),
				(SELECT count(*) FROM (SELECT 1 FROM candidates WHERE project_id = $1 AND status = 'blocked' LIMIT $2) b)`,
			id, governance.ReviewCountCap+1).Scan(&c.Proposed, &c.Held, &c.Blocked); err != nil {
			return fmt.Errorf("postgres: review counts: %w", err)
		}
		return nil
	})
}

// CountProposals counts the proposals waiting in the given projects (nil:
// every project).
func (s *Store) CountProposals(ctx context.Context, projectIDs []int64) (int, error) {
	q, args := `SELECT count(*) FROM rules WHERE status = 'proposed'`, []any{}
	if projectIDs != nil {
		q += " AND project_id = ANY($1)"
		args = []any{projectIDs}
	}
	var n int
	if err := s.pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count proposals: %w", err)
	}
	return n, nil
}

// ReviewQueueVersion changes whenever a tab of a project's review queue
// gains or loses items, in the SQLite store's format: for proposals their
// count, newest id and the newest proposed candidate; for a candidate tab
// its capped count and newest id.
func (s *Store) ReviewQueueVersion(ctx context.Context, projectID int64, status governance.CandidateStatus) (string, error) {
	var n, maxID, maxCand int64
	q := `SELECT (SELECT count(*) FROM (SELECT 1 FROM candidates WHERE project_id = $1 AND status = $2 LIMIT $3) c), 0,
		COALESCE((SELECT max(id) FROM candidates WHERE project_id = $1 AND status = $2), 0)`
	args := []any{projectID, string(status), governance.ReviewCountCap + 1}
	if status == governance.CandidateProposed {
		q = `SELECT (SELECT count(*) FROM rules WHERE project_id = $1 AND status = 'proposed'),
			COALESCE((SELECT max(id) FROM rules WHERE project_id = $1 AND status = 'proposed'), 0),
			COALESCE((SELECT max(id) FROM candidates WHERE project_id = $1 AND status = $2), 0)`
		args = args[:2]
	}
	if err := s.pool.QueryRow(ctx, q, args...).Scan(&n, &maxID, &maxCand); err != nil {
		return "", fmt.Errorf("postgres: review version: %w", err)
	}
	return fmt.Sprintf("%s.%d.%d.%d", status, n, maxID, maxCand), nil
}

// A reviewer's release or rejection of a held or blocked candidate is
// lifecycle.RuleActions (ReleaseCandidate, RejectCandidate); here is their
// SQL.

func (tx ruleTx) LockCandidate(ctx context.Context, id int64) (*governance.Candidate, error) {
	return candidateIn(ctx, tx.Tx, id, "FOR UPDATE OF c")
}

func (tx ruleTx) ReleaseCandidates(ctx context.Context, c *governance.Candidate, ruleID int64, group bool, why string) error {
	q := `UPDATE candidates SET status = 'proposed', status_reason = $1, rule_id = $2, updated_at = $3 WHERE id = $4`
	args := []any{why, ruleID, tx.now, c.ID}
	if group {
		q = `UPDATE candidates SET status = 'proposed', status_reason = $1, rule_id = $2, updated_at = $3
			WHERE project_id = $4 AND status = 'held' AND (id = $5 OR group_id = $6)`
		args = []any{why, ruleID, tx.now, c.ProjectID, c.ID, c.GroupID}
	}
	_, err := tx.exec(ctx, "release candidate", q, args...)
	return err
}

func (tx ruleTx) RejectCandidate(ctx context.Context, id int64, reason string) error {
	_, err := tx.exec(ctx, "reject candidate", `UPDATE candidates SET status = 'rejected', status_reason = $1, updated_at = $2 WHERE id = $3`,
		reason, tx.now, id)
	return err
}
