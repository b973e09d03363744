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
	"github.com/mnemo-console/mnemo/web/templates"
)

// The code checks of a rule, edited by the reviewers of its project. The
// rule page links here; A/B evals run them against model answers.

// ruleForChecks loads a rule the current account reviews.
func (s *Server) ruleForChecks(c echo.Context) (*governance.Rule, *governance.Account, error) {
	a := auth.UserFrom(c.Request().Context())
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return nil, nil, err
	}
	r, err := s.store.FindRuleByID(c.Request().Context(), id)
	if err != nil {
		return nil, nil, err
	}
	if governance.Can(governance.AccountActor(a), governance.ActReview, governance.Object{ProjectID: r.ProjectID}) != nil {
		return nil, nil, governance.Errorf(governance.EFORBIDDEN, "Only reviewers of the rule's project edit its checks.")
	}
	return r, a, nil
}

func (s *Server) ruleChecks(c echo.Context, r *governance.Rule) ([]*evals.Check, error) {
	stored, err := s.store.FindRuleChecks(c.Request().Context(), []int64{r.ID})
	if err != nil {
		return nil, err
	}
	return evals.ParseChecks(stored[r.ID])
}

// handleRuleChecksShow shows a rule's code checks and the form to add one.
func (s *Server) handleRuleChecksShow(c echo.Context) error {
	r, _, err := s.ruleForChecks(c)
	if err != nil {
		return err
	}
	return s.renderRuleChecks(c, http.StatusOK, r, templates.RuleCheckForm{Type: evals.CheckContains})
}

func (s *Server) renderRuleChecks(c echo.Context, status int, r *governance.Rule, form templates.RuleCheckForm) error {
	checks, err := s.ruleChecks(c, r)
	if err != nil {
		// Checks stored by hand that no longer parse: show the problem,
		// an added check replaces them.
		form.Error = "The stored checks are invalid (" + err.Error() + "); adding a check replaces them."
	}
	meta, err := s.meta(c, "Code checks · rule "+strconv.FormatInt(r.ID, 10), "rules")
	if err != nil {
		return err
	}
	v := templates.RuleChecksView{Rule: r, Form: form, Types: evals.CheckTypes, CSRF: meta.CSRF}
	for _, ch := range checks {
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

// checkFromForm builds and validates the check the form describes.
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
	b, _ := json.Marshal([]*evals.Check{ch})
	if _, err := evals.ParseChecks(string(b)); err != nil {
		return nil, governance.Errorf(governance.EINVALID, "%s", strings.TrimPrefix(err.Error(), "check 1: "))
	}
	return ch, nil
}

// handleRuleChecksCreate adds a check to a rule.
func (s *Server) handleRuleChecksCreate(c echo.Context) error {
	r, a, err := s.ruleForChecks(c)
	if err != nil {
		return err
	}
	form := ruleCheckForm(c)
	ch, err := checkFromForm(form)
	if err != nil {
		form.Error = governance.ErrorMessage(err)
		return s.renderRuleChecks(c, http.StatusUnprocessableEntity, r, form)
	}
	checks, _ := s.ruleChecks(c, r) // invalid stored checks are replaced
	checks = append(checks, ch)
	if err := s.saveRuleChecks(c, r, a, checks); err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, "Check added: "+ch.String()+"."); err != nil {
		return err
	}
	return redirect(c, templates.RuleChecksURL(r.ID))
}

// handleRuleChecksDelete removes one check (by position) from a rule.
func (s *Server) handleRuleChecksDelete(c echo.Context) error {
	r, a, err := s.ruleForChecks(c)
	if err != nil {
		return err
	}
	checks, err := s.ruleChecks(c, r)
	if err != nil {
		return governance.Errorf(governance.ECONFLICT, "The stored checks are invalid; add a check to replace them.")
	}
	i, err := strconv.Atoi(c.FormValue("index"))
	if err != nil || i < 0 || i >= len(checks) {
		return governance.Errorf(governance.EINVALID, "No such check; reload the page.")
	}
	removed := checks[i]
	checks = append(checks[:i], checks[i+1:]...)
	if err := s.saveRuleChecks(c, r, a, checks); err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, "Check removed: "+removed.String()+"."); err != nil {
		return err
	}
	return redirect(c, templates.RuleChecksURL(r.ID))
}

func (s *Server) saveRuleChecks(c echo.Context, r *governance.Rule, a *governance.Account, checks []*evals.Check) error {
	if checks == nil {
		checks = []*evals.Check{}
	}
	b, err := json.Marshal(checks)
	if err != nil {
		return err
	}
	return s.store.SetRuleChecks(c.Request().Context(), r.ID, string(b), "account:"+a.Username)
}
