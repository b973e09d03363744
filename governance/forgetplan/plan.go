// Package forgetplan decides what one forget removes (docs/forget.md,
// "One planner for the preview and the forget"), built by the same code
// for the preview (outside a transaction) and for the forget (inside it).
// The planner decides; a store backend's Reader answers its questions
// with that backend's SQL, so each backend keeps only its queries and
// this package knows none of them.
package forgetplan

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Reader is what the planner reads. Inside a forget's transaction a store
// may lock the rules and candidates it returns (PostgreSQL does: two
// forgets of one rule take turns and the second finds it forgotten).
// Every list is by id (events by seq), as the store keeps them.
type Reader interface {
	// Rule returns one rule, or an ENOTFOUND error.
	Rule(ctx context.Context, id int64) (*governance.Rule, error)
	// Rules returns the rules s selects that are not forgotten.
	Rules(ctx context.Context, s RuleSelect) ([]*governance.Rule, error)
	// SharedRules returns the project-wide rules of a project, not
	// forgotten, whose evidence comes only from the subject's events.
	SharedRules(ctx context.Context, projectID int64, subjectID string) ([]*governance.Rule, error)
	// Candidates returns the candidates s selects, with their evidence.
	Candidates(ctx context.Context, s CandidateSelect) ([]*governance.Candidate, error)
	// Versions returns the versions of the rules, by rule and version.
	Versions(ctx context.Context, ruleIDs []int64) ([]*governance.RuleVersion, error)
	// EventsBySeq calls fn with each event of seqs that is not redacted.
	EventsBySeq(ctx context.Context, seqs []int64, fn func(*governance.Event) error) error
	// CountEvents counts the events of a scope that are not redacted.
	CountEvents(ctx context.Context, s EventScope) (int, error)
	// FirstEvents returns the first limit events of a scope that are not redacted.
	FirstEvents(ctx context.Context, s EventScope, limit int) ([]*governance.Event, error)
	// Episodes calls fn with each episode s selects.
	Episodes(ctx context.Context, s EpisodeSelect, fn func(*governance.Episode) error) error
	// RecallTraces counts the recall traces of a subject.
	RecallTraces(ctx context.Context, projectID int64, subjectID string) (int, error)
	// Memberships counts the member memberships of a project naming a
	// subject.
	Memberships(ctx context.Context, projectID int64, subjectID string) (int, error)
	// SubjectLines calls fn with the message lines (the user's or the
	// assistant's, not redacted) of a subject that hold any of terms (the
	// tokenizer's phrase tokens), narrowed by the store's full-text index.
	SubjectLines(ctx context.Context, projectID int64, subjectID string, terms []string, fn func(seq int64, text string) error) error
	// SessionLines calls fn with the message lines of these sessions.
	SessionLines(ctx context.Context, projectID int64, sessions []string, fn func(seq int64, text string) error) error
	// SkillEvidence returns the evidence links of the skills drafted from
	// what s selects, by skill and session.
	SkillEvidence(ctx context.Context, s SkillSelect) ([]SkillLink, error)
	// SkillVersions returns a skill and its versions, newest first.
	SkillVersions(ctx context.Context, skillID int64) (*governance.Skill, []*governance.SkillVersion, error)
}

// SkillSelect selects the evidence of skills: a subject's sessions in a
// project (SubjectID set), or the sessions resting on any of Seqs.
type SkillSelect struct {
	ProjectID int64
	SubjectID string
	Seqs      []int64
}

// SkillLink is one evidence row: a skill drafted, into Version, from a
// session.
type SkillLink struct {
	SkillID   int64
	SessionID string
	Version   int
}

// RuleSelect selects rules of a project; an empty field leaves it open.
type RuleSelect struct {
	ProjectID    int64
	SubjectID    *string
	Fingerprints []string
}

// CandidateSelect selects candidates; a zero or empty field leaves it open.
type CandidateSelect struct {
	ID           int64
	ProjectID    int64
	RuleIDs      []int64
	GroupIDs     []int64
	SubjectIDs   []string
	Fingerprints []string
	// EvidenceSeqs: resting on any of these events.
	EvidenceSeqs []int64
	// Unattached: supporting no rule. Loose: supporting no rule, or one
	// rejected, archived or forgotten.
	Unattached, Loose bool
}

