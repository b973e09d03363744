package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// The forget planner's questions (governance/forgetplan), answered
// with this store's SQL.

// forgetPlan is a plan and how this store applies it.
type forgetPlan struct {
	*forgetplan.Plan
	// bulk: the forget rewrites so much of the full-text indexes that one
	// rewrite of each index is cheaper than removing each row's terms.
	bulk bool
	// mirror: the plan forgets, in an eval scratch project, the copy of
	// what another forget forgets (forgetCopies); it has no copies of its own.
	mirror bool
}

// planReader answers the planner from q.
type planReader struct{ q querier }

var _ forgetplan.Reader = planReader{}

func planRules(ctx context.Context, q querier, ids []int64, withEvents bool) (*forgetPlan, error) {
	p, err := forgetplan.Rules(ctx, planReader{q}, ids, withEvents)
	if err != nil {
		return nil, err
	}
	return &forgetPlan{Plan: p}, nil
}

func planCandidate(ctx context.Context, q querier, id int64, withEvents bool) (*forgetPlan, error) {
	p, err := forgetplan.Candidate(ctx, planReader{q}, id, withEvents)
	if err != nil {
		return nil, err
	}
	return &forgetPlan{Plan: p}, nil
}

func planSubject(ctx context.Context, q querier, projectID int64, subjectID string) (*forgetPlan, error) {
	p, err := forgetplan.Subject(ctx, planReader{q}, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	return withBulk(ctx, q, p, p.EventCount+len(p.Episodes))
}

func planProject(ctx context.Context, q querier, projectID int64) (*forgetPlan, error) {
	p, err := forgetplan.Project(ctx, planReader{q}, projectID)
	if err != nil {
		return nil, err
	}
	return withBulk(ctx, q, p, p.EventCount)
}

// withBulk decides how a forget of rows indexed rows leaves the full-text
// indexes (bulkForget).
func withBulk(ctx context.Context, q querier, p *forgetplan.Plan, rows int) (*forgetPlan, error) {
	var all int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&all); err != nil {
		return nil, fmt.Errorf("store: count events: %w", err)
	}
	return &forgetPlan{Plan: p, bulk: bulkForget(rows, all)}, nil
}

// bulkForget decides between removing each forgotten row's terms from the
// full-text indexes (secure-delete: about a millisecond a row) and
// rewriting each index once (optimize: a few microseconds per indexed row
// of the whole database): the rewrite wins for large forgets.
func bulkForget(rows, allRows int) bool {
	return rows >= 1000 && rows*200 > allRows
}

func (r planReader) Rule(ctx context.Context, id int64) (*governance.Rule, error) {
	return findRuleIn(ctx, r.q, id)
}

func (r planReader) Rules(ctx context.Context, s forgetplan.RuleSelect) ([]*governance.Rule, error) {
	cond, args := `r.project_id = ? AND r.status <> 'forgotten'`, []any{s.ProjectID}
	if s.SubjectID != nil {
		cond, args = cond+` AND r.subject_id = ?`, append(args, *s.SubjectID)
	}
	if s.Fingerprints != nil {
		cond, args = cond+` AND r.fingerprint IN (SELECT value FROM json_each(?))`, append(args, listArg(s.Fingerprints))
	}
	return findRulesIn(ctx, r.q, cond, args...)
}

func (r planReader) SharedRules(ctx context.Context, projectID int64, subjectID string) ([]*governance.Rule, error) {
	return findRulesIn(ctx, r.q, `r.project_id = ? AND r.subject_id = '' AND r.status <> 'forgotten'
		AND EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id = ?)
		AND NOT EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id <> ?)`, projectID, subjectID, subjectID)
}

func (r planReader) Candidates(ctx context.Context, s forgetplan.CandidateSelect) ([]*governance.Candidate, error) {
	where, args := []string{"1 = 1"}, []any{}
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if s.ID != 0 {
		add(`c.id = ?`, s.ID)
	}
	if s.RuleIDs != nil {
		add(`c.rule_id IN (SELECT value FROM json_each(?))`, listArg(s.RuleIDs))
	}
	if s.GroupIDs != nil {
		add(`c.group_id IN (SELECT value FROM json_each(?))`, listArg(s.GroupIDs))
	}
	if s.ProjectID != 0 {
		add(`c.project_id = ?`, s.ProjectID)
	}
	if s.SubjectIDs != nil {
		add(`c.subject_id IN (SELECT value FROM json_each(?))`, listArg(s.SubjectIDs))
	}
	if s.Fingerprints != nil {
		add(`c.fingerprint IN (SELECT value FROM json_each(?))`, listArg(s.Fingerprints))
	}
	if s.EvidenceSeqs != nil {
		add(`c.id IN (SELECT candidate_id FROM evidence WHERE event_seq IN (SELECT value FROM json_each(?)))`, listArg(s.EvidenceSeqs))
	}
	switch {
	case s.Unattached:
		where = append(where, `c.rule_id IS NULL`)
	case s.Loose:
		where = append(where, `(c.rule_id IS NULL OR c.rule_id IN (SELECT id FROM rules WHERE status IN ('rejected', 'archived', 'forgotten')))`)
	}
	return findCandidatesIn(ctx, r.q, strings.Join(where, " AND "), args...)
}

