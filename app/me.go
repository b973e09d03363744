package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// MeStore reads what is stored about one subject.
type MeStore interface {
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
	FindEvidenceByRules(ctx context.Context, ruleIDs []int64) (map[int64][]*governance.EvidenceLink, error)
	FindCandidates(ctx context.Context, f governance.CandidateFilter) ([]*governance.Candidate, int, error)
	FindCandidateEvidence(ctx context.Context, cands []*governance.Candidate) ([]*governance.EvidenceLink, error)
	FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error)
	FindRuleOutcomes(ctx context.Context, ruleIDs []int64) (map[int64]governance.OutcomeCounts, error)
	FindOutcomes(ctx context.Context, f governance.OutcomeFilter) ([]*governance.OutcomeReport, int, error)
}

// Me is the use cases of an end user about their own data: "my memories",
// "download my data" and "forget everything about me". They cover the
// subjects the actor's account is a member for, in every project; admins
// and reviewers have no subject of their own there.
type Me struct {
	store    MeStore
	projects Projects
	forget   Forget
	rules    Rules
}

// MyMemories is what one project remembers about the actor's subject.
type MyMemories struct {
	SubjectRef
	Rules []MyRule
	// Candidates are memories not (or not yet) part of one of Rules, with
	// the subject's own lines they came from.
	Candidates []*governance.EvidenceLink
}

// MyRule is one rule about the actor with the subject's own lines it came
// from.
type MyRule struct {
	Rule     *governance.Rule
	Evidence []*governance.EvidenceLink
	// Outcomes are what agents reported the rule did for the subject, and
	// the recalls of the latest reports.
	Outcomes governance.OutcomeCounts
	Traces   []int64
}

// MyData is what "download my data" holds for one project besides the
// events (Me.Events streams those).
type MyData struct {
	SubjectRef
	Rules      []*governance.Rule
	Candidates []*governance.Candidate
}

// Subjects are the (project, subject) pairs actor's account is a member
// for, in the store's project order. Tokens have none.
func (m Me) Subjects(ctx context.Context, actor governance.Actor) ([]SubjectRef, error) {
	if actor.Account == nil {
		if actor.Anonymous() {
			return nil, governance.Can(actor, governance.ActSee, governance.Object{})
		}
		return nil, nil
	}
	scopes, err := m.projects.Visible(ctx, actor)
	if err != nil {
		return nil, err
	}
	var out []SubjectRef
	for _, sc := range scopes {
		// Admins and reviewers see whole projects; "my memories" is about
		// the subject an account is linked to as a member.
		mem, ok := actor.Account.MembershipFor(sc.Project.ID)
		if ok && mem.Role == governance.ProjectMember && mem.SubjectID != "" {
			out = append(out, SubjectRef{Project: sc.Project, SubjectID: mem.SubjectID})
		}
	}
	return out, nil
}

// mine checks that actor may see ref's data: its own subject only.
func mine(actor governance.Actor, ref SubjectRef) error {
	return governance.Can(actor, governance.ActSee, governance.InProject(ref.Project).About(ref.SubjectID))
}

// Memories is "my memories": for each of actor's subjects the live rules
// and candidates about it, each with the subject's own lines it came from
// (never another person's).
func (m Me) Memories(ctx context.Context, actor governance.Actor) ([]MyMemories, error) {
	refs, err := m.Subjects(ctx, actor)
	if err != nil {
		return nil, err
	}
	out := make([]MyMemories, 0, len(refs))
	for _, ref := range refs {
		g, err := m.memories(ctx, ref)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func (m Me) memories(ctx context.Context, ref SubjectRef) (MyMemories, error) {
	g := MyMemories{SubjectRef: ref}
	subject := ref.SubjectID
	rules, _, err := m.store.FindRules(ctx, governance.RuleFilter{ProjectID: &ref.Project.ID, SubjectID: &subject,
		Statuses: governance.ListableRuleStatuses})
	if err != nil {
		return g, err
	}
	ids := make([]int64, len(rules))
	ruleOf := map[int64]bool{}
	for i, r := range rules {
		ids[i] = r.ID
		ruleOf[r.ID] = true
	}
	evidence, err := m.store.FindEvidenceByRules(ctx, ids)
	if err != nil {
		return g, err
	}
	outcomes, err := m.store.FindRuleOutcomes(ctx, ids)
	if err != nil {
		return g, err
	}
	for _, r := range rules {
		mr := MyRule{Rule: r, Evidence: ownLines(evidence[r.ID], subject), Outcomes: outcomes[r.ID]}
		if mr.Outcomes.Total() > 0 {
			reports, _, err := m.store.FindOutcomes(ctx, governance.OutcomeFilter{RuleID: r.ID, SubjectID: &subject, Limit: 5})
			if err != nil {
				return g, err
			}
			for _, rep := range reports {
				mr.Traces = append(mr.Traces, rep.TraceID)
			}
		}
		g.Rules = append(g.Rules, mr)
	}
	cands, _, err := m.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: ref.Project.ID, SubjectID: &subject})
	if err != nil {
		return g, err
	}
	var loose []*governance.Candidate
	for _, c := range cands {
		if c.RuleID == 0 || !ruleOf[c.RuleID] {
			loose = append(loose, c)
		}
	}
	links, err := m.store.FindCandidateEvidence(ctx, loose)
	if err != nil {
		return g, err
	}
	g.Candidates = ownLines(links, subject)
	return g, nil
}

