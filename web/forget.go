package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Forget pages: a confirmation that shows exactly what will go, then a POST
// that forgets it. Reviewers forget any memory of their projects; members
// forget the memories about themselves; admins forget whole subjects.

var errRuleNotFound = governance.Errorf(governance.ENOTFOUND, "Rule not found.")

// forgettableRule loads the rule of the path if the viewer may forget it:
// reviewers and admins of its project, or the member it is about. Another
// subject's rule is 404 for a member, a project-wide rule 403.
func (s *Server) forgettableRule(c echo.Context) (*governance.Rule, scope, error) {
	r, sc, err := s.ruleInScope(c)
	if err != nil {
		return nil, scope{}, err
	}
	if err := can(c.Request().Context(), governance.ActForgetRule,
		governance.InProject(sc.Project).About(r.SubjectID).Named("Rule")); err != nil {
		return nil, scope{}, err
	}
	if !governance.RuleAllows(r.Status, governance.RuleForget) {
		return nil, scope{}, governance.Errorf(governance.ECONFLICT, "This memory is already forgotten.")
	}
	return r, sc, nil
}

// planView turns a store preview into the confirmation's view.
func planView(p *governance.ForgetPreview, project *governance.Project) templates.ForgetPlanView {
	v := templates.ForgetPlanView{
		Project: project, SubjectID: p.SubjectID, Rules: p.Rules, SharedRuleIDs: p.SharedRuleIDs, Versions: len(p.Versions),
		Candidates: p.Candidates, Events: p.Events, EventCount: p.EventCount, Fingerprints: p.Fingerprints, RecallTraces: p.RecallTraces,
	}
	for _, e := range p.Episodes {
		v.Episodes = append(v.Episodes, templates.EpisodeChange{Episode: e.Episode, After: e.Summary})
	}
	return v
}

// forgetBack is where a forget returns: the form's back, or def.
func forgetBack(c echo.Context, def string) string {
	if b := c.QueryParam("back"); b != "" && c.Request().Method == http.MethodGet {
		return safeNext(b)
	}
	return backTo(c, def)
}

func (s *Server) renderForget(c echo.Context, title string, v templates.ForgetView) error {
	meta, err := s.meta(c, title, "")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ForgetPage(meta, v))
}

// handleRuleForgetShow confirms forgetting one rule (optionally with the
// conversation lines it came from: ?events=1).
func (s *Server) handleRuleForgetShow(c echo.Context) error {
	r, sc, err := s.forgettableRule(c)
	if err != nil {
		return err
	}
	withEvents := c.QueryParam("events") == "1"
	preview, err := s.store.PreviewForgetRule(c.Request().Context(), r.ID, withEvents)
	if err != nil {
		return err
	}
	back := forgetBack(c, templates.RuleURL(r.ID))
	toggle := url.Values{"back": {back}}
	if !withEvents {
		toggle.Set("events", "1")
	}
	v := templates.ForgetView{
		Heading:      tr(c, "forget.heading_memory"),
		Intro:        tr(c, "forget.intro_rule", "ID", r.ID),
		Action:       "/rules/" + strconv.FormatInt(r.ID, 10) + "/forget",
		Back:         back,
		EventsChoice: true,
		WithEvents:   withEvents,
		EventsToggle: "/rules/" + strconv.FormatInt(r.ID, 10) + "/forget?" + toggle.Encode(),
		Plans:        []templates.ForgetPlanView{planView(preview, sc.Project)},
		Submit:       tr(c, "forget.submit"),
	}
	return s.renderForget(c, tr(c, "forget.heading_memory"), v)
}

// handleRuleForgetCreate forgets one rule.
func (s *Server) handleRuleForgetCreate(c echo.Context) error {
	r, _, err := s.forgettableRule(c)
	if err != nil {
		return err
	}
	back := backTo(c, templates.RuleURL(r.ID))
	if back == templates.RuleURL(r.ID)+"/forget" {
		back = templates.RuleURL(r.ID)
	}
	rep, err := s.store.ForgetRule(c.Request().Context(), actor(c), r.ID, c.FormValue("events") == "1")
	if err != nil {
		return err
	}
	return s.done(c, back, forgetMessage(c, tr(c, "forget.done_memory"), rep))
}

// forgetMessage is the flash after a forget, in the viewer's language:
// head, then what went.
func forgetMessage(c echo.Context, head string, rep *governance.ForgetReport) string {
	parts := trn(c, "forget.rules", len(rep.RuleIDs)) + tr(c, "list.sep") + trn(c, "forget.done_candidates", len(rep.CandidateIDs))
	if rep.Events > 0 {
		parts += tr(c, "list.sep") + trn(c, "forget.events", rep.Events)
	}
	return tr(c, "forget.done", "Head", head, "Parts", parts)
}

