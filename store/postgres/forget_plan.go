package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
)

// The forget planner: what one forget removes, built by the same code for
// the preview (outside a transaction) and the forget (inside it, where the
// rules and candidates it removes are locked, so two forgets of one rule
// take turns and the second finds it forgotten). The same plan as the
// SQLite store's (store/forget_plan.go), over this engine's SQL.

type forgetPlan struct {
	governance.ForgetPreview
	lock     string // "FOR UPDATE" inside the forget's transaction, "" for a preview
	ruleIDs  map[int64]bool
	candIDs  map[int64]bool
	fps      map[int64]map[string]map[string]bool // project → fingerprint → subjects it is forgotten for ("" all)
	ruleSubj map[int64]string                     // the subject of each rule in the plan
	texts    []string                             // forgotten statements, to find quotes of them
	textSet  map[string]bool
	events   *where  // subject or project forget: the events to redact (aliased e)
	seqs     []int64 // rule or candidate forget: the events to redact
}

func newForgetPlan(lock string) *forgetPlan {
	return &forgetPlan{lock: lock, ruleIDs: map[int64]bool{}, candIDs: map[int64]bool{}, fps: map[int64]map[string]map[string]bool{},
		ruleSubj: map[int64]string{}, textSet: map[string]bool{}}
}

// addFingerprint records a forgotten statement and the subject it is
// forgotten for: a subject forget's subject whatever the statement, else
// the subject of the rule it belongs to ("" for a project-wide rule).
func (p *forgetPlan) addFingerprint(projectID int64, subject, text string) {
	if text == "" || text == governance.RedactedText {
		return
	}
	if p.SubjectID != "" {
		subject = p.SubjectID
	}
	if p.fps[projectID] == nil {
		p.fps[projectID] = map[string]map[string]bool{}
	}
	fp := governance.Fingerprint(text)
	if p.fps[projectID][fp] == nil {
		p.fps[projectID][fp] = map[string]bool{}
	}
	p.fps[projectID][fp][subject] = true
	if !p.textSet[text] {
		p.textSet[text] = true
		p.texts = append(p.texts, text)
	}
}

func (p *forgetPlan) addRule(r *governance.Rule) bool {
	if p.ruleIDs[r.ID] || r.Status == governance.RuleForgotten {
		return false
	}
	p.ruleIDs[r.ID] = true
	p.ruleSubj[r.ID] = r.SubjectID
	p.Rules = append(p.Rules, r)
	p.addFingerprint(r.ProjectID, r.SubjectID, r.Text)
	return true
}

func (p *forgetPlan) addCandidate(c *governance.Candidate) bool {
	if p.candIDs[c.ID] {
		return false
	}
	p.candIDs[c.ID] = true
	p.Candidates = append(p.Candidates, c)
	subject := c.SubjectID
	if s, ok := p.ruleSubj[c.RuleID]; ok {
		subject = s
	}
	p.addFingerprint(c.ProjectID, subject, c.Statement)
	return true
}

func (p *forgetPlan) rules(ctx context.Context, q dbtx, cond string, args ...any) ([]*governance.Rule, error) {
	w := &where{}
	w.add(cond, args...)
	if p.lock == "" {
		return findRulesIn(ctx, q, w)
	}
	var out []*governance.Rule
	err := queryAll(ctx, q, `SELECT `+ruleColumns+` FROM rules r WHERE `+w.String()+` ORDER BY r.id `+p.lock, w.args, func(r pgx.Row) error {
		rule, err := scanRule(r)
		if err == nil {
			out = append(out, rule)
		}
		return err
	})
	return out, err
}

func (p *forgetPlan) candidates(ctx context.Context, q dbtx, cond string, args ...any) ([]*governance.Candidate, error) {
	w := &where{}
	w.add(cond, args...)
	return findCandidatesIn(ctx, q, w, p.lock)
}

