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

// scopeFor returns the account's scope in p, or false when it has none.
func scopeFor(a *governance.Account, p *governance.Project) (scope, bool) {
	switch {
	case a == nil:
		return scope{}, false
	case a.IsAdmin:
		return scope{Project: p, Access: "admin"}, true
	case a.CanReview(p.ID):
		return scope{Project: p, Access: string(governance.ProjectReviewer)}, true
	}
	m, ok := a.MembershipFor(p.ID)
	if !ok || m.Role != governance.ProjectMember || m.SubjectID == "" {
		return scope{}, false
	}
	subject := m.SubjectID
	return scope{Project: p, Access: string(governance.ProjectMember), Subject: &subject}, true
}

// canSee reports whether data about subjectID is visible in this scope.
func (sc scope) canSee(subjectID string) bool {
	return sc.Subject == nil || *sc.Subject == subjectID
}

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
	sc, ok := scopeFor(auth.UserFrom(ctx), p)
	if !ok {
		return scope{}, governance.Errorf(governance.EFORBIDDEN, "You have no access to project %s.", p.Slug)
	}
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