// ownLines keeps only the subject's own events in an evidence chain, so a
// member never sees another person's lines.
func ownLines(links []*governance.EvidenceLink, subject string) []*governance.EvidenceLink {
	out := make([]*governance.EvidenceLink, 0, len(links))
	for _, l := range links {
		if l.Candidate.SubjectID != subject {
			continue
		}
		own := &governance.EvidenceLink{Candidate: l.Candidate}
		for _, e := range l.Events {
			if e.SubjectID == subject {
				own.Events = append(own.Events, e)
			}
		}
		out = append(out, own)
	}
	return out
}

// Export is "download my data" without the events: for each of actor's
// subjects its live rules and its candidates (never nil slices).
func (m Me) Export(ctx context.Context, actor governance.Actor) ([]MyData, error) {
	refs, err := m.Subjects(ctx, actor)
	if err != nil {
		return nil, err
	}
	out := make([]MyData, 0, len(refs))
	for _, ref := range refs {
		subject := ref.SubjectID
		rules, _, err := m.store.FindRules(ctx, governance.RuleFilter{ProjectID: &ref.Project.ID, SubjectID: &subject,
			Statuses: governance.ListableRuleStatuses})
		if err != nil {
			return nil, err
		}
		cands, _, err := m.store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: ref.Project.ID, SubjectID: &subject})
		if err != nil {
			return nil, err
		}
		if rules == nil {
			rules = []*governance.Rule{}
		}
		if cands == nil {
			cands = []*governance.Candidate{}
		}
		out = append(out, MyData{SubjectRef: ref, Rules: rules, Candidates: cands})
	}
	return out, nil
}

// ExportEventPage is how many events Events reads at a time.
const ExportEventPage = 1000

// Events calls fn with every event of ref's subject, in order, reading a
// page at a time; actor must be that subject's member (ENOTFOUND for
// another subject).
func (m Me) Events(ctx context.Context, actor governance.Actor, ref SubjectRef, fn func(*governance.Event) error) error {
	if err := mine(actor, ref); err != nil {
		return err
	}
	subject := ref.SubjectID
	var after int64
	for {
		events, _, err := m.store.FindEvents(ctx, governance.EventFilter{ProjectID: &ref.Project.ID, SubjectID: &subject,
			AfterSeq: &after, Limit: ExportEventPage})
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := fn(e); err != nil {
				return err
			}
			after = e.Seq
		}
		if len(events) < ExportEventPage {
			return nil
		}
	}
}

var errNothingAboutYou = governance.Errorf(governance.ENOTFOUND, "Nothing is remembered about you.")

// PreviewForget shows what "forget everything about me" removes, one plan
// per subject of actor; ENOTFOUND when actor is no project's member.
func (m Me) PreviewForget(ctx context.Context, actor governance.Actor) ([]ForgetPlan, error) {
	refs, err := m.Subjects(ctx, actor)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, errNothingAboutYou
	}
	plans := make([]ForgetPlan, 0, len(refs))
	for _, ref := range refs {
		plan, err := m.forget.PreviewSubject(ctx, actor, ref.Project.Slug, ref.SubjectID)
		if err != nil {
			return nil, err
		}
		plans = append(plans, plan)
	}
	return plans, nil
}

// Forget forgets everything about actor, subject by subject, and adds the
// reports up.
func (m Me) Forget(ctx context.Context, actor governance.Actor) (*governance.ForgetReport, error) {
	refs, err := m.Subjects(ctx, actor)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, errNothingAboutYou
	}
	total := &governance.ForgetReport{}
	for _, ref := range refs {
		rep, err := m.forget.Subject(ctx, actor, ref.Project.Slug, ref.SubjectID)
		if err != nil {
			return nil, err
		}
		total.RuleIDs = append(total.RuleIDs, rep.RuleIDs...)
		total.CandidateIDs = append(total.CandidateIDs, rep.CandidateIDs...)
		total.Events += rep.Events
	}
	return total, nil
}
