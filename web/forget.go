package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Forget pages: a confirmation that shows exactly what will go, then a POST
// that forgets it. Reviewers forget any memory of their projects; members
// forget the memories about themselves; admins forget whole subjects. Who
// may forget what is decided by app.Forget.

// plainForget marks the plans of a forget for a member (someone who
// sees only their own memories there): the page speaks of memories and
// lines, not of rule ids, candidates and fingerprints.
func (s *Server) plainForget(c echo.Context, v *templates.ForgetView) {
	ctx := c.Request().Context()
	for i, p := range v.Plans {
		if p.Project == nil {
			continue
		}
		if sc, err := s.app.Projects.ScopeByID(ctx, actorOf(ctx), p.Project.ID); err == nil && sc.Subject != nil {
			v.Plans[i].Plain, v.Plain = true, true
		}
	}
}

// planView turns a forget plan into the confirmation's view.
func planView(plan app.ForgetPlan) templates.ForgetPlanView {
	p := plan.Preview
	v := templates.ForgetPlanView{
		Project: plan.Project, SubjectID: p.SubjectID, Rules: p.Rules, SharedRuleIDs: p.SharedRuleIDs, Versions: len(p.Versions),
		Candidates: p.Candidates, Events: p.Events, EventCount: p.EventCount, Fingerprints: p.Fingerprints, RecallTraces: p.RecallTraces,
	}
	for _, e := range p.Episodes {
		v.Episodes = append(v.Episodes, templates.EpisodeChange{Episode: e.Episode, After: e.Summary})
	}
	for _, s := range p.Skills {
		if s.Delete {
			v.SkillsDeleted++
		} else {
			v.SkillsRedacted++
		}
	}
	return v
}

// planViews turns forget plans into the confirmation's views.
func planViews(plans []app.ForgetPlan) []templates.ForgetPlanView {
	out := make([]templates.ForgetPlanView, 0, len(plans))
	for _, p := range plans {
		out = append(out, planView(p))
	}
	return out
}

// forgetBack is where a forget returns: the form's back, or def.
func forgetBack(c echo.Context, def string) string {
	if b := c.QueryParam("back"); b != "" && c.Request().Method == http.MethodGet {
		return safeNext(b)
	}
	return backTo(c, def)
}

func (s *Server) renderForget(c echo.Context, title string, v templates.ForgetView) error {
	s.plainForget(c, &v)
	if v.Plain && v.PlainIntro != "" {
		v.Intro = v.PlainIntro
	}
	meta, err := s.meta(c, title, "")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ForgetPage(meta, v))
}

// handleRuleForgetShow confirms forgetting one rule (optionally with the
// conversation lines it came from: ?events=1).
func (s *Server) handleRuleForgetShow(c echo.Context) error {
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	withEvents := c.QueryParam("events") == "1"
	plan, err := s.app.Forget.PreviewRule(ctx, actorOf(ctx), id, withEvents)
	if err != nil {
		return err
	}
	back := forgetBack(c, templates.RuleURL(id))
	toggle := url.Values{"back": {back}}
	if !withEvents {
		toggle.Set("events", "1")
	}
	v := templates.ForgetView{
		Heading:      tr(c, "forget.heading_memory"),
		Intro:        tr(c, "forget.intro_rule", "ID", id),
		PlainIntro:   tr(c, "forget.intro_memory_plain"),
		Action:       "/rules/" + strconv.FormatInt(id, 10) + "/forget",
		Back:         back,
		EventsChoice: true,
		WithEvents:   withEvents,
		EventsToggle: "/rules/" + strconv.FormatInt(id, 10) + "/forget?" + toggle.Encode(),
		Plans:        []templates.ForgetPlanView{planView(plan)},
		Submit:       tr(c, "forget.submit"),
	}
	// A reviewer who forgets a replacement may bring back what it replaced.
	if r, _, err := s.app.Rules.GetReviewed(ctx, actorOf(ctx), id); err == nil && r.Supersedes != 0 {
		if old, _, err := s.app.Rules.GetReviewed(ctx, actorOf(ctx), r.Supersedes); err == nil && old.SupersededBy == r.ID {
			v.RestoreReplaced = old
		}
	}
	return s.renderForget(c, tr(c, "forget.heading_memory"), v)
}

