package web

import (
	"context"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

// scope is what one account may see of one project: everything (admins,
// the project's reviewers) or one subject's data (the project's members).
type scope struct {
	Project *governance.Project
	Access  string // admin, reviewer or member
	// Subject, when set, limits every query to that subject's data.
	Subject *string
}

// scopeFor returns the account's scope in p (governance.ScopeIn), or false
// when it has none.
func scopeFor(a *governance.Account, p *governance.Project) (scope, bool) {
	sc, ok := governance.ScopeIn(a, p.ID)
	if !ok {
		return scope{}, false
	}
	return scope{Project: p, Access: sc.Role, Subject: sc.Subject}, true
}

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

// subjectID is the subject the scope is limited to, or "".
func (sc scope) subjectID() string {
	if sc.Subject == nil {
		return ""
	}
	return *sc.Subject
}

// projectScope loads the project named by slug and the current account's
// scope in it: ENOTFOUND for an unknown project, EFORBIDDEN for a project
// the account has no role in.
func (s *Server) projectScope(c echo.Context, slug string) (scope, error) {
	ctx := c.Request().Context()
	p, err := s.store.FindProjectBySlug(ctx, slug)
	if err != nil {
		return scope{}, err
	}
	return projectScopeOf(ctx, p)
}

// projectScopeByID is projectScope for a project named by its id, as the
// objects of deep links (rules, candidates, events) name theirs.
func (s *Server) projectScopeByID(ctx context.Context, projectID int64) (scope, error) {
	p, err := s.store.FindProjectByID(ctx, projectID)
	if err != nil {
		return scope{}, err
	}
	return projectScopeOf(ctx, p)
}

func projectScopeOf(ctx context.Context, p *governance.Project) (scope, error) {
	if err := can(ctx, governance.ActSee, governance.InProject(p)); err != nil {
		return scope{}, err
	}
	sc, _ := scopeFor(auth.UserFrom(ctx), p)
	return sc, nil
}

// visibleScopes returns the account's scope in every project it may see,
// in the store's project order.
func (s *Server) visibleScopes(ctx context.Context) ([]scope, error) {
	projects, err := s.store.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	a := auth.UserFrom(ctx)
	var out []scope
	for _, p := range projects {
		if sc, ok := scopeFor(a, p); ok {
			out = append(out, sc)
		}
	}
	return out, nil
}

// errEventNotFound hides whether an event exists from those who may not see it.
var errEventNotFound = governance.Errorf(governance.ENOTFOUND, "Event not found.")

var errSessionNotFound = governance.Errorf(governance.ENOTFOUND, "Session not found.")

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

// reviewScope is the viewer's scope in the project of the path, which must
// be a reviewer's (or admin's): members get 403.
func (s *Server) reviewScope(c echo.Context) (scope, error) {
	slug, err := pathParam(c, "project")
	if err != nil {
		return scope{}, err
	}
	sc, err := s.projectScope(c, slug)
	if err != nil {
		return scope{}, err
	}
	if err := can(c.Request().Context(), governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return scope{}, err
	}
	return sc, nil
}

// ruleInScope loads the rule of the path and the viewer's scope in its
// project: 404 for an unknown rule, 403 without a role in the project.
func (s *Server) ruleInScope(c echo.Context) (*governance.Rule, scope, error) {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return nil, scope{}, err
	}
	r, err := s.store.FindRuleByID(ctx, id)
	if err != nil {
		return nil, scope{}, err
	}
	sc, err := s.projectScopeByID(ctx, r.ProjectID)
	if err != nil {
		return nil, scope{}, err
	}
	return r, sc, nil
}

// reviewedRule is ruleInScope for reviewers and admins only.
func (s *Server) reviewedRule(c echo.Context) (*governance.Rule, scope, error) {
	r, sc, err := s.ruleInScope(c)
	if err != nil {
		return nil, scope{}, err
	}
	if err := can(c.Request().Context(), governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return nil, scope{}, err
	}
	return r, sc, nil
}