// EventScope is the events a subject or project forget redacts: a
// subject's (SubjectID set), else every event of the project.
type EventScope struct {
	ProjectID int64
	SubjectID string
}

// EpisodeSelect selects episodes of a project: a subject's, those of some
// sessions, or those whose summary holds any of Quoting.
type EpisodeSelect struct {
	ProjectID int64
	SubjectID string
	Sessions  []string
	Quoting   []string
}

// Plan is what one forget changes.
type Plan struct {
	governance.ForgetPreview
	// Forgotten maps project → fingerprint → the subjects it is forgotten
	// for ("" for all): the suppressions the forget writes.
	Forgotten map[int64]map[string]map[string]bool
	// Scope is set for a subject or project forget: the events it redacts.
	Scope *EventScope
	// Seqs are the events a rule or candidate forget redacts.
	Seqs []int64
	// copies are events a mirror plan redacts besides those it finds
	// itself: the copies of the events its source plan redacts (Mirror).
	copies []int64

	// Memberships counts the accounts a subject forget unbinds from the
	// subject (their memberships go; the accounts stay).
	Memberships int

	ruleIDs  map[int64]bool
	candIDs  map[int64]bool
	ruleSubj map[int64]string // the subject of each rule in the plan
	texts    []string         // forgotten statements, to find quotes of them
	textSet  map[string]bool
}

func newPlan() *Plan {
	return &Plan{ruleIDs: map[int64]bool{}, candIDs: map[int64]bool{}, Forgotten: map[int64]map[string]map[string]bool{},
		ruleSubj: map[int64]string{}, textSet: map[string]bool{}}
}

// Empty reports whether the forget has nothing to do: no content (the
// preview's rules, candidates, events and episodes), and for a subject no
// recall trace and no membership either — a subject known only by a
// member's link or by the tasks its agent asked still names it in plain
// text, so its forget runs.
func (p *Plan) Empty() bool {
	return p.ForgetPreview.Empty() && p.RecallTraces == 0 && p.Memberships == 0
}

// RuleIDs are the ids of the plan's rules, ascending.
func (p *Plan) RuleIDs() []int64 { return SortedIDs(p.ruleIDs) }

// addFingerprint records a forgotten statement and the subject it is
// forgotten for: a subject forget's subject whatever the statement, else
// the subject of the rule it belongs to ("" for a project-wide rule).
func (p *Plan) addFingerprint(projectID int64, subject, text string) {
	if text == "" || text == governance.RedactedText {
		return
	}
	if p.SubjectID != "" {
		subject = p.SubjectID
	}
	if p.Forgotten[projectID] == nil {
		p.Forgotten[projectID] = map[string]map[string]bool{}
	}
	fp := governance.Fingerprint(text)
	if p.Forgotten[projectID][fp] == nil {
		p.Forgotten[projectID][fp] = map[string]bool{}
	}
	p.Forgotten[projectID][fp][subject] = true
	if !p.textSet[text] {
		p.textSet[text] = true
		p.texts = append(p.texts, text)
	}
}

func (p *Plan) addRule(r *governance.Rule) bool {
	if p.ruleIDs[r.ID] || r.Status == governance.RuleForgotten {
		return false
	}
	p.ruleIDs[r.ID] = true
	p.ruleSubj[r.ID] = r.SubjectID
	p.Rules = append(p.Rules, r)
	p.addFingerprint(r.ProjectID, r.SubjectID, r.Text)
	return true
}