// planRules collects what forgetting these rules removes: the rules, any
// other live rule or candidate of the same scope with the same statement,
// their candidates (and unattached members of the same merge groups),
// versions, the episodes quoting them and, withEvents, the evidence events.
func planRules(ctx context.Context, q dbtx, lock string, ids []int64, withEvents bool) (*forgetPlan, error) {
	p := newForgetPlan(lock)
	p.WithEvents = withEvents
	for _, id := range ids {
		r, err := findRuleIn(ctx, q, id, lock)
		if err != nil {
			return nil, err
		}
		if r.Status == governance.RuleForgotten {
			return nil, governance.Errorf(governance.ECONFLICT, "Rule %d is already forgotten.", id)
		}
		p.addRule(r)
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	return p, p.finish(ctx, q)
}

// expand follows rules to their versions and candidates, and statements to
// the rules and candidates of the same scope that say the same.
func (p *forgetPlan) expand(ctx context.Context, q dbtx) error {
	versioned := map[int64]bool{}
	for round := 0; round < 3; round++ {
		grew := false
		var fresh []int64
		for _, r := range p.Rules {
			if !versioned[r.ID] {
				versioned[r.ID] = true
				fresh = append(fresh, r.ID)
			}
		}
		vs, err := ruleVersionsOf(ctx, q, fresh)
		if err != nil {
			return err
		}
		byID := make(map[int64]*governance.Rule, len(p.Rules))
		for _, r := range p.Rules {
			byID[r.ID] = r
		}
		for _, v := range vs {
			r := byID[v.RuleID]
			p.addFingerprint(r.ProjectID, r.SubjectID, v.Text)
		}
		cands, err := p.candidates(ctx, q, `c.rule_id = ANY(?)`, sortedIDs(p.ruleIDs))
		if err != nil {
			return err
		}
		for _, c := range cands {
			grew = p.addCandidate(c) || grew
		}
		// Same statement, same scope: other rules, and candidates not
		// attached to a rule that stays (including merge-group members).
		type scopeKey struct {
			project int64
			subject string
		}
		scopes := map[scopeKey]bool{}
		for _, r := range p.Rules {
			subject := r.SubjectID
			if p.SubjectID != "" {
				subject = p.SubjectID
			}
			scopes[scopeKey{r.ProjectID, subject}] = true
		}
		for sk := range scopes {
			cond, args := `r.project_id = ? AND r.status <> 'forgotten' AND r.fingerprint = ANY(?)`, []any{sk.project, p.fingerprintsOf(sk.project)}
			if sk.subject != "" {
				cond, args = cond+` AND r.subject_id = ?`, append(args, sk.subject)
			}
			more, err := p.rules(ctx, q, cond, args...)
			if err != nil {
				return err
			}
			for _, m := range more {
				grew = p.addRule(m) || grew
			}
		}
		groups := map[int64]bool{}
		for _, c := range p.Candidates {
			groups[c.GroupID] = true
		}
		for projectID := range p.fps {
			subjects := p.subjectsOf(projectID)
			cond := `c.project_id = ? AND c.fingerprint = ANY(?)`
			args := []any{projectID, p.fingerprintsOf(projectID)}
			if !subjects[""] {
				var list []string
				for s := range subjects {
					list = append(list, s)
				}
				cond += ` AND c.subject_id = ANY(?)`
				args = append(args, list)
			}
			cands, err := p.candidates(ctx, q, cond+` AND (c.rule_id IS NULL OR c.rule_id IN (SELECT id FROM rules WHERE status IN ('rejected', 'archived', 'forgotten')))`, args...)
			if err != nil {
				return err
			}
			for _, c := range cands {
				grew = p.addCandidate(c) || grew
			}
		}
		members, err := p.candidates(ctx, q, `c.group_id = ANY(?) AND c.rule_id IS NULL`, sortedIDs(groups))
		if err != nil {
			return err
		}
		for _, c := range members {
			if p.scopeAllows(c) {
				grew = p.addCandidate(c) || grew
			}
		}
		if !grew {
			break
		}
	}
	return nil
}

// scopeAllows keeps a merge-group sweep inside the subjects being forgotten
// (a project-wide rule allows every subject of its project).
func (p *forgetPlan) scopeAllows(c *governance.Candidate) bool {
	subjects := p.subjectsOf(c.ProjectID)
	return subjects[""] || subjects[c.SubjectID]
}

func (p *forgetPlan) fingerprintsOf(projectID int64) []string {
	out := make([]string, 0, len(p.fps[projectID]))
	for fp := range p.fps[projectID] {
		out = append(out, fp)
	}
	slices.Sort(out)
	return out
}

// subjectsOf are the scopes of the rules being forgotten in a project ("" =
// project-wide); for a subject forget, that subject.
func (p *forgetPlan) subjectsOf(projectID int64) map[string]bool {
	if p.SubjectID != "" {
		return map[string]bool{p.SubjectID: true}
	}
	out := map[string]bool{}
	for _, r := range p.Rules {
		if r.ProjectID == projectID {
			out[r.SubjectID] = true
		}
	}
	for _, c := range p.Candidates {
		if c.ProjectID == projectID && !out[""] {
			out[c.SubjectID] = true
		}
	}
	return out
}

// finish gathers versions, events and episodes once rules and candidates are known.
func (p *forgetPlan) finish(ctx context.Context, q dbtx) error {
	slices.SortFunc(p.Rules, func(a, b *governance.Rule) int { return int(a.ID - b.ID) })
	slices.SortFunc(p.Candidates, func(a, b *governance.Candidate) int { return int(a.ID - b.ID) })
	vs, err := ruleVersionsOf(ctx, q, sortedIDs(p.ruleIDs))
	if err != nil {
		return err
	}
	p.Versions = vs
	projects := map[int64]bool{}
	for _, r := range p.Rules {
		projects[r.ProjectID] = true
	}
	for _, c := range p.Candidates {
		projects[c.ProjectID] = true
	}
	if len(projects) == 1 && p.ProjectID == 0 {
		for id := range projects {
			p.ProjectID = id
		}
	}
	for id := range projects {
		p.Fingerprints += len(p.fps[id])
	}

	// Events: a subject forget redacts all of the subject's; a rule forget,
	// when asked, the events its candidates rest on.
	var quotes []string
	quotes = append(quotes, p.texts...)
	if p.events == nil && p.WithEvents {
		seqs := map[int64]bool{}
		for _, c := range p.Candidates {
			for _, s := range c.EvidenceSeqs {
				seqs[s] = true
			}
		}
		p.seqs = sortedIDs(seqs)
		p.EventCount = len(p.seqs)
		if err := queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE e.seq = ANY($1) AND NOT e.redacted ORDER BY e.seq`,
			[]any{p.seqs}, func(r pgx.Row) error {
				e, err := scanEvent(r)
				if err != nil {
					return err
				}
				quotes = append(quotes, e.Text)
				if len(p.Events) < governance.PreviewEventLimit {
					p.Events = append(p.Events, e)
				}
				return nil
			}); err != nil {
			return err
		}
	}
	if p.events != nil {
		if err := q.QueryRow(ctx, `SELECT count(*) FROM events e WHERE `+p.events.String(), p.events.args...).Scan(&p.EventCount); err != nil {
			return fmt.Errorf("postgres: count events: %w", err)
		}
		limit, args := page(p.events.args, governance.PreviewEventLimit, 0)
		if err := queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE `+p.events.String()+` ORDER BY e.seq`+limit,
			args, func(r pgx.Row) error {
				e, err := scanEvent(r)
				if err == nil {
					p.Events = append(p.Events, e)
				}
				return err
			}); err != nil {
			return err
		}
	}

	// Episodes: those of the subject go blank; those of the candidates'
	// sessions, or quoting a forgotten statement, lose the quoting sentences.
	seen := map[int64]bool{}
	addEpisodes := func(rewrite func(string) string, cond string, args ...any) error {
		return queryAll(ctx, q, `SELECT `+episodeColumns+` FROM episodes e WHERE `+cond+` ORDER BY e.id`, args, func(r pgx.Row) error {
			e, err := scanEpisode(r)
			if err != nil || seen[e.ID] {
				return err
			}
			seen[e.ID] = true
			if summary := rewrite(e.Summary); summary != e.Summary {
				p.Episodes = append(p.Episodes, &governance.EpisodeRewrite{Episode: e, Summary: summary})
			}
			return nil
		})
	}
	blank := func(string) string { return governance.RedactedText }
	dropQuotes := func(summary string) string { return governance.RewriteSummary(summary, quotes) }
	if p.SubjectID != "" {
		// Everything about a subject: its episodes go blank, and every
		// candidate of it is in one of its own sessions.
		return addEpisodes(blank, `e.project_id = $1 AND e.subject_id = $2`, p.ProjectID, p.SubjectID)
	}
	sessions := map[int64]map[string]bool{}
	for _, c := range p.Candidates {
		if sessions[c.ProjectID] == nil {
			sessions[c.ProjectID] = map[string]bool{}
		}
		sessions[c.ProjectID][c.SessionID] = true
	}
	for projectID, ss := range sessions {
		ids := make([]string, 0, len(ss))
		for s := range ss {
			ids = append(ids, s)
		}
		slices.Sort(ids)
		if err := addEpisodes(dropQuotes, `e.project_id = $1 AND e.session_id = ANY($2)`, projectID, ids); err != nil {
			return err
		}
	}
	for projectID := range projects {
		if len(p.texts) == 0 {
			continue
		}
		if err := addEpisodes(dropQuotes, `e.project_id = $1 AND EXISTS (SELECT 1 FROM unnest($2::text[]) t WHERE strpos(e.summary, t) > 0)`,
			projectID, p.texts); err != nil {
			return err
		}
	}
	slices.SortFunc(p.Episodes, func(a, b *governance.EpisodeRewrite) int { return int(a.Episode.ID - b.Episode.ID) })
	return nil
}