func (r planReader) Versions(ctx context.Context, ruleIDs []int64) ([]*governance.RuleVersion, error) {
	return findVersionsOf(ctx, r.q, ruleIDs)
}

func (r planReader) EventsBySeq(ctx context.Context, seqs []int64, fn func(*governance.Event) error) error {
	return queryAll(ctx, r.q, `SELECT `+eventColumns+` FROM events e WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.redacted = 0 ORDER BY e.seq`,
		[]any{listArg(seqs)}, func(row scanner) error {
			e, err := scanEvent(row)
			if err != nil {
				return err
			}
			return fn(e)
		})
}

// eventScope is the condition (on events e) of a forget's events.
func eventScope(s forgetplan.EventScope) (string, []any) {
	if s.SubjectID == "" {
		return `e.project_id = ? AND e.redacted = 0`, []any{s.ProjectID}
	}
	return `e.project_id = ? AND e.subject_id = ? AND e.redacted = 0`, []any{s.ProjectID, s.SubjectID}
}

func (r planReader) CountEvents(ctx context.Context, s forgetplan.EventScope) (int, error) {
	cond, args := eventScope(s)
	var n int
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM events e WHERE `+cond, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count events: %w", err)
	}
	return n, nil
}

func (r planReader) FirstEvents(ctx context.Context, s forgetplan.EventScope, limit int) ([]*governance.Event, error) {
	cond, args := eventScope(s)
	var out []*governance.Event
	err := queryAll(ctx, r.q, `SELECT `+eventColumns+` FROM events e WHERE `+cond+` ORDER BY e.seq`+pageSQL,
		pageArgs(args, limit, 0), rowscan.AppendV[scanner](scanEvent, &out))
	return out, err
}

func (r planReader) Episodes(ctx context.Context, s forgetplan.EpisodeSelect, fn func(*governance.Episode) error) error {
	var conds []string
	var args [][]any
	switch {
	case s.SubjectID != "":
		conds, args = []string{`project_id = ? AND subject_id = ?`}, [][]any{{s.ProjectID, s.SubjectID}}
	case s.Sessions != nil:
		conds, args = []string{`project_id = ? AND session_id IN (SELECT value FROM json_each(?))`}, [][]any{{s.ProjectID, listArg(s.Sessions)}}
	default:
		for _, t := range s.Quoting {
			conds, args = append(conds, `project_id = ? AND instr(summary, ?) > 0`), append(args, []any{s.ProjectID, t})
		}
	}
	for i, cond := range conds {
		eps, err := findEpisodesIn(ctx, r.q, cond, args[i]...)
		if err != nil {
			return err
		}
		for _, e := range eps {
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r planReader) RecallTraces(ctx context.Context, projectID int64, subjectID string) (int, error) {
	var n int
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM recall_traces WHERE `+subjectTracesWhere,
		projectID, subjectID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count recall traces: %w", err)
	}
	return n, nil
}

func (r planReader) Memberships(ctx context.Context, projectID int64, subjectID string) (int, error) {
	var n int
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships WHERE project_id = ? AND role = 'member' AND subject_id = ?`,
		projectID, subjectID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count memberships: %w", err)
	}
	return n, nil
}

// restatementLines are the lines a restatement may be: messages, the
// user's or the assistant's, not redacted.
const restatementLines = `e.redacted = 0 AND e.kind = 'message' AND e.role IN ('user', 'assistant')`

func (r planReader) SubjectLines(ctx context.Context, projectID int64, subjectID string, terms []string, fn func(int64, string) error) error {
	match := anyTermMatch(projectID, []string{subjectID}, terms)
	return r.lines(ctx, `SELECT e.seq, e.text FROM events_words w JOIN events e ON e.seq = w.rowid
		WHERE events_words MATCH ? AND e.project_id = ? AND e.subject_id = ? AND `+restatementLines+` ORDER BY e.seq`,
		[]any{match, projectID, subjectID}, fn)
}

func (r planReader) SessionLines(ctx context.Context, projectID int64, sessions []string, fn func(int64, string) error) error {
	return r.lines(ctx, `SELECT e.seq, e.text FROM events e
		WHERE e.project_id = ? AND e.session_id IN (SELECT value FROM json_each(?)) AND `+restatementLines+` ORDER BY e.seq`,
		[]any{projectID, listArg(sessions)}, fn)
}

func (r planReader) lines(ctx context.Context, query string, args []any, fn func(int64, string) error) error {
	err := queryAll(ctx, r.q, query, args, func(row scanner) error { return forgetplan.ScanLine(row, fn) })
	if err != nil {
		return fmt.Errorf("store: find restatements: %w", err)
	}
	return nil
}