// bulkForgetIDs reads the selected rules and checks the viewer reviews
// every one's project.
func (s *Server) bulkForgetIDs(c echo.Context) ([]int64, error) {
	ctx := c.Request().Context()
	if err := can(ctx, governance.ActReviewAny, governance.Object{}); err != nil {
		return nil, err
	}
	form, err := c.FormParams()
	if err != nil {
		return nil, governance.Errorf(governance.EINVALID, "Unreadable form.")
	}
	var ids []int64
	for _, v := range form["id"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return nil, governance.Errorf(governance.EINVALID, "Invalid rule id %q.", v)
		}
		ids = append(ids, id)
	}
	ids = dedupe(ids)
	if len(ids) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "Select at least one rule to forget.")
	}
	rules, err := s.store.FindRulesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	if len(rules) != len(ids) {
		return nil, errRuleNotFound
	}
	for _, r := range rules {
		if can(ctx, governance.ActReview, governance.Object{ProjectID: r.ProjectID}) != nil {
			return nil, governance.Errorf(governance.EFORBIDDEN, "You do not review the project of rule %d.", r.ID)
		}
		if !governance.RuleAllows(r.Status, governance.RuleForget) {
			return nil, governance.Errorf(governance.ECONFLICT, "Rule %d is already forgotten.", r.ID)
		}
	}
	return ids, nil
}

// handleRulesForget forgets the rules selected on the rules page: the first
// POST shows what will go, the confirmed one forgets.
func (s *Server) handleRulesForget(c echo.Context) error {
	ctx := c.Request().Context()
	ids, err := s.bulkForgetIDs(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") == "1" {
		rep, err := s.store.ForgetRules(ctx, actor(c), ids, false)
		if err != nil {
			return err
		}
		return s.done(c, "/rules", forgetMessage(c, tr(c, "forget.done_plain"), rep))
	}
	preview, err := s.store.PreviewForgetRules(ctx, ids, false)
	if err != nil {
		return err
	}
	var project *governance.Project
	if preview.ProjectID != 0 {
		if project, err = s.store.FindProjectByID(ctx, preview.ProjectID); err != nil {
			return err
		}
	}
	v := templates.ForgetView{
		Heading: trn(c, "forget.heading_rules", len(ids)),
		Intro:   tr(c, "forget.intro_rules"),
		Action:  "/rules/forget",
		Back:    "/rules",
		Hidden:  []templates.HiddenField{{Name: "confirm", Value: "1"}},
		Plans:   []templates.ForgetPlanView{planView(preview, project)},
		Submit:  trn(c, "forget.heading_rules", len(ids)),
	}
	for _, id := range ids {
		v.Hidden = append(v.Hidden, templates.HiddenField{Name: "id", Value: strconv.FormatInt(id, 10)})
	}
	return s.renderForget(c, trn(c, "forget.heading_rules", len(ids)), v)
}

// forgettableCandidate loads the candidate of the path if the viewer may
// forget it: reviewers and admins, or the member it is about.
func (s *Server) forgettableCandidate(c echo.Context) (*governance.Candidate, scope, error) {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "candidate")
	if err != nil {
		return nil, scope{}, err
	}
	cand, err := s.store.FindCandidateByID(ctx, id)
	if err != nil {
		return nil, scope{}, err
	}
	sc, err := s.projectScopeByID(ctx, cand.ProjectID)
	if err != nil {
		return nil, scope{}, err
	}
	if err := can(ctx, governance.ActForgetCandidate,
		governance.InProject(sc.Project).About(cand.SubjectID).Named("Candidate")); err != nil {
		return nil, scope{}, err
	}
	return cand, sc, nil
}

// handleCandidateForgetShow confirms forgetting a candidate memory.
func (s *Server) handleCandidateForgetShow(c echo.Context) error {
	cand, sc, err := s.forgettableCandidate(c)
	if err != nil {
		return err
	}
	withEvents := c.QueryParam("events") == "1"
	preview, err := s.store.PreviewForgetCandidate(c.Request().Context(), cand.ID, withEvents)
	if err != nil {
		return err
	}
	back := forgetBack(c, "/me")
	toggle := url.Values{"back": {back}}
	if !withEvents {
		toggle.Set("events", "1")
	}
	action := "/candidates/" + strconv.FormatInt(cand.ID, 10) + "/forget"
	v := templates.ForgetView{
		Heading:      tr(c, "forget.heading_memory"),
		Intro:        tr(c, "forget.intro_candidate"),
		Action:       action,
		Back:         back,
		EventsChoice: true,
		WithEvents:   withEvents,
		EventsToggle: action + "?" + toggle.Encode(),
		Plans:        []templates.ForgetPlanView{planView(preview, sc.Project)},
		Submit:       tr(c, "forget.submit"),
	}
	return s.renderForget(c, tr(c, "forget.heading_memory"), v)
}

