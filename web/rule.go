package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
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
		Sort:     c.QueryParam("sort"),
	}
}

// handleRuleIndex lists the rules of the viewer's projects with filters and search.
func (s *Server) handleRuleIndex(c echo.Context) error {
	ctx := c.Request().Context()
	form := newRuleFilterForm(c)
	page := pageParam(c)
	in := governance.RuleFilterInput{Status: form.Status, Kind: form.Kind, Reason: form.Reason, Paused: form.Paused,
		ExpiringDays: form.Expiring, Query: form.Query, Sort: form.Sort}
	if form.Subject != "" {
		in.Subject = &form.Subject
	}
	in.Offset = strconv.Itoa((page - 1) * rulePageSize)
	list, err := s.app.Rules.List(ctx, actorOf(ctx), app.RuleListQuery{Project: form.Project, Filter: in,
		Defaults: app.ReviewRuleDefaults(rulePageSize), SearchCountCap: ruleSearchCountCap})
	if err != nil {
		return err
	}
	v := templates.RuleListView{Form: form, Projects: list.Projects, Rules: list.Rules, Slugs: map[int64]string{}, CSRF: csrfToken(c),
		CanForgetSubjects: isAdmin(auth.UserFrom(ctx)), Outcomes: list.Outcomes,
		Similar: list.Similar, SimilarFailed: list.SimilarFailed}
	for _, p := range list.Projects {
		v.Slugs[p.ID] = p.Slug
	}
	v.Pager = cappedPager(page, rulePageSize, list.Total, list.Filter.CountCap, "rule-table", func(p int) string {
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
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	return s.renderRule(c, http.StatusOK, id, templates.RuleForm{})
}

// renderRule renders the rule page (Rules.Detail); form is a rejected
// submission (422).
func (s *Server) renderRule(c echo.Context, status int, id int64, form templates.RuleForm) error {
	ctx := c.Request().Context()
	d, err := s.app.Rules.Detail(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	r := d.Rule
	v := templates.RuleView{Rule: r, Project: d.Scope.Project, Now: s.app.Now().UTC(), CSRF: csrfToken(c), Form: form,
		Can: r.AllowedActions(), Evidence: d.Evidence, Replaces: d.Replaces, ReplacedBy: d.ReplacedBy, Replacements: d.Replacements,
		MergedInto: d.MergedInto, Audit: d.Audit, Outcomes: d.Outcomes, Reports: d.Reports, Reviews: d.Reviews}
	if d.Undo != nil {
		v.Undo = &templates.UndoOffer{RuleID: r.ID, AuditID: d.Undo.AuditID, Action: d.Undo.Action, CSRF: v.CSRF, Back: templates.RuleURL(r.ID)}
	}
	versions := d.Versions
	for i := len(versions) - 1; i >= 0; i-- {
		vv := templates.VersionView{Version: versions[i]}
		if i > 0 {
			vv.Diff = diffText(versions[i-1].Text, versions[i].Text)
		} else {
			vv.Diff = []templates.DiffSegment{{Op: "=", Text: versions[i].Text}}
		}
		v.Versions = append(v.Versions, vv)
	}
	for _, t := range d.Traces {
		ref := templates.TraceRef{ID: t.ID, At: t.CreatedAt, Actor: t.Actor, URL: s.traceURL(t.ID)}
		for _, e := range t.Trace.Considered {
			if e.ID == governance.RecallRuleID(r.ID) {
				ref.Included, ref.Reason = e.Included, e.Reason
			}
		}
		v.Traces = append(v.Traces, ref)
	}
	meta, err := s.meta(c, tr(c, "rule.title", "ID", r.ID), "rules")
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

// formProblem re-renders the rule page with 422, the form's values and
// the use case's field errors when err is app.FieldErrors, and returns any
// other error.
func (s *Server) formProblem(c echo.Context, id int64, form templates.RuleForm, err error) error {
	fe, ok := app.AsFieldErrors(err)
	if !ok {
		return err
	}
	form.Errors = templates.FieldErrors(fe)
	return s.renderRule(c, http.StatusUnprocessableEntity, id, form)
}

// ruleAction reads the rule id of the path and the action form on it.
func ruleAction(c echo.Context, action string) (int64, templates.RuleForm, error) {
	id, err := idParam(c, "id", "rule")
	return id, ruleForm(c, action), err
}

// confirmation is the reason and the confirmation box of a destructive
// action.
func confirmation(c echo.Context, form templates.RuleForm) app.Confirmation {
	return app.Confirmation{Reason: form.Reason, Confirmed: c.FormValue("confirm") == "yes"}
}

// handleRuleEdit writes a new version; a reason is asked.
func (s *Server) handleRuleEdit(c echo.Context) error {
	ctx := c.Request().Context()
	id, form, err := ruleAction(c, "edit")
	if err != nil {
		return err
	}
	if _, err := s.app.Rules.Edit(ctx, actorOf(ctx), id, governance.RuleEdit{
		Text: form.Text, Kind: governance.MemoryType(form.Kind), Reason: form.Reason}); err != nil {
		return s.formProblem(c, id, form, err)
	}
	return s.done(c, templates.RuleURL(id), tr(c, "rule.flash.edited", "ID", id))
}

// handleRuleDemote moves a rule one step down: active → stale → archived.
func (s *Server) handleRuleDemote(c echo.Context) error {
	ctx := c.Request().Context()
	id, form, err := ruleAction(c, "demote")
	if err != nil {
		return err
	}
	after, err := s.app.Rules.Demote(ctx, actorOf(ctx), id, confirmation(c, form))
	if err != nil {
		return s.formProblem(c, id, form, err)
	}
	msg := tr(c, "rule.flash.status_now", "ID", id, "Status", enumLabel(c, "rule_status", string(after.Status)))
	also, err := s.restoreReplaced(c, form.Reason)
	if err != nil {
		return err
	}
	if also != "" {
		// Two actions: neither is offered for undo here.
		return s.done(c, templates.RuleURL(id), msg+also)
	}
	return s.doneUndo(c, templates.RuleURL(id), msg, id)
}

// restoreReplaced restores the rule a form's "restore_replaced" box names
// (the one the rule just taken out of use had replaced), when it is
// ticked, and returns the sentence that says so ("" when not ticked).
func (s *Server) restoreReplaced(c echo.Context, reason string) (string, error) {
	v := c.FormValue("restore_replaced")
	if v == "" {
		return "", nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return "", governance.Errorf(governance.ENOTFOUND, "No such %s.", "rule")
	}
	ctx := c.Request().Context()
	r, err := s.app.Rules.Restore(ctx, actorOf(ctx), id, reason)
	if err != nil {
		return "", err
	}
	return " " + tr(c, "rule.flash.replaced_restored", "ID", r.ID, "Status", enumLabel(c, "rule_status", string(r.Status))), nil
}

// handleRuleToCandidates archives a rule and returns its candidates to the held queue.
func (s *Server) handleRuleToCandidates(c echo.Context) error {
	ctx := c.Request().Context()
	id, form, err := ruleAction(c, "to_candidates")
	if err != nil {
		return err
	}
	if _, err := s.app.Rules.ToCandidates(ctx, actorOf(ctx), id, confirmation(c, form)); err != nil {
		return s.formProblem(c, id, form, err)
	}
	return s.done(c, templates.RuleURL(id), tr(c, "rule.flash.to_candidates", "ID", id))
}

// handleRuleRestore brings a stale, archived or rejected rule back.
func (s *Server) handleRuleRestore(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	after, err := s.app.Rules.Restore(ctx, actorOf(ctx), id, c.FormValue("reason"))
	if err != nil {
		return err
	}
	return s.doneUndo(c, templates.RuleURL(id), tr(c, "rule.flash.status_again", "ID", id, "Status", enumLabel(c, "rule_status", string(after.Status))), id)
}

// handleRuleSupersede links the newer rule that replaces this one.
func (s *Server) handleRuleSupersede(c echo.Context) error {
	ctx := c.Request().Context()
	id, form, err := ruleAction(c, "supersede")
	if err != nil {
		return err
	}
	newer, perr := strconv.ParseInt(strings.TrimPrefix(form.NewRule, "#"), 10, 64)
	if perr != nil {
		newer = 0 // the use case asks for one
	}
	if _, err := s.app.Rules.Supersede(ctx, actorOf(ctx), id, newer, confirmation(c, form)); err != nil {
		return s.formProblem(c, id, form, err)
	}
	return s.done(c, templates.RuleURL(id), tr(c, "rule.flash.superseded", "ID", id, "Newer", newer))
}

// handleRulePause keeps a rule but takes it out of recall.
func (s *Server) handleRulePause(c echo.Context) error { return s.setPaused(c, true) }

// handleRuleUnpause puts a paused rule back into recall.
func (s *Server) handleRuleUnpause(c echo.Context) error { return s.setPaused(c, false) }

func (s *Server) setPaused(c echo.Context, paused bool) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	if _, err := s.app.Rules.SetPaused(ctx, actorOf(ctx), id, paused, c.FormValue("reason")); err != nil {
		return err
	}
	msg := tr(c, "rule.flash.paused", "ID", id)
	if !paused {
		msg = tr(c, "rule.flash.resumed", "ID", id)
	}
	return s.doneUndo(c, templates.RuleURL(id), msg, id)
}

// handleRuleExpiry sets or clears a rule's expiry date (end of that day, UTC).
func (s *Server) handleRuleExpiry(c echo.Context) error {
	ctx := c.Request().Context()
	id, form, err := ruleAction(c, "expiry")
	if err != nil {
		return err
	}
	var at *time.Time
	if c.FormValue("clear") == "" {
		day, err := time.Parse("2006-01-02", form.Expires)
		if err != nil {
			return s.formProblem(c, id, form, app.FieldErrors{"expires": governance.Say("Pick a date.")})
		}
		end := day.Add(24*time.Hour - time.Second)
		at = &end
	}
	if _, err := s.app.Rules.SetExpiry(ctx, actorOf(ctx), id, at, form.Reason); err != nil {
		return s.formProblem(c, id, form, err)
	}
	msg := tr(c, "rule.flash.no_expiry", "ID", id)
	if at != nil {
		msg = tr(c, "rule.flash.expires", "ID", id, "Date", locale.From(ctx).Date(*at))
	}
	return s.doneUndo(c, templates.RuleURL(id), msg, id)
}

// handleRuleUndoMany undoes a bulk approve or reject: the form names each
// rule and the audit row of its action ("undo" = "<rule>:<audit>"); every
// one must still be undoable by the actor, or nothing is undone.
func (s *Server) handleRuleUndoMany(c echo.Context) error {
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return governance.Errorf(governance.EINVALID, "Unreadable form.")
	}
	refs, _ := parseUndoRefs(form["undo"]) // none: the use case refuses once it has checked the reviewer
	undos := make([]governance.RuleUndo, len(refs))
	for i, r := range refs {
		undos[i] = governance.RuleUndo{RuleID: r.RuleID, AuditID: r.AuditID}
	}
	n, err := s.app.Rules.UndoMany(ctx, actorOf(ctx), undos)
	if err != nil {
		return err
	}
	return s.done(c, backTo(c, "/review"), trn(c, "rule.flash.undone_many", n))
}

// handleRuleUndo puts a rule back as it was before its last action (the
// form names that action's audit row): its reviewer, or an admin, within
// the undo window.
func (s *Server) handleRuleUndo(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	auditID, perr := strconv.ParseInt(c.FormValue("audit"), 10, 64)
	if perr != nil {
		auditID = 0 // the use case asks for one
	}
	after, err := s.app.Rules.Undo(ctx, actorOf(ctx), id, auditID)
	if err != nil {
		return err
	}
	return s.done(c, backTo(c, templates.RuleURL(id)), tr(c, "rule.flash.undone", "ID", id,
		"Status", enumLabel(c, "rule_status", string(after.Status))))
}
