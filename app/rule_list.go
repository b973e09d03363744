package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// RuleListStore lists rules.
type RuleListStore interface {
	FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error)
}

// MaxProjectRules bounds one page of ListProject.
const MaxProjectRules = 500

// ListProject lists the rules of project projectID that the filter in
// selects (active ones by default, 100 a page, forgotten ones never), for
// those who may recall from the whole project: its API tokens with the
// recall scope, its reviewers and admins. The agent API's GET
// /api/v1/rules and the MCP list_rules tool call it; the reviewers' rules
// page calls ListForReview. The list is never nil.
func (rs Rules) ListProject(ctx context.Context, actor governance.Actor, projectID int64, in governance.RuleFilterInput) (*RuleList, error) {
	if err := governance.Can(actor, governance.ActRecall, governance.Object{ProjectID: projectID}); err != nil {
		return nil, err
	}
	f, err := governance.ParseRuleFilter(in, governance.RuleFilterDefaults{
		Statuses: []governance.RuleStatus{governance.RuleActive}, Limit: 100, MaxLimit: MaxProjectRules})
	if err != nil {
		return nil, err
	}
	f.ProjectID, f.ProjectIDs = &projectID, nil
	rules, total, err := rs.store.FindRules(ctx, f)
	if err != nil {
		return nil, err
	}
	if rules == nil {
		rules = []*governance.Rule{}
	}
	return &RuleList{Rules: rules, Total: total, Filter: f}, nil
}
