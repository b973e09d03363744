package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// The forget planner: what one forget removes, built by the same code for
// the preview (outside a transaction) and the forget (inside it).

// forgetPlan is what one forget changes; built by the same code for the
// preview (outside a transaction) and for the forget itself (inside it).
type forgetPlan struct {
	governance.ForgetPreview
	ruleIDs  map[int64]bool
	candIDs  map[int64]bool
	fps      map[int64]map[string]map[string]bool // project → fingerprint → subjects it is forgotten for ("" all)
	ruleSubj map[int64]string                     // the subject of each rule in the plan
	texts    []string                             // forgotten statements, to find quotes of them
	textSet  map[string]bool
	eventSQL string // subject forget: events are selected by this condition
	eventArg []any
	seqs     []int64 // rule forget: events to redact
	// bulk: the forget rewrites so much of the full-text indexes that one
	// rewrite of each index is cheaper than removing each row's terms.
	bulk bool
}

func newForgetPlan() *forgetPlan {
	return &forgetPlan{ruleIDs: map[int64]bool{}, candIDs: map[int64]bool{}, fps: map[int64]map[string]map[string]bool{},
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

// planRules collects what forgetting these rules removes: the rules, any
// other live rule or candidate of the same scope with the same statement,
// their candidates (and unattached members of the same merge groups),
// versions, the episodes quoting them and, withEvents, the evidence events.
func planRules(ctx context.Context, q querier, ids []int64, withEvents bool) (*forgetPlan, error) {
	p := newForgetPlan()
	p.WithEvents = withEvents
	for _, id := range ids {
		r, err := findRuleIn(ctx, q, id)
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
func (p *forgetPlan) expand(ctx context.Context, q querier) error {
	versioned := map[int64]bool{}
	for round := 0; round < 3; round++ {
		grew := false
		// Versions of every rule (earlier wordings are forgotten too).
		var fresh []int64
		for _, r := range p.Rules {
			if !versioned[r.ID] {
				versioned[r.ID] = true
				fresh = append(fresh, r.ID)
			}
		}
		vs, err := findVersionsOf(ctx, q, fresh)
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
		// Candidates of the rules.
		cands, err := findCandidatesIn(ctx, q, `c.rule_id IN (SELECT value FROM json_each(?))`, listArg(sortedIDs(p.ruleIDs)))
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
			cond, args := `r.project_id = ? AND r.status <> 'forgotten' AND r.fingerprint IN (SELECT value FROM json_each(?))`,
				[]any{sk.project, listArg(p.fingerprintsOf(sk.project))}
			if sk.subject != "" {
				cond, args = cond+` AND r.subject_id = ?`, append(args, sk.subject)
			}
			more, err := findRulesIn(ctx, q, cond, args...)
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
			cond := `c.project_id = ? AND c.fingerprint IN (SELECT value FROM json_each(?))`
			args := []any{projectID, listArg(p.fingerprintsOf(projectID))}
			if !subjects[""] {
				var list []string
				for s := range subjects {
					list = append(list, s)
				}
				cond += ` AND c.subject_id IN (SELECT value FROM json_each(?))`
				args = append(args, listArg(list))
			}
			cands, err := findCandidatesIn(ctx, q, cond+` AND (c.rule_id IS NULL OR c.rule_id IN (SELECT id FROM rules WHERE status IN ('rejected', 'archived', 'forgotten')))`, args...)
			if err != nil {
				return err
			}
			for _, c := range cands {
				grew = p.addCandidate(c) || grew
			}
		}
		members, err := findCandidatesIn(ctx, q, `c.group_id IN (SELECT value FROM json_each(?)) AND c.rule_id IS NULL`, listArg(sortedIDs(groups)))
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
func (p *forgetPlan) finish(ctx context.Context, q querier) error {
	slices.SortFunc(p.Rules, func(a, b *governance.Rule) int { return int(a.ID - b.ID) })
	slices.SortFunc(p.Candidates, func(a, b *governance.Candidate) int { return int(a.ID - b.ID) })
	vs, err := findVersionsOf(ctx, q, sortedIDs(p.ruleIDs))
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
	if p.eventSQL == "" && p.WithEvents {
		seqs := map[int64]bool{}
		for _, c := range p.Candidates {
			for _, s := range c.EvidenceSeqs {
				seqs[s] = true
			}
		}
		if err := p.restatements(ctx, q, seqs); err != nil {
			return err
		}
		p.seqs = sortedIDs(seqs)
		p.EventCount = len(p.seqs)
		if err := queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.redacted = 0 ORDER BY e.seq`,
			[]any{listArg(p.seqs)}, func(r scanner) error {
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
	if p.eventSQL != "" {
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM events e WHERE `+p.eventSQL, p.eventArg...).Scan(&p.EventCount); err != nil {
			return fmt.Errorf("store: count events: %w", err)
		}
		if err := queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE `+p.eventSQL+` ORDER BY e.seq`+pageSQL,
			pageArgs(p.eventArg, governance.PreviewEventLimit, 0), func(r scanner) error {
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
	addEpisode := func(e *governance.Episode, rewrite func(string) string) {
		if seen[e.ID] {
			return
		}
		seen[e.ID] = true
		if summary := rewrite(e.Summary); summary != e.Summary {
			p.Episodes = append(p.Episodes, &governance.EpisodeRewrite{Episode: e, Summary: summary})
		}
	}
	blank := func(string) string { return governance.RedactedText }
	dropQuotes := func(summary string) string { return governance.RewriteSummary(summary, quotes) }
	if p.SubjectID != "" {
		// Everything about a subject: its episodes go blank, and every
		// candidate of it is in one of its own sessions.
		eps, err := findEpisodesIn(ctx, q, `project_id = ? AND subject_id = ?`, p.ProjectID, p.SubjectID)
		if err != nil {
			return err
		}
		for _, e := range eps {
			addEpisode(e, blank)
		}
		slices.SortFunc(p.Episodes, func(a, b *governance.EpisodeRewrite) int { return int(a.Episode.ID - b.Episode.ID) })
		return nil
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
		eps, err := findEpisodesIn(ctx, q, `project_id = ? AND session_id IN (SELECT value FROM json_each(?))`, projectID, listArg(ids))
		if err != nil {
			return err
		}
		for _, e := range eps {
			addEpisode(e, dropQuotes)
		}
	}
	for projectID := range projects {
		for _, t := range p.texts {
			eps, err := findEpisodesIn(ctx, q, `project_id = ? AND instr(summary, ?) > 0`, projectID, t)
			if err != nil {
				return err
			}
			for _, e := range eps {
				addEpisode(e, dropQuotes)
			}
		}
	}
	slices.SortFunc(p.Episodes, func(a, b *governance.EpisodeRewrite) int { return int(a.Episode.ID - b.Episode.ID) })
	return nil
}

// planSubject collects "everything about" a subject of a project: every rule
// scoped to it, every project-wide rule whose evidence comes only from its
// events, every candidate and event of it, its episodes and recall traces.
func planSubject(ctx context.Context, q querier, projectID int64, subjectID string) (*forgetPlan, error) {
	if strings.TrimSpace(subjectID) == "" {
		return nil, governance.Errorf(governance.EINVALID, "Name the subject to forget.")
	}
	p := newForgetPlan()
	p.ProjectID, p.SubjectID, p.WithEvents = projectID, subjectID, true
	p.eventSQL, p.eventArg = `e.project_id = ? AND e.subject_id = ? AND e.redacted = 0`, []any{projectID, subjectID}
	own, err := findRulesIn(ctx, q, `r.project_id = ? AND r.subject_id = ? AND r.status <> 'forgotten'`, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, r := range own {
		p.addRule(r)
	}
	shared, err := findRulesIn(ctx, q, `r.project_id = ? AND r.subject_id = '' AND r.status <> 'forgotten'
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
	cands, err := findCandidatesIn(ctx, q, `c.project_id = ? AND c.subject_id = ?`, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		p.addCandidate(c)
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM recall_traces WHERE project_id = ? AND subject_id = ?`,
		projectID, subjectID).Scan(&p.RecallTraces); err != nil {
		return nil, fmt.Errorf("store: count recall traces: %w", err)
	}
	if err := p.finish(ctx, q); err != nil {
		return nil, err
	}
	var all int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&all); err != nil {
		return nil, fmt.Errorf("store: count events: %w", err)
	}
	p.bulk = bulkForget(p.EventCount+len(p.Episodes), all)
	return p, nil
}

// bulkForget decides between removing each forgotten row's terms from the
// full-text indexes (secure-delete: about a millisecond a row) and
// rewriting each index once (optimize: a few microseconds per indexed row
// of the whole database): the rewrite wins for large forgets.
func bulkForget(rows, allRows int) bool {
	return rows >= 1000 && rows*200 > allRows
}

// planCandidate collects a candidate that supports no rule together with
// the unattached members of its merge group of the same subject; a
// candidate that supports a rule goes alone (the rule keeps its other evidence).
func planCandidate(ctx context.Context, q querier, id int64, withEvents bool) (*forgetPlan, error) {
	cands, err := findCandidatesIn(ctx, q, `c.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	c := cands[0]
	p := newForgetPlan()
	p.WithEvents = withEvents
	p.addCandidate(c)
	if c.RuleID == 0 {
		group, err := findCandidatesIn(ctx, q, `c.group_id = ? AND c.rule_id IS NULL AND c.project_id = ? AND c.subject_id = ?`,
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

// restatementTerms bounds the terms of the full-text query that finds the
// lines which may restate a forgotten statement.
const restatementTerms = 64

// restatements adds to seqs the lines that restate a forgotten statement
// (governance.RestatesAny): message lines, the user's or the assistant's,
// of the conversations of the same subject — for a project-wide
// candidate, of its own sessions. A subject's lines are first narrowed by
// the full-text index to those sharing a term with the statements.
func (p *forgetPlan) restatements(ctx context.Context, q querier, seqs map[int64]bool) error {
	if len(p.texts) == 0 {
		return nil
	}
	var terms []string
	seen := map[string]bool{}
	for _, t := range p.texts {
		tokenizer.PhraseTokens(t, func(term string, _ int) {
			if !seen[term] && len(terms) < restatementTerms {
				seen[term] = true
				terms = append(terms, term)
			}
		})
	}
	type scope struct {
		project int64
		subject string
	}
	subjects := map[scope]bool{}
	sessions := map[int64]map[string]bool{}
	for _, c := range p.Candidates {
		if c.SubjectID != "" {
			subjects[scope{c.ProjectID, c.SubjectID}] = true
			continue
		}
		if sessions[c.ProjectID] == nil {
			sessions[c.ProjectID] = map[string]bool{}
		}
		sessions[c.ProjectID][c.SessionID] = true
	}
	check := func(r scanner) error {
		var (
			seq  int64
			text string
		)
		if err := r.Scan(&seq, &text); err != nil {
			return err
		}
		if !seqs[seq] && governance.RestatesAny(text, p.texts) {
			seqs[seq] = true
		}
		return nil
	}
	const lines = `e.redacted = 0 AND e.kind = 'message' AND e.role IN ('user', 'assistant')`
	for _, sc := range sortedScopes(subjects, func(a, b scope) int {
		return cmp.Or(cmp.Compare(a.project, b.project), strings.Compare(a.subject, b.subject))
	}) {
		if len(terms) == 0 {
			break
		}
		match := anyTermMatch(sc.project, []string{sc.subject}, terms)
		if err := queryAll(ctx, q, `SELECT e.seq, e.text FROM events_words w JOIN events e ON e.seq = w.rowid
			WHERE events_words MATCH ? AND e.project_id = ? AND e.subject_id = ? AND `+lines+` ORDER BY e.seq`,
			[]any{match, sc.project, sc.subject}, check); err != nil {
			return fmt.Errorf("store: find restatements: %w", err)
		}
	}
	for projectID, ss := range sessions {
		ids := make([]string, 0, len(ss))
		for s := range ss {
			ids = append(ids, s)
		}
		slices.Sort(ids)
		if err := queryAll(ctx, q, `SELECT e.seq, e.text FROM events e
			WHERE e.project_id = ? AND e.session_id IN (SELECT value FROM json_each(?)) AND `+lines+` ORDER BY e.seq`,
			[]any{projectID, listArg(ids)}, check); err != nil {
			return fmt.Errorf("store: find restatements: %w", err)
		}
	}
	return nil
}

func sortedScopes[K comparable](m map[K]bool, compare func(a, b K) int) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compare)
	return out
}
