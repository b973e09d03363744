package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// RuleStore reads and changes rules.
type RuleStore interface {
	RuleListStore
	FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error)
}

// Rules are the use cases about one rule or a list of them.
type Rules struct {
	store    RuleStore
	projects Projects
}

// Get loads a rule and the actor's scope in its project: ENOTFOUND for an
// unknown rule, EFORBIDDEN without a role in the project.
func (rs Rules) Get(ctx context.Context, actor governance.Actor, id int64) (*governance.Rule, Scope, error) {
	r, err := rs.store.FindRuleByID(ctx, id)
	if err != nil {
		return nil, Scope{}, err
	}
	sc, err := rs.projects.ScopeByID(ctx, actor, r.ProjectID)
	if err != nil {
		return nil, Scope{}, err
	}
	return r, sc, nil
}

// GetReviewed is Get for the project's reviewers and admins only.
func (rs Rules) GetReviewed(ctx context.Context, actor governance.Actor, id int64) (*governance.Rule, Scope, error) {
	r, sc, err := rs.Get(ctx, actor, id)
	if err != nil {
		return nil, Scope{}, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return nil, Scope{}, err
	}
	return r, sc, nil
}
