package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// The forget planner's questions (governance/forgetplan), answered
// with this engine's SQL. Inside the forget's transaction the rules and
// candidates it reads are locked (FOR UPDATE), so two forgets of one rule
// take turns and the second finds it forgotten.

// forgetPlan is a plan and what applying it changed.
type forgetPlan struct {
	*forgetplan.Plan
	// changed are the tables applyForget changed rows of, which the
	// store rewrites after the commit (vacuum.go).
	changed map[string]bool
	// scratch are the eval scratch projects holding copies of the
	// projects' events that applyForget changed or removed (forgetCopies,
	// removeCopies); the rewrite covers their partitions too.
	scratch []int64
	// mirror: the plan forgets, in an eval scratch project, the copy of
	// what another forget forgets (forgetCopies); it has no copies of its own.
	mirror bool
}

// planReader answers the planner from q; lock is "FOR UPDATE" inside the
// forget's transaction, "" for a preview.
type planReader struct {
	q    dbtx
	lock string
}

var _ forgetplan.Reader = planReader{}

func newForgetPlan(p *forgetplan.Plan, err error) (*forgetPlan, error) {
	if err != nil {
		return nil, err
	}
	return &forgetPlan{Plan: p, changed: map[string]bool{}}, nil
}

func planRules(ctx context.Context, q dbtx, lock string, ids []int64, withEvents bool) (*forgetPlan, error) {
	return newForgetPlan(forgetplan.Rules(ctx, planReader{q, lock}, ids, withEvents))
}

func planSubject(ctx context.Context, q dbtx, lock string, projectID int64, subjectID string) (*forgetPlan, error) {
	return newForgetPlan(forgetplan.Subject(ctx, planReader{q, lock}, projectID, subjectID))
}

func planCandidate(ctx context.Context, q dbtx, lock string, id int64, withEvents bool) (*forgetPlan, error) {
	return newForgetPlan(forgetplan.Candidate(ctx, planReader{q, lock}, id, withEvents))
}

func planProject(ctx context.Context, q dbtx, lock string, projectID int64) (*forgetPlan, error) {
	return newForgetPlan(forgetplan.Project(ctx, planReader{q, lock}, projectID))
}

func (r planReader) Rule(ctx context.Context, id int64) (*governance.Rule, error) {
	return findRuleIn(ctx, r.q, id, r.lock)
}

func (r planReader) Rules(ctx context.Context, s forgetplan.RuleSelect) ([]*governance.Rule, error) {
	w := &where{}
	w.add(`r.project_id = ? AND r.status <> 'forgotten'`, s.ProjectID)
	if s.SubjectID != nil {
		w.add(`r.subject_id = ?`, *s.SubjectID)
	}
	if s.Fingerprints != nil {
		w.add(`r.fingerprint = ANY(?)`, s.Fingerprints)
	}
	return r.rules(ctx, w)
}

func (r planReader) SharedRules(ctx context.Context, projectID int64, subjectID string) ([]*governance.Rule, error) {
	w := &where{}
	w.add(`r.project_id = ? AND r.subject_id = '' AND r.status <> 'forgotten'
		AND EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id = ?)
		AND NOT EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id <> ?)`, projectID, subjectID, subjectID)
	return r.rules(ctx, w)
}

func (r planReader) rules(ctx context.Context, w *where) ([]*governance.Rule, error) {
	if r.lock == "" {
		return findRulesIn(ctx, r.q, w)
	}
	var out []*governance.Rule
	err := queryAll(ctx, r.q, `SELECT `+ruleColumns+` FROM rules r WHERE `+w.String()+` ORDER BY r.id `+r.lock, w.args, rowscan.AppendV[pgx.Row](scanRule, &out))
	return out, err
}

func (r planReader) Candidates(ctx context.Context, s forgetplan.CandidateSelect) ([]*governance.Candidate, error) {
	w := &where{}
	if s.ID != 0 {
		w.add(`c.id = ?`, s.ID)
	}
	if s.RuleIDs != nil {
		w.add(`c.rule_id = ANY(?)`, s.RuleIDs)
	}
	if s.GroupIDs != nil {
		w.add(`c.group_id = ANY(?)`, s.GroupIDs)
	}
	if s.ProjectID != 0 {
		w.add(`c.project_id = ?`, s.ProjectID)
	}
	if s.SubjectIDs != nil {
		w.add(`c.subject_id = ANY(?)`, s.SubjectIDs)
	}
	if s.Fingerprints != nil {
		w.add(`c.fingerprint = ANY(?)`, s.Fingerprints)
	}
	if s.EvidenceSeqs != nil {
		w.add(`c.id IN (SELECT candidate_id FROM evidence WHERE event_seq = ANY(?))`, s.EvidenceSeqs)
	}
	switch {
	case s.Unattached:
		w.add(`c.rule_id IS NULL`)
	case s.Loose:
		w.add(`(c.rule_id IS NULL OR c.rule_id IN (SELECT id FROM rules WHERE status IN ('rejected', 'archived', 'forgotten')))`)
	}
	return findCandidatesIn(ctx, r.q, w, r.lock)
}

func (r planReader) Versions(ctx context.Context, ruleIDs []int64) ([]*governance.RuleVersion, error) {
	return ruleVersionsOf(ctx, r.q, ruleIDs)
}

func (r planReader) EventsBySeq(ctx context.Context, seqs []int64, fn func(*governance.Event) error) error {
	return queryAll(ctx, r.q, `SELECT `+eventColumns+` FROM events e WHERE e.seq = ANY($1) AND NOT e.redacted ORDER BY e.seq`,
		[]any{seqs}, func(row pgx.Row) error {
			e, err := scanEvent(row)
			if err != nil {
				return err
			}
			return fn(e)
		})
}

