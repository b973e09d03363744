package app

import (
	"context"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// ForgetStore previews and applies forgets (docs/ARCHITECTURE.md, "Flow: forget"
// semantics): a preview computes exactly what a forget would remove, the
// forget plans again inside its write transaction and removes it.
type ForgetStore interface {
	FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error)
	FindCandidateByID(ctx context.Context, id int64) (*governance.Candidate, error)
	PreviewForgetRule(ctx context.Context, ruleID int64, withEvents bool) (*governance.ForgetPreview, error)
	PreviewForgetRules(ctx context.Context, ids []int64, withEvents bool) (*governance.ForgetPreview, error)
	PreviewForgetCandidate(ctx context.Context, candidateID int64, withEvents bool) (*governance.ForgetPreview, error)
	PreviewForgetSubject(ctx context.Context, projectID int64, subjectID string) (*governance.ForgetPreview, error)
	ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetRules(ctx context.Context, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error)
}

// ForgetPlan is what a forget would remove from one project.
type ForgetPlan struct {
	// Project is nil only for a bulk preview that matched nothing.
	Project *governance.Project
	Preview *governance.ForgetPreview
}

// SubjectRef is one subject of one project.
type SubjectRef struct {
	Project   *governance.Project
	SubjectID string
}

// Forget is the use cases that forget memories completely: one rule, a
// selection of rules, a candidate, or everything about a subject. Each has
// a preview (what will go) and the forget itself; both ask the same
// question of the policy.
type Forget struct {
	store    ForgetStore
	projects Projects
	rules    Rules
}

var (
	errRuleNotFound     = governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	errInvalidSubject   = governance.Errorf(governance.EINVALID, "Invalid subject id.")
	errAlreadyForgotten = governance.Errorf(governance.ECONFLICT, "This memory is already forgotten.")
)

// forgettableRule loads rule id if actor may forget it: reviewers and
// admins of its project, the member it is about (another subject's rule is
// ENOTFOUND for a member, a project-wide rule EFORBIDDEN), or a token of
// its project with the forget scope. A forgotten rule is ECONFLICT for an
// account and ENOTFOUND for a token (agents never see forgotten rules).
func (f Forget) forgettableRule(ctx context.Context, actor governance.Actor, id int64) (*governance.Rule, *governance.Project, error) {
	if actor.Token != nil {
		r, err := f.rules.store.FindRuleByID(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if err := governance.Can(actor, governance.ActForgetRule,
			governance.Object{ProjectID: r.ProjectID}.About(r.SubjectID).Named("Rule")); err != nil {
			return nil, nil, err
		}
		if !governance.RuleAllows(r.Status, governance.RuleForget) {
			return nil, nil, errRuleNotFound
		}
		p, err := f.projects.store.FindProjectByID(ctx, r.ProjectID)
		if err != nil {
			return nil, nil, err
		}
		return r, p, nil
	}
	r, sc, err := f.rules.Get(ctx, actor, id)
	if err != nil {
		return nil, nil, err
	}
	if err := governance.Can(actor, governance.ActForgetRule,
		governance.InProject(sc.Project).About(r.SubjectID).Named("Rule")); err != nil {
		return nil, nil, err
	}
	if !governance.RuleAllows(r.Status, governance.RuleForget) {
		return nil, nil, errAlreadyForgotten
	}
	return r, sc.Project, nil
}

// PreviewRule shows what forgetting rule id removes (with the conversation
// lines it came from when withEvents).
func (f Forget) PreviewRule(ctx context.Context, actor governance.Actor, id int64, withEvents bool) (ForgetPlan, error) {
	r, p, err := f.forgettableRule(ctx, actor, id)
	if err != nil {
		return ForgetPlan{}, err
	}
	preview, err := f.store.PreviewForgetRule(ctx, r.ID, withEvents)
	if err != nil {
		return ForgetPlan{}, err
	}
	return ForgetPlan{Project: p, Preview: preview}, nil
}

// Rule forgets rule id completely.
func (f Forget) Rule(ctx context.Context, actor governance.Actor, id int64, withEvents bool) (*governance.ForgetReport, error) {
	r, _, err := f.forgettableRule(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return f.store.ForgetRule(ctx, actor.Name(), r.ID, withEvents)
}

// reviewedRules parses the selected rule ids and checks that actor reviews
// every one's project and that none is forgotten yet. It returns the ids
// without repeats, in the order given.
func (f Forget) reviewedRules(ctx context.Context, actor governance.Actor, raw []string) ([]int64, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return nil, err
	}
	var ids []int64
	for _, v := range raw {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, governance.Errorf(governance.EINVALID, "Invalid rule id %q.", v)
		}
		ids = append(ids, id)
	}
	ids = governance.DistinctIDs(ids)
	if len(ids) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "Select at least one rule to forget.")
	}
	rules, err := f.store.FindRulesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	if len(rules) != len(ids) {
		return nil, errRuleNotFound
	}
	for _, r := range rules {
		if governance.Can(actor, governance.ActReview, governance.Object{ProjectID: r.ProjectID}) != nil {
			return nil, governance.Errorf(governance.EFORBIDDEN, "You do not review the project of rule %d.", r.ID)
		}
		if !governance.RuleAllows(r.Status, governance.RuleForget) {
			return nil, governance.Errorf(governance.ECONFLICT, "Rule %d is already forgotten.", r.ID)
		}
	}
	return ids, nil
}

