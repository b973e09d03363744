package web

import (
	"context"

	"github.com/labstack/echo/v4"
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

// can asks the policy (governance.Can) whether the request's actor may do
// action to object.
func can(ctx context.Context, action governance.Action, object governance.Object) error {
	return governance.Can(actorOf(ctx), action, object)
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

// projectScope loads the project named by slug and the current account's
// scope in it: ENOTFOUND for an unknown project, EFORBIDDEN for a project
// the account has no role in.
func (s *Server) projectScope(c echo.Context, slug string) (scope, error) {
	ctx := c.Request().Context()
	return s.app.Projects.Scope(ctx, actorOf(ctx), slug)
}

// projectScopeByID is projectScope for a project named by its id, as the
// objects of deep links (rules, candidates, events) name theirs.
func (s *Server) projectScopeByID(ctx context.Context, projectID int64) (scope, error) {
	return s.app.Projects.ScopeByID(ctx, actorOf(ctx), projectID)
}

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

// actor is the audit name of the signed-in account.
func actor(c echo.Context) string {
	if a := auth.UserFrom(c.Request().Context()); a != nil {
		return a.Username
	}
	return ""
}

// ruleInScope loads the rule of the path and the viewer's scope in its
// project: 404 for an unknown rule, 403 without a role in the project.
func (s *Server) ruleInScope(c echo.Context) (*governance.Rule, scope, error) {
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return nil, scope{}, err
	}
	ctx := c.Request().Context()
	return s.app.Rules.Get(ctx, actorOf(ctx), id)
}
