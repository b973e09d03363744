package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

const (
	rulePageSize = 50
	// ruleSearchCountCap: a search counts at most this many matches past
	// the page; a common word over tens of thousands of rules shows "N+".
	ruleSearchCountCap = 4 * rulePageSize
)

// newRuleFilterForm reads the rules list's filters from the query.
func newRuleFilterForm(c echo.Context) templates.RuleFilterForm {
	return templates.RuleFilterForm{
		Project:  c.QueryParam("project"),
		Subject:  strings.TrimSpace(c.QueryParam("subject")),
		Kind:     c.QueryParam("kind"),
		Status:   c.QueryParam("status"),
		Reason:   c.QueryParam("reason"),
		Paused:   c.QueryParam("paused"),
		Expiring: c.QueryParam("expiring"),
		Query:    strings.TrimSpace(c.QueryParam("q")),
	}
}

// filter turns the form into a store filter limited to the viewer's
// projects; a project the viewer does not review is 403.
func (s *Server) ruleFilter(c echo.Context, f templates.RuleFilterForm, page int) (governance.RuleFilter, []*governance.Project, error) {
	ctx := c.Request().Context()
	rf := governance.RuleFilter{Query: f.Query, Offset: (page - 1) * rulePageSize, Limit: rulePageSize}
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return rf, nil, err
	}
	var projects []*governance.Project
	rf.ProjectIDs = []int64{}
	for _, sc := range scopes {
		if sc.Subject == nil {
			projects = append(projects, sc.Project)
			rf.ProjectIDs = append(rf.ProjectIDs, sc.Project.ID)
		}
	}
	if a := auth.UserFrom(ctx); a != nil && a.IsAdmin {
		rf.ProjectIDs = nil // every project: no need to list them
	}
	if f.Project != "" {
		sc, err := s.projectScope(c, f.Project)
		if err != nil {
			return rf, nil, err
		}
		if err := can(ctx, governance.ActReview, governance.InProject(sc.Project)); err != nil {
			return rf, nil, err
		}
		rf.ProjectID = &sc.Project.ID
	}
	in := governance.RuleFilterInput{Status: f.Status, Kind: f.Kind, Reason: f.Reason, Paused: f.Paused,
		ExpiringDays: f.Expiring, Query: f.Query}
	if f.Subject != "" {
		in.Subject = &f.Subject
	}
	parsed, err := governance.ParseRuleFilter(in, governance.RuleFilterDefaults{
		Statuses: governance.ListableRuleStatuses, Limit: rulePageSize, Now: s.app.Now(), Forgotten: true})
	if err != nil {
		return rf, nil, err
	}
	parsed.ProjectID, parsed.ProjectIDs, parsed.Offset = rf.ProjectID, rf.ProjectIDs, rf.Offset
	rf = parsed
	return rf, projects, nil
}

// handleRuleIndex lists the rules of the viewer's projects with filters and search.
func (s *Server) handleRuleIndex(c echo.Context) error {
	ctx := c.Request().Context()
	a := auth.UserFrom(ctx)
	if err := can(ctx, governance.ActReviewAny, governance.Object{}); err != nil {
		return err
	}
	form := newRuleFilterForm(c)
	page := pageParam(c)
	rf, projects, err := s.ruleFilter(c, form, page)
	if err != nil {
		return err
	}
	if rf.Query != "" {
		rf.CountCap = ruleSearchCountCap
	}
	rules, total, err := s.store.FindRules(ctx, rf)
	if err != nil {
		return err
	}
	v := templates.RuleListView{Form: form, Projects: projects, Rules: rules, Slugs: map[int64]string{}, CSRF: csrfToken(c),
		CanForgetSubjects: isAdmin(a)}
	for _, p := range projects {
		v.Slugs[p.ID] = p.Slug
	}
	v.Pager = cappedPager(page, rulePageSize, total, rf.CountCap, "rule-table", func(p int) string {
		return withPage("/rules", form.Values(), p)
	})
	if hxTargets(c, "rule-table") {
		return render(c, http.StatusOK, templates.RuleTable(v))
	}
	meta, err := s.meta(c, "Rules", "rules")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.RuleListPage(meta, v))
}

// handleRuleShow is a rule's detail page.
func (s *Server) handleRuleShow(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	return s.renderRule(c, http.StatusOK, r, sc, templates.RuleForm{})
}

