package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Outcome pages (docs/outcomes.md): a stored recall with its receipt, the
// reviews drafted from harmful reports and their decisions, "What
// approving changes", and the project's outcome policy. Who may see and
// decide what is app's (Outcomes, Reviews, Effects).

// handleTraceShow is the page of one stored recall.
func (s *Server) handleTraceShow(c echo.Context) error {
	id, err := idParam(c, "id", "recall")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v, err := s.app.Outcomes.Trace(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, tr(c, "outcome.trace_title", "ID", id), "recall")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.TracePage(meta, templates.TraceView{Trace: v.Trace, Project: v.Scope.Project,
		Intact: v.Intact, Checks: v.Checks, Labels: v.Labels, Reports: v.Reports}))
}

// effectView is the panel of a comparison.
func effectView(e *app.ApprovalEffect, id, src string) templates.EffectView {
	v := templates.EffectView{ID: id, URL: src, Regressed: e.Regressed, Fixed: e.Fixed, Unchanged: e.Unchanged, NotRun: e.NotRun,
		Incomplete: e.Incomplete, RequireNoRegression: e.RequireNoRegression, Blocks: e.Blocks()}
	for _, se := range e.Suites {
		suite := templates.EffectSuite{Name: se.Suite}
		for _, c := range se.Cases {
			suite.Cases = append(suite.Cases, templates.EffectCase{ID: c.CaseID, Kind: string(c.Kind), Change: string(c.Change),
				Before: c.Before, After: c.After, Reason: c.Sentence(), NotRun: string(c.NotRun)})
		}
		v.Suites = append(v.Suites, suite)
	}
	return v
}

// renderEffect renders a panel: the panel alone for htmx, else a page.
func (s *Server) renderEffect(c echo.Context, back string, v templates.EffectView) error {
	if isPartial(c) {
		return render(c, http.StatusOK, templates.EffectPanel(v))
	}
	meta, err := s.meta(c, "What approving changes", "review")
	if err != nil {
		return err
	}
	v.Page = true
	return render(c, http.StatusOK, templates.EffectPage(meta, back, v))
}

// handleRuleEffect is "What approving changes" for a proposal.
func (s *Server) handleRuleEffect(c echo.Context) error {
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := s.app.Effects.Of(ctx, actorOf(ctx), app.EffectTarget{RuleID: id})
	if err != nil {
		return err
	}
	return s.renderEffect(c, templates.RuleURL(id), effectView(e, templates.RuleEffectID(id), templates.RuleEffectURL(id)))
}

// handleOutcomeReviewEffect is "What approving changes" for an outcome review.
func (s *Server) handleOutcomeReviewEffect(c echo.Context) error {
	id, err := idParam(c, "id", "review")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := s.app.Effects.Of(ctx, actorOf(ctx), app.EffectTarget{ReviewID: id})
	if err != nil {
		return err
	}
	return s.renderEffect(c, templates.OutcomeReviewURL(id), effectView(e, templates.OutcomeEffectID(id), templates.OutcomeEffectURL(id)))
}

// outcomeReviewView is a review as the queue and its page show it.
func outcomeReviewView(v *app.OutcomeReviewView, csrf, back string) templates.OutcomeReviewView {
	id := v.Review.ID
	return templates.OutcomeReviewView{Review: v.Review, Rule: v.Rule, Replacement: v.Replacement, Reports: v.Reports,
		CaseTask: v.Case.Task, CaseYAML: v.CaseYAML, Suite: v.Suite, CSRF: csrf, Back: back,
		Effect: templates.EffectView{ID: templates.OutcomeEffectID(id), URL: templates.OutcomeEffectURL(id)}}
}

// handleOutcomeReviewShow is one review's page, with its panel inline.
func (s *Server) handleOutcomeReviewShow(c echo.Context) error {
	id, err := idParam(c, "id", "review")
	if err != nil {
		return err
	}
	return s.renderOutcomeReview(c, http.StatusOK, id, templates.OutcomeDecisionForm{})
}

func (s *Server) renderOutcomeReview(c echo.Context, status int, id int64, form templates.OutcomeDecisionForm) error {
	ctx := c.Request().Context()
	v, err := s.app.Reviews.OutcomeReview(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	view := outcomeReviewView(v, csrfToken(c), templates.OutcomeReviewURL(id))
	view.Form = form
	e, err := s.app.Effects.Of(ctx, actorOf(ctx), app.EffectTarget{ReviewID: id})
	if err != nil {
		return err
	}
	view.Effect = effectView(e, templates.OutcomeEffectID(id), templates.OutcomeEffectURL(id))
	meta, err := s.meta(c, tr(c, "outcome.review_ref", "ID", id), "review")
	if err != nil {
		return err
	}
	return render(c, status, templates.OutcomeReviewPage(meta, v.Scope.Project, view))
}

// handleOutcomeReviewDecide accepts or discards a review; without a reason,
// or when the project's policy refuses the regression, the review's page
// comes back with 422.
func (s *Server) handleOutcomeReviewDecide(c echo.Context) error {
	id, err := idParam(c, "id", "review")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	accept := c.FormValue("decision") == "accept"
	d := app.OutcomeDecision{Accept: accept, AddCase: c.FormValue("add_case") == "on", Reason: c.FormValue("reason")}
	back := backTo(c, templates.OutcomeReviewURL(id))
	_, err = s.app.Reviews.DecideOutcome(ctx, actorOf(ctx), id, d)
	if fe, ok := app.AsFieldErrors(err); ok {
		return s.renderOutcomeReview(c, http.StatusUnprocessableEntity, id,
			templates.OutcomeDecisionForm{Reason: d.Reason, AddCase: d.AddCase, Errors: templates.FieldErrors(fe)})
	}
	if err != nil {
		return err
	}
	msg := tr(c, "outcome.flash_discarded", "ID", id)
	if accept {
		msg = tr(c, "outcome.flash_accepted", "ID", id)
	}
	return s.done(c, back, msg)
}

// handleOutcomePolicy changes a project's outcome policy (admins).
func (s *Server) handleOutcomePolicy(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	p, err := s.app.Outcomes.SetPolicy(ctx, actorOf(ctx), slug, c.FormValue("threshold"), c.FormValue("require_no_regression") == "on")
	if fe, ok := app.AsFieldErrors(err); ok {
		problem := locale.From(ctx).Text(fe["threshold"])
		if ferr := s.flash(c, auth.FlashError, tr(c, "outcome.flash_policy_invalid", "Problem", problem)); ferr != nil {
			return ferr
		}
		return redirect(c, templates.ReviewURL(slug, "", 1))
	}
	if err != nil {
		return err
	}
	return s.done(c, templates.ReviewURL(p.Slug, "", 1), tr(c, "outcome.flash_policy", "Name", p.Name))
}
