package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// The code checks of a rule, edited by the reviewers of its project. The
// rule page links here; A/B evals run them against model answers.

// handleRuleChecksShow shows a rule's code checks and the form to add one.
func (s *Server) handleRuleChecksShow(c echo.Context) error {
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	return s.renderRuleChecks(c, http.StatusOK, id, templates.RuleCheckForm{Type: evals.CheckContains})
}

func (s *Server) renderRuleChecks(c echo.Context, status int, id int64, form templates.RuleCheckForm) error {
	ctx := c.Request().Context()
	rc, err := s.app.Rules.Checks(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	if rc.Invalid != nil {
		// Checks stored by hand that no longer parse: show the problem,
		// an added check replaces them.
		problem := governance.Text{ID: rc.Invalid.Error()}
		if ve, ok := evals.IsValidation(rc.Invalid); ok {
			problem = ve.Sentence()
		}
		form.Error = tr(c, "rule.checks_invalid", "Problem", locale.From(ctx).Text(problem))
	}
	meta, err := s.meta(c, tr(c, "rule.checks_title", "ID", rc.Rule.ID), "rules")
	if err != nil {
		return err
	}
	v := templates.RuleChecksView{Rule: rc.Rule, Form: form, Types: evals.CheckTypes, CSRF: meta.CSRF}
	for _, ch := range rc.Checks {
		v.Checks = append(v.Checks, checkText(ch))
	}
	return render(c, status, templates.RuleChecksPage(meta, v))
}

// ruleCheckForm reads the add-check form.
func ruleCheckForm(c echo.Context) templates.RuleCheckForm {
	f := templates.RuleCheckForm{}
	for name, p := range map[string]*string{
		"type": &f.Type, "value": &f.Value, "path": &f.Path, "equals": &f.Equals, "start": &f.Start,
		"end": &f.End, "labels": &f.Labels, "mode": &f.Mode, "count": &f.Count,
	} {
		*p = strings.TrimSpace(c.FormValue(name))
	}
	return f
}

// checkFromForm builds the check the form describes (Rules.AddCheck
// validates it).
func checkFromForm(f templates.RuleCheckForm) (*evals.Check, error) {
	ch := &evals.Check{Type: f.Type, Value: f.Value, Path: f.Path, Start: f.Start, End: f.End, Mode: f.Mode}
	if f.Equals != "" {
		if err := json.Unmarshal([]byte(f.Equals), &ch.Equals); err != nil {
			ch.Equals = f.Equals // a bare word is a string
		}
	}
	for _, l := range strings.Split(f.Labels, ",") {
		if l = strings.TrimSpace(l); l != "" {
			ch.Labels = append(ch.Labels, l)
		}
	}
	if f.Count != "" {
		n, err := strconv.Atoi(f.Count)
		if err != nil {
			return nil, governance.Errorf(governance.EINVALID, "At least (blocks) must be a whole number.")
		}
		ch.Count = n
	}
	return ch, nil
}

// handleRuleChecksCreate adds a check to a rule.
func (s *Server) handleRuleChecksCreate(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	form := ruleCheckForm(c)
	ch, err := checkFromForm(form)
	if err == nil {
		err = s.app.Rules.AddCheck(ctx, actorOf(ctx), id, ch)
	}
	if governance.ErrorCode(err) == governance.EINVALID {
		form.Error = errorText(c, err)
		return s.renderRuleChecks(c, http.StatusUnprocessableEntity, id, form)
	}
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "rule.flash.check_added", "Check", ch.String())); err != nil {
		return err
	}
	return redirect(c, templates.RuleChecksURL(id))
}

// handleRuleChecksDelete removes one check (by position) from a rule.
func (s *Server) handleRuleChecksDelete(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	i, err := strconv.Atoi(c.FormValue("index"))
	if err != nil {
		i = -1 // no such check
	}
	removed, err := s.app.Rules.RemoveCheck(ctx, actorOf(ctx), id, i)
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "rule.flash.check_removed", "Check", removed.String())); err != nil {
		return err
	}
	return redirect(c, templates.RuleChecksURL(id))
}