// renderRule renders the rule page; form is a rejected submission (422).
func (s *Server) renderRule(c echo.Context, status int, r *governance.Rule, sc scope, form templates.RuleForm) error {
	ctx := c.Request().Context()
	v := templates.RuleView{Rule: r, Project: sc.Project, Now: s.app.Now().UTC(), CSRF: csrfToken(c), Form: form,
		Can: r.AllowedActions()}
	versions, err := s.store.FindRuleVersions(ctx, r.ID)
	if err != nil {
		return err
	}
	for i := len(versions) - 1; i >= 0; i-- {
		vv := templates.VersionView{Version: versions[i]}
		if i > 0 {
			vv.Diff = diffText(versions[i-1].Text, versions[i].Text)
		} else {
			vv.Diff = []templates.DiffSegment{{Op: "=", Text: versions[i].Text}}
		}
		v.Versions = append(v.Versions, vv)
	}
	if v.Evidence, err = s.store.FindRuleEvidence(ctx, r.ID); err != nil {
		return err
	}
	for _, link := range []struct {
		id  int64
		dst **governance.Rule
	}{{r.Supersedes, &v.Replaces}, {r.SupersededBy, &v.ReplacedBy}} {
		if link.id == 0 {
			continue
		}
		if *link.dst, err = s.store.FindRuleByID(ctx, link.id); err != nil {
			return err
		}
	}
	if v.Audit, _, err = s.store.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: strconv.FormatInt(r.ID, 10), Limit: 50}); err != nil {
		return err
	}
	traces, _, err := s.store.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: r.ProjectID, RuleID: r.ID, Limit: 10})
	if err != nil {
		return err
	}
	for _, t := range traces {
		ref := templates.TraceRef{ID: t.ID, At: t.CreatedAt, Actor: t.Actor, URL: s.traceURL(t.ID)}
		for _, e := range t.Trace.Considered {
			if e.ID == governance.RecallRuleID(r.ID) {
				ref.Included, ref.Reason = e.Included, e.Reason
			}
		}
		v.Traces = append(v.Traces, ref)
	}
	meta, err := s.meta(c, fmt.Sprintf("Rule #%d", r.ID), "rules")
	if err != nil {
		return err
	}
	return render(c, status, templates.RulePage(meta, v))
}

// traceURL links a stored recall trace once a trace page is registered.
func (s *Server) traceURL(id int64) string {
	for _, r := range s.echo.Routes() {
		if r.Method == http.MethodGet && r.Path == "/recall/traces/:id" {
			return "/recall/traces/" + strconv.FormatInt(id, 10)
		}
	}
	return ""
}

// ruleForm reads an action form on a rule.
func ruleForm(c echo.Context, action string) templates.RuleForm {
	return templates.RuleForm{
		Action:  action,
		Text:    strings.TrimSpace(c.FormValue("text")),
		Kind:    c.FormValue("kind"),
		Reason:  strings.TrimSpace(c.FormValue("reason")),
		NewRule: strings.TrimSpace(c.FormValue("newer")),
		Expires: strings.TrimSpace(c.FormValue("expires")),
		Errors:  templates.FieldErrors{},
	}
}

// invalidOr re-renders the rule page with the store's message on field when
// err is EINVALID, and returns any other error.
func (s *Server) invalidOr(c echo.Context, err error, r *governance.Rule, sc scope, form templates.RuleForm, field string) error {
	if governance.ErrorCode(err) != governance.EINVALID {
		return err
	}
	form.Errors[field] = governance.ErrorMessage(err)
	return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
}

// handleRuleEdit writes a new version; a reason is asked.
func (s *Server) handleRuleEdit(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	form := ruleForm(c, "edit")
	if form.Text == "" {
		form.Errors["text"] = "The rule text cannot be empty."
	}
	if form.Reason == "" {
		form.Errors["reason"] = "Say why the rule changes."
	}
	if len(form.Errors) > 0 {
		return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
	}
	if _, err := s.store.EditRule(c.Request().Context(), actor(c), r.ID, governance.RuleEdit{
		Text: form.Text, Kind: governance.MemoryType(form.Kind), Reason: form.Reason}); err != nil {
		return s.invalidOr(c, err, r, sc, form, "text")
	}
	return s.done(c, templates.RuleURL(r.ID), fmt.Sprintf("Rule #%d: new version saved.", r.ID))
}

// needConfirm checks the reason and the confirmation box of a destructive action.
func needConfirm(c echo.Context, form *templates.RuleForm) {
	if form.Reason == "" {
		form.Errors["reason"] = "Give a reason."
	}
	if c.FormValue("confirm") != "yes" {
		form.Errors["confirm"] = "Tick the box to confirm."
	}
}

