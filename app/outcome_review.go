package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// The reviewers' side of outcomes: the demotions and replacements the
// heartbeat proposed from harmful reports, each with its evidence and a
// drafted regression case, decided with or without the case; and the
// project policy that an approval must not regress the offline suites.

// OutcomeReviewView is one review with what the reviewer decides on.
type OutcomeReviewView struct {
	Review *governance.OutcomeReview
	Scope  Scope
	// Rule is the rule that misled agents; Replacement the newer rule
	// approving activates (nil for a demotion).
	Rule, Replacement *governance.Rule
	// Reports are the review's evidence, newest first (each names its
	// recall trace).
	Reports []*governance.OutcomeReport
	// Case is the drafted regression case, CaseYAML its suite line.
	Case     governance.RegressionCase
	CaseYAML string
	// Suite names the project's regression suite the case goes to.
	Suite string
}

// OutcomeReviews lists a project's open reviews for its reviewers.
func (rv Reviews) OutcomeReviews(ctx context.Context, actor governance.Actor, slug string) ([]*OutcomeReviewView, error) {
	sc, err := rv.projects.ReviewScope(ctx, actor, slug)
	if err != nil {
		return nil, err
	}
	reviews, _, err := rv.effects.store.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{ProjectID: sc.Project.ID,
		Statuses: []governance.OutcomeReviewStatus{governance.ReviewOpen}, Limit: 50})
	if err != nil {
		return nil, err
	}
	out := make([]*OutcomeReviewView, 0, len(reviews))
	for _, r := range reviews {
		v, err := rv.outcomeView(ctx, sc, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// OutcomeReview loads one review for the reviewers of its project.
func (rv Reviews) OutcomeReview(ctx context.Context, actor governance.Actor, id int64) (*OutcomeReviewView, error) {
	r, err := rv.effects.store.FindOutcomeReviewByID(ctx, id)
	if err != nil {
		return nil, err
	}
	sc, err := rv.projects.ScopeByID(ctx, actor, r.ProjectID)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return nil, err
	}
	return rv.outcomeView(ctx, sc, r)
}

func (rv Reviews) outcomeView(ctx context.Context, sc Scope, r *governance.OutcomeReview) (*OutcomeReviewView, error) {
	v := &OutcomeReviewView{Review: r, Scope: sc, Suite: evals.RegressionSuiteName(sc.Project.Slug)}
	rules, err := rv.store.FindRulesByIDs(ctx, []int64{r.RuleID, r.ReplacementID})
	if err != nil {
		return nil, err
	}
	for _, x := range rules {
		switch x.ID {
		case r.RuleID:
			v.Rule = x
		case r.ReplacementID:
			v.Replacement = x
		}
	}
	if v.Rule == nil {
		return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	if v.Reports, _, err = rv.effects.store.FindOutcomes(ctx, governance.OutcomeFilter{ReviewID: r.ID, Limit: 50}); err != nil {
		return nil, err
	}
	v.Case = governance.DraftRegressionCase(r, v.Rule, v.Reports)
	v.CaseYAML = evals.RegressionCaseYAML(v.Case)
	return v, nil
}

// OutcomeDecision is a reviewer's decision on an outcome review: accept
// (demote or replace the rule) or discard, whether the drafted regression
// case joins the project's regression suite, and why.
type OutcomeDecision struct {
	Accept  bool
	AddCase bool
	Reason  string
}

// DecideOutcome decides an open review. Without a reason it is
// FieldErrors ("reason"); when the project requires no regression and
// accepting would regress its offline suites it is FieldErrors
// ("decision"). An accepted case is added to the project's regression
// suite first, so a decision never claims a case the suite lacks.
func (rv Reviews) DecideOutcome(ctx context.Context, actor governance.Actor, id int64, d OutcomeDecision) (*governance.OutcomeReview, error) {
	v, err := rv.OutcomeReview(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	d.Reason = strings.TrimSpace(d.Reason)
	if d.Reason == "" {
		return nil, FieldErrors{"reason": governance.Say("Say why you decide so.")}
	}
	if v.Review.Status != governance.ReviewOpen {
		return nil, governance.Errorf(governance.ECONFLICT, "Review %d was already decided.", id)
	}
	if d.Accept {
		if err := rv.noRegression(ctx, v.Scope.Project, EffectTarget{ReviewID: id}); err != nil {
			return nil, decisionField(err)
		}
	}
	addCase := d.Accept && d.AddCase
	var undo func()
	if addCase {
		if undo, err = rv.addRegressionCase(ctx, actor, v); err != nil {
			return nil, err
		}
	}
	out, err := rv.effects.store.DecideOutcomeReview(ctx, actor.Name(), id, d.Accept, d.Reason, addCase)
	if err != nil {
		if undo != nil {
			undo()
		}
		return nil, decisionField(err)
	}
	rv.effects.Forget(v.Scope.Project.ID)
	return out, nil
}

// decisionField shows a refused decision (bad input, a conflict such as
// the policy's refusal) on the decision form.
func decisionField(err error) error {
	switch governance.ErrorCode(err) {
	case governance.EINVALID, governance.ECONFLICT:
		return FieldErrors{"decision": governance.ErrorText(err)}
	}
	return err
}

// addRegressionCase adds v's drafted case to the project's regression
// suite and returns how to take it out again.
func (rv Reviews) addRegressionCase(ctx context.Context, actor governance.Actor, v *OutcomeReviewView) (func(), error) {
	st := rv.effects.store
	name := evals.RegressionSuiteName(v.Scope.Project.Slug)
	old, err := st.FindEvalSuiteByName(ctx, name)
	body := ""
	switch governance.ErrorCode(err) {
	case "":
		if old.Origin != evals.OriginRegression {
			return nil, governance.Errorf(governance.ECONFLICT, "A %s suite named %q already exists; choose another name.", old.Origin, name)
		}
		body = old.Body
	case governance.ENOTFOUND:
	default:
		return nil, err
	}
	next, err := evals.AddRegressionCase(body, v.Scope.Project.Slug, v.Case)
	if err != nil {
		return nil, err
	}
	row := &evals.SuiteRow{Name: name, Origin: evals.OriginRegression, Body: next}
	if err := st.UpsertEvalSuite(ctx, row, actor.Name()); err != nil {
		return nil, err
	}
	return func() {
		if old != nil {
			_ = st.UpsertEvalSuite(context.WithoutCancel(ctx), &evals.SuiteRow{Name: name, Origin: evals.OriginRegression, Body: old.Body}, actor.Name())
		}
	}, nil
}

// noRegression refuses, when the project requires no regression, an
// approval that would regress (or could not be compared in time).
func (rv Reviews) noRegression(ctx context.Context, p *governance.Project, t EffectTarget) error {
	policy, err := rv.effects.store.FindOutcomePolicy(ctx, p.ID)
	if err != nil || !policy.RequireNoRegression {
		return err
	}
	e, err := rv.effects.compute(ctx, p, t)
	if err != nil {
		return err
	}
	if !e.Blocks() {
		return nil
	}
	if e.Regressed > 0 {
		return governance.Errorf(governance.ECONFLICT, "Approving regresses %d eval case(s); this project requires no regression.", e.Regressed)
	}
	return governance.Errorf(governance.ECONFLICT, "The eval suites could not be compared in time; this project requires no regression.")
}

// noRegressionMany is noRegression for a bulk approval, all or none: it
// names every selected proposal that would regress.
func (rv Reviews) noRegressionMany(ctx context.Context, p *governance.Project, ids []int64) error {
	policy, err := rv.effects.store.FindOutcomePolicy(ctx, p.ID)
	if err != nil || !policy.RequireNoRegression {
		return err
	}
	var blocked []string
	for _, id := range ids {
		e, err := rv.effects.compute(ctx, p, EffectTarget{RuleID: id})
		if err != nil {
			return err
		}
		if e.Blocks() {
			blocked = append(blocked, fmt.Sprint(id))
		}
	}
	if len(blocked) > 0 {
		return FieldErrors{"ids": governance.Say("Approving rule(s) %s regresses the project's eval suites, which it does not allow; nothing was approved.",
			strings.Join(blocked, ", "))}
	}
	return nil
}