func (p *Plan) addCandidate(c *governance.Candidate) bool {
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

// Rules plans forgetting these rules: the rules, any other live rule or
// candidate of the same scope with the same statement, their candidates
// (and unattached members of the same merge groups), versions, the
// episodes quoting them and, withEvents, the evidence events and the lines
// that restate them.
func Rules(ctx context.Context, q Reader, ids []int64, withEvents bool) (*Plan, error) {
	p := newPlan()
	p.WithEvents = withEvents
	for _, id := range ids {
		r, err := q.Rule(ctx, id)
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

// Subject plans "everything about" a subject of a project: every rule
// scoped to it, every project-wide rule whose evidence comes only from its
// events, every candidate and event of it, its episodes and recall traces.
func Subject(ctx context.Context, q Reader, projectID int64, subjectID string) (*Plan, error) {
	if strings.TrimSpace(subjectID) == "" {
		return nil, governance.Errorf(governance.EINVALID, "Name the subject to forget.")
	}
	p := newPlan()
	p.ProjectID, p.SubjectID, p.WithEvents = projectID, subjectID, true
	p.Scope = &EventScope{ProjectID: projectID, SubjectID: subjectID}
	own, err := q.Rules(ctx, RuleSelect{ProjectID: projectID, SubjectID: &subjectID})
	if err != nil {
		return nil, err
	}
	for _, r := range own {
		p.addRule(r)
	}
	shared, err := q.SharedRules(ctx, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, r := range shared {
		if p.addRule(r) {
			p.SharedRuleIDs = append(p.SharedRuleIDs, r.ID)
		}
	}
	cands, err := q.Candidates(ctx, CandidateSelect{ProjectID: projectID, SubjectIDs: []string{subjectID}})
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		p.addCandidate(c)
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	if p.RecallTraces, err = q.RecallTraces(ctx, projectID, subjectID); err != nil {
		return nil, err
	}
	if p.Memberships, err = q.Memberships(ctx, projectID, subjectID); err != nil {
		return nil, err
	}
	return p, p.finish(ctx, q)
}

// Candidate plans forgetting a candidate that supports no rule together
// with the unattached members of its merge group of the same subject; a
// candidate that supports a rule goes alone (the rule keeps its other
// evidence).
func Candidate(ctx context.Context, q Reader, id int64, withEvents bool) (*Plan, error) {
	cands, err := q.Candidates(ctx, CandidateSelect{ID: id})
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	c := cands[0]
	p := newPlan()
	p.WithEvents = withEvents
	p.addCandidate(c)
	if c.RuleID == 0 {
		group, err := q.Candidates(ctx, CandidateSelect{GroupIDs: []int64{c.GroupID}, Unattached: true,
			ProjectID: c.ProjectID, SubjectIDs: []string{c.SubjectID}})
		if err != nil {
			return nil, err
		}
		for _, g := range group {
			p.addCandidate(g)
		}
	}
	return p, p.finish(ctx, q)
}

// Project plans the forget of everything a project holds: every rule and
// candidate (with their versions) and every event. Its episodes and other
// rows are deleted with the project, so the plan lists none.
func Project(ctx context.Context, q Reader, projectID int64) (*Plan, error) {
	p := newPlan()
	p.ProjectID, p.WithEvents = projectID, true
	p.Scope = &EventScope{ProjectID: projectID}
	rules, err := q.Rules(ctx, RuleSelect{ProjectID: projectID})
	if err != nil {
		return nil, err
	}
	for _, r := range rules {
		p.addRule(r)
	}
	cands, err := q.Candidates(ctx, CandidateSelect{ProjectID: projectID})
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		p.addCandidate(c)
	}
	if p.Versions, err = q.Versions(ctx, p.RuleIDs()); err != nil {
		return nil, err
	}
	if p.EventCount, err = q.CountEvents(ctx, *p.Scope); err != nil {
		return nil, err
	}
	return p, nil
}

// expand follows rules to their versions and candidates, and statements to
// the rules and candidates of the same scope that say the same.
func (p *Plan) expand(ctx context.Context, q Reader) error {
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
		if len(fresh) > 0 {
			vs, err := q.Versions(ctx, fresh)
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
		}
		// Candidates of the rules.
		if len(p.ruleIDs) > 0 {
			cands, err := q.Candidates(ctx, CandidateSelect{RuleIDs: p.RuleIDs()})
			if err != nil {
				return err
			}
			for _, c := range cands {
				grew = p.addCandidate(c) || grew
			}
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
			fps := p.fingerprintsOf(sk.project)
			if len(fps) == 0 {
				continue
			}
			sel := RuleSelect{ProjectID: sk.project, Fingerprints: fps}
			if sk.subject != "" {
				sel.SubjectID = &sk.subject
			}
			more, err := q.Rules(ctx, sel)
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
		for projectID := range p.Forgotten {
			fps := p.fingerprintsOf(projectID)
			if len(fps) == 0 {
				continue
			}
			sel := CandidateSelect{ProjectID: projectID, Fingerprints: fps, Loose: true}
			if subjects := p.subjectsOf(projectID); !subjects[""] {
				for s := range subjects {
					sel.SubjectIDs = append(sel.SubjectIDs, s)
				}
				slices.Sort(sel.SubjectIDs)
			}
			cands, err := q.Candidates(ctx, sel)
			if err != nil {
				return err
			}
			for _, c := range cands {
				grew = p.addCandidate(c) || grew
			}
		}
		if len(groups) > 0 {
			members, err := q.Candidates(ctx, CandidateSelect{GroupIDs: SortedIDs(groups), Unattached: true})
			if err != nil {
				return err
			}
			for _, c := range members {
				if p.scopeAllows(c) {
					grew = p.addCandidate(c) || grew
				}
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
func (p *Plan) scopeAllows(c *governance.Candidate) bool {
	subjects := p.subjectsOf(c.ProjectID)
	return subjects[""] || subjects[c.SubjectID]
}

func (p *Plan) fingerprintsOf(projectID int64) []string {
	out := make([]string, 0, len(p.Forgotten[projectID]))
	for fp := range p.Forgotten[projectID] {
		out = append(out, fp)
	}
	slices.Sort(out)
	return out
}

// subjectsOf are the scopes of the rules being forgotten in a project ("" =
// project-wide); for a subject forget, that subject.
func (p *Plan) subjectsOf(projectID int64) map[string]bool {
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
func (p *Plan) finish(ctx context.Context, q Reader) error {
	slices.SortFunc(p.Rules, func(a, b *governance.Rule) int { return int(a.ID - b.ID) })
	slices.SortFunc(p.Candidates, func(a, b *governance.Candidate) int { return int(a.ID - b.ID) })
	if len(p.ruleIDs) > 0 {
		vs, err := q.Versions(ctx, p.RuleIDs())
		if err != nil {
			return err
		}
		p.Versions = vs
	}
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
		p.Fingerprints += len(p.Forgotten[id])
	}

	// Events: a subject forget redacts all of the subject's; a rule forget,
	// when asked, the events its candidates rest on and the lines that
	// restate what it forgets.
	quotes := slices.Clone(p.texts)
	if p.Scope == nil && p.WithEvents {
		seqs := map[int64]bool{}
		for _, s := range p.copies {
			seqs[s] = true
		}
		for _, c := range p.Candidates {
			for _, s := range c.EvidenceSeqs {
				seqs[s] = true
			}
		}
		if err := p.restatements(ctx, q, seqs); err != nil {
			return err
		}
		p.Seqs = SortedIDs(seqs)
		p.EventCount = len(p.Seqs)
		if len(p.Seqs) > 0 {
			if err := q.EventsBySeq(ctx, p.Seqs, func(e *governance.Event) error {
				quotes = append(quotes, e.Text)
				if len(p.ForgetPreview.Events) < governance.PreviewEventLimit {
					p.ForgetPreview.Events = append(p.ForgetPreview.Events, e)
				}
				return nil
			}); err != nil {
				return err
			}
		}
	}
	if p.Scope != nil {
		var err error
		if p.EventCount, err = q.CountEvents(ctx, *p.Scope); err != nil {
			return err
		}
		if p.ForgetPreview.Events, err = q.FirstEvents(ctx, *p.Scope, governance.PreviewEventLimit); err != nil {
			return err
		}
	}

	if err := p.skills(ctx, q); err != nil {
		return err
	}

	// Episodes: those of the subject go blank; those of the candidates'
	// sessions, or quoting a forgotten statement, lose the quoting sentences.
	seen := map[int64]bool{}
	addEpisodes := func(s EpisodeSelect, rewrite func(string) string) error {
		return q.Episodes(ctx, s, func(e *governance.Episode) error {
			if seen[e.ID] {
				return nil
			}
			seen[e.ID] = true
			if summary := rewrite(e.Summary); summary != e.Summary {
				p.Episodes = append(p.Episodes, &governance.EpisodeRewrite{Episode: e, Summary: summary})
			}
			return nil
		})
	}
	defer slices.SortFunc(p.Episodes, func(a, b *governance.EpisodeRewrite) int { return int(a.Episode.ID - b.Episode.ID) })
	if p.SubjectID != "" {
		// Everything about a subject: its episodes go blank, and every
		// candidate of it is in one of its own sessions.
		return addEpisodes(EpisodeSelect{ProjectID: p.ProjectID, SubjectID: p.SubjectID},
			func(string) string { return governance.RedactedText })
	}
	dropQuotes := func(summary string) string { return governance.RewriteSummary(summary, quotes) }
	for projectID, ids := range p.sessionsOf(false) {
		if err := addEpisodes(EpisodeSelect{ProjectID: projectID, Sessions: ids}, dropQuotes); err != nil {
			return err
		}
	}
	if len(p.texts) > 0 {
		for _, projectID := range SortedIDs(projects) {
			if err := addEpisodes(EpisodeSelect{ProjectID: projectID, Quoting: p.texts}, dropQuotes); err != nil {
				return err
			}
		}
	}
	return nil
}

// skills plans what the forget does to the skills drafted from the events
// it redacts: a subject's sessions, or the events a rule or candidate
// forget redacts (governance.PlanSkillForget decides).
func (p *Plan) skills(ctx context.Context, q Reader) error {
	var sel SkillSelect
	switch {
	case p.SubjectID != "":
		sel = SkillSelect{ProjectID: p.ProjectID, SubjectID: p.SubjectID}
	case p.Scope == nil && len(p.Seqs) > 0:
		sel = SkillSelect{Seqs: p.Seqs}
	default:
		return nil
	}
	links, err := q.SkillEvidence(ctx, sel)
	if err != nil {
		return err
	}
	type drafted struct {
		versions []int
		sessions []string
	}
	bySkill := map[int64]*drafted{}
	for _, l := range links {
		d := bySkill[l.SkillID]
		if d == nil {
			d = &drafted{}
			bySkill[l.SkillID] = d
		}
		if !slices.Contains(d.versions, l.Version) {
			d.versions = append(d.versions, l.Version)
		}
		d.sessions = append(d.sessions, l.SessionID)
	}
	for _, id := range slices.Sorted(maps.Keys(bySkill)) {
		s, versions, err := q.SkillVersions(ctx, id)
		if err != nil {
			return err
		}
		d := bySkill[id]
		slices.Sort(d.sessions)
		p.Skills = append(p.Skills, governance.PlanSkillForget(s, versions, d.versions, slices.Compact(d.sessions)))
	}
	return nil
}

// SkillIDs are the skills the forget deletes and those it redacts.
func (p *Plan) SkillIDs() (deleted, redacted []int64) {
	for _, s := range p.Skills {
		if s.Delete {
			deleted = append(deleted, s.SkillID)
		} else {
			redacted = append(redacted, s.SkillID)
		}
	}
	return deleted, redacted
}

// sessionsOf lists the sessions of the plan's candidates by project;
// projectWide keeps only those of candidates without a subject.
func (p *Plan) sessionsOf(projectWide bool) map[int64][]string {
	sets := map[int64]map[string]bool{}
	for _, c := range p.Candidates {
		if projectWide && c.SubjectID != "" {
			continue
		}
		if sets[c.ProjectID] == nil {
			sets[c.ProjectID] = map[string]bool{}
		}
		sets[c.ProjectID][c.SessionID] = true
	}
	out := make(map[int64][]string, len(sets))
	for projectID, ss := range sets {
		ids := make([]string, 0, len(ss))
		for s := range ss {
			ids = append(ids, s)
		}
		slices.Sort(ids)
		out[projectID] = ids
	}
	return out
}

// SortedIDs returns the keys of a set in ascending order.
func SortedIDs(set map[int64]bool) []int64 {
	return slices.Sorted(maps.Keys(set))
}