// eventScope is the condition (on events e) of a forget's events.
func eventScope(s forgetplan.EventScope) *where {
	w := &where{}
	w.add(`e.project_id = ?`, s.ProjectID)
	if s.SubjectID != "" {
		w.add(`e.subject_id = ?`, s.SubjectID)
	}
	w.add(`NOT e.redacted`)
	return w
}

func (r planReader) CountEvents(ctx context.Context, s forgetplan.EventScope) (int, error) {
	w := eventScope(s)
	var n int
	if err := r.q.QueryRow(ctx, `SELECT count(*) FROM events e WHERE `+w.String(), w.args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count events: %w", err)
	}
	return n, nil
}

func (r planReader) FirstEvents(ctx context.Context, s forgetplan.EventScope, limit int) ([]*governance.Event, error) {
	w := eventScope(s)
	clause, args := page(w.args, limit, 0)
	var out []*governance.Event
	err := queryAll(ctx, r.q, `SELECT `+eventColumns+` FROM events e WHERE `+w.String()+` ORDER BY e.seq`+clause,
		args, rowscan.AppendV[pgx.Row](scanEvent, &out))
	return out, err
}

func (r planReader) Episodes(ctx context.Context, s forgetplan.EpisodeSelect, fn func(*governance.Episode) error) error {
	w := &where{}
	w.add(`e.project_id = ?`, s.ProjectID)
	switch {
	case s.SubjectID != "":
		w.add(`e.subject_id = ?`, s.SubjectID)
	case s.Sessions != nil:
		w.add(`e.session_id = ANY(?)`, s.Sessions)
	default:
		w.add(`EXISTS (SELECT 1 FROM unnest(?::text[]) t WHERE strpos(e.summary, t) > 0)`, s.Quoting)
	}
	return queryAll(ctx, r.q, `SELECT `+episodeColumns+` FROM episodes e WHERE `+w.String()+` ORDER BY e.id`, w.args, func(row pgx.Row) error {
		e, err := scanEpisode(row)
		if err != nil {
			return err
		}
		return fn(e)
	})
}

func (r planReader) RecallTraces(ctx context.Context, projectID int64, subjectID string) (int, error) {
	var n int
	if err := r.q.QueryRow(ctx, `SELECT count(*) FROM recall_traces WHERE project_id = $1 AND subject_id = $2`,
		projectID, subjectID).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count recall traces: %w", err)
	}
	return n, nil
}

func (r planReader) Memberships(ctx context.Context, projectID int64, subjectID string) (int, error) {
	var n int
	if err := r.q.QueryRow(ctx, `SELECT count(*) FROM memberships WHERE project_id = $1 AND role = 'member' AND subject_id = $2`,
		projectID, subjectID).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count memberships: %w", err)
	}
	return n, nil
}

// restatementLines are the lines a restatement may be: messages, the
// user's or the assistant's, not redacted.
const restatementLines = `NOT e.redacted AND e.kind = 'message' AND e.role IN ('user', 'assistant')`

func (r planReader) SubjectLines(ctx context.Context, projectID int64, subjectID string, terms []string, fn func(int64, string) error) error {
	var lexemes []string
	for _, t := range terms {
		if len(t) <= maxLexemeBytes {
			lexemes = append(lexemes, quoteLexeme(t))
		}
	}
	if len(lexemes) == 0 {
		return nil
	}
	return r.lines(ctx, `SELECT e.seq, e.text FROM events e
		WHERE e.project_id = $1 AND e.subject_id = $2 AND e.words @@ $3::tsquery AND `+restatementLines+` ORDER BY e.seq`,
		[]any{projectID, subjectID, strings.Join(lexemes, " | ")}, fn)
}

func (r planReader) SessionLines(ctx context.Context, projectID int64, sessions []string, fn func(int64, string) error) error {
	return r.lines(ctx, `SELECT e.seq, e.text FROM events e
		WHERE e.project_id = $1 AND e.session_id = ANY($2) AND `+restatementLines+` ORDER BY e.seq`,
		[]any{projectID, sessions}, fn)
}

func (r planReader) lines(ctx context.Context, query string, args []any, fn func(int64, string) error) error {
	err := queryAll(ctx, r.q, query, args, func(row pgx.Row) error { return forgetplan.ScanLine(row, fn) })
	if err != nil {
		return fmt.Errorf("postgres: find restatements: %w", err)
	}
	return nil
}

// ruleVersionsOf returns the versions of the given rules, by rule and version.
func ruleVersionsOf(ctx context.Context, q dbtx, ruleIDs []int64) ([]*governance.RuleVersion, error) {
	if len(ruleIDs) == 0 {
		return nil, nil
	}
	var out []*governance.RuleVersion
	err := queryAll(ctx, q, `SELECT rule_id, version, text, kind, actor, reason, created_at FROM rule_versions
		WHERE rule_id = ANY($1) ORDER BY rule_id, version`, []any{ruleIDs}, func(r pgx.Row) error {
		var v governance.RuleVersion
		if err := r.Scan(&v.RuleID, &v.Version, &v.Text, &v.Kind, &v.Actor, &v.Reason, &v.CreatedAt); err != nil {
			return err
		}
		v.CreatedAt = v.CreatedAt.UTC()
		out = append(out, &v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: rule versions: %w", err)
	}
	return out, nil
}