// handleCandidateForgetCreate forgets a candidate memory.
func (s *Server) handleCandidateForgetCreate(c echo.Context) error {
	cand, _, err := s.forgettableCandidate(c)
	if err != nil {
		return err
	}
	rep, err := s.store.ForgetCandidate(c.Request().Context(), actor(c), cand.ID, c.FormValue("events") == "1")
	if err != nil {
		return err
	}
	return s.done(c, backTo(c, "/me"), forgetMessage(c, tr(c, "forget.done_memory"), rep))
}

// subjectPlans previews forgetting each (project, subject) pair.
func (s *Server) subjectPlans(ctx context.Context, pairs []subjectRef) ([]templates.ForgetPlanView, error) {
	var out []templates.ForgetPlanView
	for _, p := range pairs {
		preview, err := s.store.PreviewForgetSubject(ctx, p.Project.ID, p.SubjectID)
		if err != nil {
			return nil, err
		}
		out = append(out, planView(preview, p.Project))
	}
	return out, nil
}

// subjectRef is one subject of one project.
type subjectRef struct {
	Project   *governance.Project
	SubjectID string
}

// newAdminForgetForm reads the project and subject to forget.
func (s *Server) adminForgetView(c echo.Context, project, subject string) (templates.AdminForgetView, *governance.Project, error) {
	ctx := c.Request().Context()
	projects, err := s.store.FindProjects(ctx)
	if err != nil {
		return templates.AdminForgetView{}, nil, err
	}
	v := templates.AdminForgetView{Projects: projects, Project: project, Subject: strings.TrimSpace(subject), Errors: templates.FieldErrors{}}
	if project == "" {
		return v, nil, nil
	}
	p, err := s.store.FindProjectBySlug(ctx, project)
	if err != nil {
		return v, nil, err
	}
	if v.Subject == "" {
		v.Errors["subject"] = "Name the subject whose memories to forget."
	}
	return v, p, nil
}

// handleAdminForgetShow picks a subject and shows what forgetting it removes.
func (s *Server) handleAdminForgetShow(c echo.Context) error {
	ctx := c.Request().Context()
	v, p, err := s.adminForgetView(c, c.QueryParam("project"), c.QueryParam("subject"))
	if err != nil {
		return err
	}
	status := http.StatusOK
	if len(v.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	} else if p != nil {
		plans, err := s.subjectPlans(ctx, []subjectRef{{Project: p, SubjectID: v.Subject}})
		if err != nil {
			return err
		}
		back := "/admin/forget?" + url.Values{"project": {p.Slug}, "subject": {v.Subject}}.Encode()
		v.Confirm = &templates.ForgetView{
			Intro:  tr(c, "forget.intro_subject", "Subject", v.Subject, "Project", p.Name),
			Action: "/admin/forget",
			Back:   back,
			Hidden: []templates.HiddenField{{Name: "project", Value: p.Slug}, {Name: "subject", Value: v.Subject}},
			Plans:  plans,
			Submit: tr(c, "forget.submit_subject", "Subject", v.Subject),
		}
	}
	meta, err := s.meta(c, "Forget a subject", "")
	if err != nil {
		return err
	}
	return render(c, status, templates.AdminForgetPage(meta, v))
}

// handleAdminForgetCreate forgets everything about a subject of a project.
func (s *Server) handleAdminForgetCreate(c echo.Context) error {
	v, p, err := s.adminForgetView(c, c.FormValue("project"), c.FormValue("subject"))
	if err != nil {
		return err
	}
	if p == nil || len(v.Errors) > 0 {
		return governance.Errorf(governance.EINVALID, "Pick a project and a subject.")
	}
	rep, err := s.store.ForgetSubject(c.Request().Context(), actor(c), p.ID, v.Subject)
	if err != nil {
		return err
	}
	return s.done(c, "/admin/forget", forgetMessage(c, tr(c, "forget.done_subject", "Subject", v.Subject), rep))
}
