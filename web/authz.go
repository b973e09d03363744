package web

import (
	"context"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

// scope is what the request's actor may see of one project (app.Scope).
type scope = app.Scope

// actorOf is the request's actor for the policy: its API token (agent API,
// MCP) or its signed-in account (nil: anonymous).
func actorOf(ctx context.Context) governance.Actor {
	if t := tokenFrom(ctx); t != nil {
		return governance.TokenActor(t)
	}
	return governance.AccountActor(auth.UserFrom(ctx))
}

// accountMay reports whether a may do action to no object in particular
// (cross-project pages, navigation entries).
func accountMay(action governance.Action) func(a *governance.Account) bool {
	return func(a *governance.Account) bool {
		return governance.Can(governance.AccountActor(a), action, governance.Object{}) == nil
	}
}

// isReviewer: reviewers of any project and admins (the policy's ActReviewAny).
var isReviewer = accountMay(governance.ActReviewAny)

// isAdmin: administrators (the policy's ActAdminister).
var isAdmin = accountMay(governance.ActAdminister)

// visibleScopes returns the account's scope in every project it may see,
// in the store's project order.
func (s *Server) visibleScopes(ctx context.Context) ([]scope, error) {
	return s.app.Projects.Visible(ctx, actorOf(ctx))
}

// hasSubject reports whether the account is an end user (member) of any project.
func hasSubject(a *governance.Account) bool {
	if a == nil {
		return false
	}
	for _, m := range a.Memberships {
		if m.Role == governance.ProjectMember && m.SubjectID != "" {
			return true
		}
	}
	return false
}

var errReviewersOnly = governance.Errorf(governance.EFORBIDDEN, "Only the project's reviewers may do this.")
