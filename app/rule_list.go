package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// RuleListStore lists rules.
type RuleListStore interface {
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
}

// ListProject lists the rules of project projectID that f selects (its
// project fields are set here), for those who may recall from the whole
// project: its API tokens with the recall scope, its reviewers and admins.
// The agent API's GET /api/v1/rules and the MCP list_rules tool call it.
// The list is never nil.
func (rs Rules) ListProject(ctx context.Context, actor governance.Actor, projectID int64, f governance.RuleFilter) ([]*governance.Rule, int, error) {
	if err := governance.Can(actor, governance.ActRecall, governance.Object{ProjectID: projectID}); err != nil {
		return nil, 0, err
	}
	f.ProjectID, f.ProjectIDs = &projectID, nil
	rules, total, err := rs.store.FindRules(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	if rules == nil {
		rules = []*governance.Rule{}
	}
	return rules, total, nil
}
