package app

import (
	"context"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
)

// RecallStore builds context packages and records their traces.
type RecallStore interface {
	Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error)
	RuleListStore
}

// Recalls are the use cases of recall: an agent's (REST, MCP) and the
// playground's preview.
type Recalls struct {
	store    RecallStore
	projects Projects
	// recent gets each recall's report target (Outcomes reads it).
	recent *targetCache
	skills Skills
}

// Recall returns the context package for req and records its trace (each
// recalled rule's use is counted unless req.Preview). A member recalls only
// for their own subject; a token only in its project. The trace lists only
// in-scope memories; what the scope filter removed is only counted.
func (rs Recalls) Recall(ctx context.Context, actor governance.Actor, req governance.RecallRequest) (*governance.RecallPackage, error) {
	if err := governance.Can(actor, governance.ActRecall, governance.Object{ProjectID: req.ProjectID}.About(req.SubjectID)); err != nil {
		return nil, err
	}
	pkg, err := rs.store.Recall(ctx, actor.Name(), req)
	if err != nil {
		return nil, err
	}
	// The skills that apply, in a section of their own: rule scoring and
	// the package's budget are not touched.
	if pkg.Skills, err = rs.skills.Applicable(ctx, actor, req.ProjectID, req.Task); err != nil {
		return nil, err
	}
	if block := recall.SkillsBlock(pkg.Skills); block != "" {
		pkg.Text = strings.TrimSpace(pkg.Text + "\n" + block)
	}
	if rs.recent != nil && pkg.Trace.ID != 0 {
		rs.recent.put(targetOf(req, pkg))
	}
	return pkg, nil
}

// RecallPreview is a playground recall: the package, the text of every
// memory its trace names, and — for the project's reviewers — the active
// rules the scope filter removed that the viewer may see.
type RecallPreview struct {
	Package *governance.RecallPackage
	// Labels maps the trace's memory ids (rule:7) to their text.
	Labels map[string]string
	// ShowFiltered is set for the project's reviewers and admins, who see
	// Filtered.
	ShowFiltered bool
	Filtered     []FilteredRule
}

// FilteredRule is an active rule recall left out because of its scope.
type FilteredRule struct {
	Project      string
	OtherProject bool
	SubjectID    string
	RuleID       int64
	Text         string
}

// RecallInput is the recall playground's form as text.
type RecallInput struct {
	// Project is the project's slug.
	Project string
	// Subject is the end user the task is for ("" = project-wide memory
	// only); a member's is always their own.
	Subject  string
	Task     string
	TaskType string
	Risk     string
	// Total and PerItem are the budget in characters ("" = the default).
	Total, PerItem string
	IncludeEvents  bool
}

// Preview runs the playground's recall as a preview (the trace is stored,
// rule use is not counted) for a signed-in viewer: a member's recall is
// always for their own subject. Bad input — a project the viewer has no
// place in, no task, a budget that is not a positive whole number or that
// the request refuses — is FieldErrors on project, task, total, per_item
// and budget.
func (rs Recalls) Preview(ctx context.Context, actor governance.Actor, in RecallInput) (*RecallPreview, error) {
	if actor.Account == nil {
		return nil, errSignIn
	}
	errs := FieldErrors{}
	req := governance.RecallRequest{SubjectID: strings.TrimSpace(in.Subject), Task: strings.TrimSpace(in.Task),
		TaskType: strings.TrimSpace(in.TaskType), Risk: strings.TrimSpace(in.Risk), IncludeEvents: in.IncludeEvents, Preview: true}
	sc, err := rs.projects.Scope(ctx, actor, strings.TrimSpace(in.Project))
	switch code := governance.ErrorCode(err); {
	case err == nil:
		req.ProjectID = sc.Project.ID
		if sc.Subject != nil {
			req.SubjectID = *sc.Subject
		}
	case code == governance.ENOTFOUND || code == governance.EFORBIDDEN:
		errs["project"] = governance.Say("Choose a project.")
	default:
		return nil, err
	}
	if req.Task == "" {
		errs["task"] = governance.Say("Type the task the agent is about to do.")
	}
	for name, p := range map[string]struct {
		in  string
		dst *int
	}{"total": {in.Total, &req.Budget.Total}, "per_item": {in.PerItem, &req.Budget.PerItem}} {
		v := strings.TrimSpace(p.in)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs[name] = governance.Say("A whole number of characters, 1 or more.")
			continue
		}
		*p.dst = n
	}
	if len(errs) == 0 {
		req.Normalize()
		if err := req.Validate(); err != nil {
			errs["budget"] = governance.ErrorText(err)
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	pkg, err := rs.Recall(ctx, actor, req)
	if err != nil {
		return nil, err
	}
	out := &RecallPreview{Package: pkg, Labels: map[string]string{}}
	rules, _, err := rs.store.FindRules(ctx, governance.RuleFilter{ProjectID: &req.ProjectID, ForSubject: &req.SubjectID})
	if err != nil {
		return nil, err
	}
	for _, r := range rules {
		out.Labels[governance.RecallRuleID(r.ID)] = r.Text
	}
	for _, it := range pkg.Items {
		out.Labels[it.ID] = it.Text
	}
	if actor.Account != nil && governance.Can(actor, governance.ActReview, governance.InProject(sc.Project)) == nil {
		out.ShowFiltered = true
		if out.Filtered, err = rs.scopeFiltered(ctx, actor.Account, sc, req.SubjectID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scopeFiltered names the active rules the scope filter removed that the
// account may see: rules of the other projects it reviews, and rules about
// other subjects of this project.
func (rs Recalls) scopeFiltered(ctx context.Context, a *governance.Account, sc Scope, subject string) ([]FilteredRule, error) {
	projects, err := rs.projects.store.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	slugs := map[int64]string{}
	for _, p := range projects {
		slugs[p.ID] = p.Slug
	}
	f := governance.RuleFilter{Statuses: []governance.RuleStatus{governance.RuleActive}}
	if ids, all := a.ReviewableProjects(); !all {
		f.ProjectIDs = ids
	}
	rules, _, err := rs.store.FindRules(ctx, f)
	if err != nil {
		return nil, err
	}
	out := []FilteredRule{}
	for _, r := range rules {
		other := r.ProjectID != sc.Project.ID
		if other || (r.SubjectID != "" && r.SubjectID != subject) {
			out = append(out, FilteredRule{Project: slugs[r.ProjectID], OtherProject: other, SubjectID: r.SubjectID, RuleID: r.ID, Text: r.Text})
		}
	}
	return out, nil
}
