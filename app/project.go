package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// ProjectStore reads projects.
type ProjectStore interface {
	FindProjects(ctx context.Context) ([]*governance.Project, error)
	FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error)
	FindProjectByID(ctx context.Context, id int64) (*governance.Project, error)
}

// Scope is what an actor may see of one project: everything (admins, the
// project's reviewers, the project's API tokens) or one subject's data (the
// project's members).
type Scope struct {
	Project *governance.Project
	// Access is "admin", "reviewer", "member", or "token" for an API token.
	Access string
	// Subject, when set, limits every query to that subject's data.
	Subject *string
}

// SubjectID is the subject the scope is limited to, or "".
func (sc Scope) SubjectID() string {
	if sc.Subject == nil {
		return ""
	}
	return *sc.Subject
}

// Reviewer reports whether the scope covers the whole project.
func (sc Scope) Reviewer() bool { return sc.Subject == nil }

// scopeOf is the actor's scope in p, or false when it has none.
func scopeOf(actor governance.Actor, p *governance.Project) (Scope, bool) {
	if actor.Token != nil {
		if actor.Token.ProjectID != p.ID {
			return Scope{}, false
		}
		return Scope{Project: p, Access: "token"}, true
	}
	sc, ok := governance.ScopeIn(actor.Account, p.ID)
	if !ok {
		return Scope{}, false
	}
	return Scope{Project: p, Access: sc.Role, Subject: sc.Subject}, true
}

// Projects are the use cases about projects and the actor's place in them.
type Projects struct {
	store ProjectStore
}

// Scope loads the project named by slug and the actor's scope in it:
// ENOTFOUND for an unknown project, EFORBIDDEN for a project the actor has
// no role in.
func (ps Projects) Scope(ctx context.Context, actor governance.Actor, slug string) (Scope, error) {
	p, err := ps.store.FindProjectBySlug(ctx, slug)
	if err != nil {
		return Scope{}, err
	}
	return scopeIn(actor, p)
}

// ScopeByID is Scope for a project named by its id, as the objects of deep
// links (rules, candidates, events) name theirs.
func (ps Projects) ScopeByID(ctx context.Context, actor governance.Actor, id int64) (Scope, error) {
	p, err := ps.store.FindProjectByID(ctx, id)
	if err != nil {
		return Scope{}, err
	}
	return scopeIn(actor, p)
}

// ReviewScope is Scope for the project's reviewers and admins only:
// members get EFORBIDDEN.
func (ps Projects) ReviewScope(ctx context.Context, actor governance.Actor, slug string) (Scope, error) {
	sc, err := ps.Scope(ctx, actor, slug)
	if err != nil {
		return Scope{}, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(sc.Project)); err != nil {
		return Scope{}, err
	}
	return sc, nil
}

// Visible returns the actor's scope in every project it may see, in the
// store's project order.
func (ps Projects) Visible(ctx context.Context, actor governance.Actor) ([]Scope, error) {
	projects, err := ps.store.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	var out []Scope
	for _, p := range projects {
		if sc, ok := scopeOf(actor, p); ok {
			out = append(out, sc)
		}
	}
	return out, nil
}

// All lists the projects people work in (eval scratch projects, which
// exist only while a run uses them, are left out), for those who may
// administer them: the choices of the import, token, source and forget
// forms.
func (ps Projects) All(ctx context.Context, actor governance.Actor) ([]*governance.Project, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	all, err := ps.store.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	return withoutScratch(all), nil
}

// withoutScratch leaves out the eval runs' scratch projects.
func withoutScratch(all []*governance.Project) []*governance.Project {
	out := make([]*governance.Project, 0, len(all))
	for _, p := range all {
		if !p.Scratch {
			out = append(out, p)
		}
	}
	return out
}

func scopeIn(actor governance.Actor, p *governance.Project) (Scope, error) {
	if err := governance.Can(actor, governance.ActSee, governance.InProject(p)); err != nil {
		return Scope{}, err
	}
	sc, _ := scopeOf(actor, p)
	return sc, nil
}