// handleRuleDemote moves a rule one step down: active → stale → archived.
func (s *Server) handleRuleDemote(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	form := ruleForm(c, "demote")
	if needConfirm(c, &form); len(form.Errors) > 0 {
		return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
	}
	after, err := s.store.DemoteRule(c.Request().Context(), actor(c), r.ID, form.Reason)
	if err != nil {
		return err
	}
	return s.done(c, templates.RuleURL(r.ID), fmt.Sprintf("Rule #%d is %s now.", r.ID, after.Status))
}

// handleRuleToCandidates archives a rule and returns its candidates to the held queue.
func (s *Server) handleRuleToCandidates(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	form := ruleForm(c, "to_candidates")
	if needConfirm(c, &form); len(form.Errors) > 0 {
		return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
	}
	if _, err := s.store.DemoteRuleToCandidates(c.Request().Context(), actor(c), r.ID, form.Reason); err != nil {
		return err
	}
	return s.done(c, templates.RuleURL(r.ID), fmt.Sprintf("Rule #%d archived; its candidates are held again.", r.ID))
}

// handleRuleRestore brings a stale, archived or rejected rule back.
func (s *Server) handleRuleRestore(c echo.Context) error {
	r, _, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	after, err := s.store.RestoreRule(c.Request().Context(), actor(c), r.ID, strings.TrimSpace(c.FormValue("reason")))
	if err != nil {
		return err
	}
	return s.done(c, templates.RuleURL(r.ID), fmt.Sprintf("Rule #%d is %s again.", r.ID, after.Status))
}

// handleRuleSupersede links the newer rule that replaces this one.
func (s *Server) handleRuleSupersede(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	form := ruleForm(c, "supersede")
	needConfirm(c, &form)
	newer, perr := strconv.ParseInt(strings.TrimPrefix(form.NewRule, "#"), 10, 64)
	if perr != nil || newer <= 0 {
		form.Errors["newer"] = "Give the id of the newer rule."
	}
	if len(form.Errors) > 0 {
		return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
	}
	if _, err := s.store.SupersedeRule(c.Request().Context(), actor(c), r.ID, newer, form.Reason); err != nil {
		return s.invalidOr(c, err, r, sc, form, "newer")
	}
	return s.done(c, templates.RuleURL(r.ID), fmt.Sprintf("Rule #%d is linked to its replacement #%d.", r.ID, newer))
}

// handleRulePause keeps a rule but takes it out of recall.
func (s *Server) handleRulePause(c echo.Context) error { return s.setPaused(c, true) }

// handleRuleUnpause puts a paused rule back into recall.
func (s *Server) handleRuleUnpause(c echo.Context) error { return s.setPaused(c, false) }

func (s *Server) setPaused(c echo.Context, paused bool) error {
	r, _, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	if _, err := s.store.SetRulePaused(c.Request().Context(), actor(c), r.ID, paused, strings.TrimSpace(c.FormValue("reason"))); err != nil {
		return err
	}
	msg := fmt.Sprintf("Rule #%d paused: recall leaves it out.", r.ID)
	if !paused {
		msg = fmt.Sprintf("Rule #%d resumed.", r.ID)
	}
	return s.done(c, templates.RuleURL(r.ID), msg)
}

// handleRuleExpiry sets or clears a rule's expiry date (end of that day, UTC).
func (s *Server) handleRuleExpiry(c echo.Context) error {
	r, sc, err := s.reviewedRule(c)
	if err != nil {
		return err
	}
	form := ruleForm(c, "expiry")
	var at *time.Time
	if c.FormValue("clear") == "" {
		day, err := time.Parse("2006-01-02", form.Expires)
		if err != nil {
			form.Errors["expires"] = "Pick a date."
			return s.renderRule(c, http.StatusUnprocessableEntity, r, sc, form)
		}
		end := day.Add(24*time.Hour - time.Second)
		at = &end
	}
	if _, err := s.store.SetRuleExpiry(c.Request().Context(), actor(c), r.ID, at, form.Reason); err != nil {
		return s.invalidOr(c, err, r, sc, form, "expires")
	}
	msg := fmt.Sprintf("Rule #%d no longer expires.", r.ID)
	if at != nil {
		msg = fmt.Sprintf("Rule #%d expires at the end of %s (UTC).", r.ID, form.Expires)
	}
	return s.done(c, templates.RuleURL(r.ID), msg)
}