// handleRuleForgetCreate forgets one rule.
func (s *Server) handleRuleForgetCreate(c echo.Context) error {
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	rep, err := s.app.Forget.Rule(ctx, actorOf(ctx), id, c.FormValue("events") == "1")
	if err != nil {
		return err
	}
	back := backTo(c, templates.RuleURL(id))
	if back == templates.RuleURL(id)+"/forget" {
		back = templates.RuleURL(id)
	}
	also, err := s.restoreReplaced(c, "")
	if err != nil {
		return err
	}
	return s.done(c, back, forgetMessage(c, tr(c, "forget.done_memory"), rep)+also)
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

// handleRulesForget forgets the rules selected on the rules page: the first
// POST shows what will go, the confirmed one forgets.
func (s *Server) handleRulesForget(c echo.Context) error {
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return governance.Errorf(governance.EINVALID, "Unreadable form.")
	}
	if c.FormValue("confirm") == "1" {
		rep, err := s.app.Forget.Rules(ctx, actorOf(ctx), form["id"])
		if err != nil {
			return err
		}
		return s.done(c, "/rules", forgetMessage(c, tr(c, "forget.done_plain"), rep))
	}
	ids, plan, err := s.app.Forget.PreviewRules(ctx, actorOf(ctx), form["id"])
	if err != nil {
		return err
	}
	v := templates.ForgetView{
		Heading: trn(c, "forget.heading_rules", len(ids)),
		Intro:   tr(c, "forget.intro_rules"),
		Action:  "/rules/forget",
		Back:    "/rules",
		Hidden:  []templates.HiddenField{{Name: "confirm", Value: "1"}},
		Plans:   []templates.ForgetPlanView{planView(plan)},
		Submit:  trn(c, "forget.heading_rules", len(ids)),
	}
	for _, id := range ids {
		v.Hidden = append(v.Hidden, templates.HiddenField{Name: "id", Value: strconv.FormatInt(id, 10)})
	}
	return s.renderForget(c, trn(c, "forget.heading_rules", len(ids)), v)
}

// handleCandidateForgetShow confirms forgetting a candidate memory.
func (s *Server) handleCandidateForgetShow(c echo.Context) error {
	id, err := idParam(c, "id", "candidate")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	withEvents := c.QueryParam("events") == "1"
	plan, err := s.app.Forget.PreviewCandidate(ctx, actorOf(ctx), id, withEvents)
	if err != nil {
		return err
	}
	back := forgetBack(c, "/me")
	toggle := url.Values{"back": {back}}
	if !withEvents {
		toggle.Set("events", "1")
	}
	action := "/candidates/" + strconv.FormatInt(id, 10) + "/forget"
	v := templates.ForgetView{
		Heading:      tr(c, "forget.heading_memory"),
		Intro:        tr(c, "forget.intro_candidate"),
		PlainIntro:   tr(c, "forget.intro_memory_plain"),
		Action:       action,
		Back:         back,
		EventsChoice: true,
		WithEvents:   withEvents,
		EventsToggle: action + "?" + toggle.Encode(),
		Plans:        []templates.ForgetPlanView{planView(plan)},
		Submit:       tr(c, "forget.submit"),
	}
	return s.renderForget(c, tr(c, "forget.heading_memory"), v)
}

// handleCandidateForgetCreate forgets a candidate memory.
func (s *Server) handleCandidateForgetCreate(c echo.Context) error {
	id, err := idParam(c, "id", "candidate")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	rep, err := s.app.Forget.Candidate(ctx, actorOf(ctx), id, c.FormValue("events") == "1")
	if err != nil {
		return err
	}
	return s.done(c, backTo(c, "/me"), forgetMessage(c, tr(c, "forget.done_memory"), rep))
}

// adminForgetView is the admin forget page's form: every project, and the
// project and subject chosen, with a field error for a missing subject.
func (s *Server) adminForgetView(c echo.Context, project, subject string) (templates.AdminForgetView, error) {
	ctx := c.Request().Context()
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return templates.AdminForgetView{}, err
	}
	v := templates.AdminForgetView{Projects: projects, Project: project, Subject: strings.TrimSpace(subject), Errors: templates.FieldErrors{}}
	if project != "" && v.Subject == "" {
		v.Errors["subject"] = governance.Say("Name the subject whose memories to forget.")
	}
	return v, nil
}

// handleAdminForgetShow picks a subject and shows what forgetting it removes.
func (s *Server) handleAdminForgetShow(c echo.Context) error {
	ctx := c.Request().Context()
	v, err := s.adminForgetView(c, c.QueryParam("project"), c.QueryParam("subject"))
	if err != nil {
		return err
	}
	status := http.StatusOK
	if v.Project != "" {
		if _, err := s.app.Projects.Scope(ctx, actorOf(ctx), v.Project); err != nil {
			return err
		}
	}
	if len(v.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	} else if v.Project != "" {
		plan, err := s.app.Forget.PreviewSubject(ctx, actorOf(ctx), v.Project, v.Subject)
		if err != nil {
			return err
		}
		p := plan.Project
		back := "/admin/forget?" + url.Values{"project": {p.Slug}, "subject": {v.Subject}}.Encode()
		v.Confirm = &templates.ForgetView{
			Intro:  tr(c, "forget.intro_subject", "Subject", v.Subject, "Project", p.Name),
			Action: "/admin/forget",
			Back:   back,
			Hidden: []templates.HiddenField{{Name: "project", Value: p.Slug}, {Name: "subject", Value: v.Subject}},
			Plans:  []templates.ForgetPlanView{planView(plan)},
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
	ctx := c.Request().Context()
	project, subject := c.FormValue("project"), strings.TrimSpace(c.FormValue("subject"))
	if project == "" || subject == "" {
		return governance.Errorf(governance.EINVALID, "Pick a project and a subject.")
	}
	rep, err := s.app.Forget.Subject(ctx, actorOf(ctx), project, subject)
	if err != nil {
		return err
	}
	return s.done(c, "/admin/forget", forgetMessage(c, tr(c, "forget.done_subject", "Subject", subject), rep))
}