// planSubject collects "everything about" a subject of a project: every rule
// scoped to it, every project-wide rule whose evidence comes only from its
// events, every candidate and event of it, its episodes and recall traces.
func planSubject(ctx context.Context, q dbtx, lock string, projectID int64, subjectID string) (*forgetPlan, error) {
	if strings.TrimSpace(subjectID) == "" {
		return nil, governance.Errorf(governance.EINVALID, "Name the subject to forget.")
	}
	p := newForgetPlan(lock)
	p.ProjectID, p.SubjectID, p.WithEvents = projectID, subjectID, true
	p.events = &where{}
	p.events.add(`e.project_id = ? AND e.subject_id = ? AND NOT e.redacted`, projectID, subjectID)
	own, err := p.rules(ctx, q, `r.project_id = ? AND r.subject_id = ? AND r.status <> 'forgotten'`, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, r := range own {
		p.addRule(r)
	}
	shared, err := p.rules(ctx, q, `r.project_id = ? AND r.subject_id = '' AND r.status <> 'forgotten'
		AND EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id = ?)
		AND NOT EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id <> ?)`, projectID, subjectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, r := range shared {
		if p.addRule(r) {
			p.SharedRuleIDs = append(p.SharedRuleIDs, r.ID)
		}
	}
	cands, err := p.candidates(ctx, q, `c.project_id = ? AND c.subject_id = ?`, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		p.addCandidate(c)
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	if err := q.QueryRow(ctx, `SELECT count(*) FROM recall_traces WHERE project_id = $1 AND subject_id = $2`,
		projectID, subjectID).Scan(&p.RecallTraces); err != nil {
		return nil, fmt.Errorf("postgres: count recall traces: %w", err)
	}
	return p, p.finish(ctx, q)
}

// planCandidate collects a candidate that supports no rule together with
// the unattached members of its merge group of the same subject; a
// candidate that supports a rule goes alone (the rule keeps its other evidence).
func planCandidate(ctx context.Context, q dbtx, lock string, id int64, withEvents bool) (*forgetPlan, error) {
	p := newForgetPlan(lock)
	p.WithEvents = withEvents
	cands, err := p.candidates(ctx, q, `c.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	c := cands[0]
	p.addCandidate(c)
	if c.RuleID == 0 {
		group, err := p.candidates(ctx, q, `c.group_id = ? AND c.rule_id IS NULL AND c.project_id = ? AND c.subject_id = ?`,
			c.GroupID, c.ProjectID, c.SubjectID)
		if err != nil {
			return nil, err
		}
		for _, g := range group {
			p.addCandidate(g)
		}
	}
	return p, p.finish(ctx, q)
}

// planProject is the forget of everything a project holds: every rule and
// candidate (with their versions) and every event.
func planProject(ctx context.Context, q dbtx, lock string, projectID int64) (*forgetPlan, error) {
	p := newForgetPlan(lock)
	p.ProjectID, p.WithEvents = projectID, true
	p.events = &where{}
	p.events.add(`e.project_id = ? AND NOT e.redacted`, projectID)
	rules, err := p.rules(ctx, q, `r.project_id = ? AND r.status <> 'forgotten'`, projectID)
	if err != nil {
		return nil, err
	}
	for _, r := range rules {
		p.addRule(r)
	}
	cands, err := p.candidates(ctx, q, `c.project_id = ?`, projectID)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		p.addCandidate(c)
	}
	if p.Versions, err = ruleVersionsOf(ctx, q, sortedIDs(p.ruleIDs)); err != nil {
		return nil, err
	}
	if err := q.QueryRow(ctx, `SELECT count(*) FROM events e WHERE `+p.events.String(), p.events.args...).Scan(&p.EventCount); err != nil {
		return nil, fmt.Errorf("postgres: count events: %w", err)
	}
	return p, nil
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

// sortedIDs returns the keys of a set in ascending order.
func sortedIDs(set map[int64]bool) []int64 {
	out := make([]int64, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