// PreviewRules shows what forgetting the selected rules (ids as typed in a
// form) removes, for a reviewer of every one's project. It returns the ids
// without repeats.
func (f Forget) PreviewRules(ctx context.Context, actor governance.Actor, ids []string) ([]int64, ForgetPlan, error) {
	parsed, err := f.reviewedRules(ctx, actor, ids)
	if err != nil {
		return nil, ForgetPlan{}, err
	}
	preview, err := f.store.PreviewForgetRules(ctx, parsed, false)
	if err != nil {
		return nil, ForgetPlan{}, err
	}
	plan := ForgetPlan{Preview: preview}
	if preview.ProjectID != 0 {
		if plan.Project, err = f.projects.store.FindProjectByID(ctx, preview.ProjectID); err != nil {
			return nil, ForgetPlan{}, err
		}
	}
	return parsed, plan, nil
}

// Rules forgets the selected rules (ids as typed in a form) in one
// transaction.
func (f Forget) Rules(ctx context.Context, actor governance.Actor, ids []string) (*governance.ForgetReport, error) {
	parsed, err := f.reviewedRules(ctx, actor, ids)
	if err != nil {
		return nil, err
	}
	return f.store.ForgetRules(ctx, actor.Name(), parsed, false)
}

// forgettableCandidate loads candidate id if actor may forget it:
// reviewers and admins of its project, or the member it is about.
func (f Forget) forgettableCandidate(ctx context.Context, actor governance.Actor, id int64) (*governance.Candidate, *governance.Project, error) {
	cand, err := f.store.FindCandidateByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	sc, err := f.projects.ScopeByID(ctx, actor, cand.ProjectID)
	if err != nil {
		return nil, nil, err
	}
	if err := governance.Can(actor, governance.ActForgetCandidate,
		governance.InProject(sc.Project).About(cand.SubjectID).Named("Candidate")); err != nil {
		return nil, nil, err
	}
	return cand, sc.Project, nil
}

// PreviewCandidate shows what forgetting candidate id removes.
func (f Forget) PreviewCandidate(ctx context.Context, actor governance.Actor, id int64, withEvents bool) (ForgetPlan, error) {
	cand, p, err := f.forgettableCandidate(ctx, actor, id)
	if err != nil {
		return ForgetPlan{}, err
	}
	preview, err := f.store.PreviewForgetCandidate(ctx, cand.ID, withEvents)
	if err != nil {
		return ForgetPlan{}, err
	}
	return ForgetPlan{Project: p, Preview: preview}, nil
}

// Candidate forgets candidate id completely.
func (f Forget) Candidate(ctx context.Context, actor governance.Actor, id int64, withEvents bool) (*governance.ForgetReport, error) {
	cand, _, err := f.forgettableCandidate(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return f.store.ForgetCandidate(ctx, actor.Name(), cand.ID, withEvents)
}

// forgettableSubject checks the subject id and that actor may forget it in
// the project named by slug: admins, the member themself, or a token of
// the project with the forget scope.
func (f Forget) forgettableSubject(ctx context.Context, actor governance.Actor, projectSlug, subject string) (*governance.Project, error) {
	if strings.TrimSpace(subject) == "" || len(subject) > governance.MaxIDBytes {
		return nil, errInvalidSubject
	}
	if actor.Anonymous() {
		return nil, governance.Can(actor, governance.ActForgetSubject, governance.Object{})
	}
	p, err := f.projects.store.FindProjectBySlug(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActForgetSubject, governance.InProject(p).About(subject)); err != nil {
		return nil, err
	}
	return p, nil
}

// PreviewSubject shows what forgetting everything about subject in the
// project named by slug removes.
func (f Forget) PreviewSubject(ctx context.Context, actor governance.Actor, projectSlug, subject string) (ForgetPlan, error) {
	p, err := f.forgettableSubject(ctx, actor, projectSlug, subject)
	if err != nil {
		return ForgetPlan{}, err
	}
	preview, err := f.store.PreviewForgetSubject(ctx, p.ID, subject)
	if err != nil {
		return ForgetPlan{}, err
	}
	return ForgetPlan{Project: p, Preview: preview}, nil
}

// Subject forgets everything about subject in the project named by slug:
// every memory and every event.
func (f Forget) Subject(ctx context.Context, actor governance.Actor, projectSlug, subject string) (*governance.ForgetReport, error) {
	p, err := f.forgettableSubject(ctx, actor, projectSlug, subject)
	if err != nil {
		return nil, err
	}
	return f.store.ForgetSubject(ctx, actor.Name(), p.ID, subject)
}
