package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// DashboardStore counts what each layer holds.
type DashboardStore interface {
	FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error)
	FindSubjectStats(ctx context.Context, p *governance.Project, subjectID string) (*governance.ProjectStats, error)
}

// Dashboard is the use case of the start page.
type Dashboard struct {
	store    DashboardStore
	projects Projects
}

// ProjectCard is one project on the dashboard with what the actor may
// count of it.
type ProjectCard struct {
	Scope
	// Stats covers the whole project, or only the scope's subject for a
	// member; never nil.
	Stats *governance.ProjectStats
}

// Cards counts every layer of each project actor may see: admins all
// projects, reviewers theirs, members only their own subject's data.
func (d Dashboard) Cards(ctx context.Context, actor governance.Actor) ([]ProjectCard, error) {
	scopes, err := d.projects.Visible(ctx, actor)
	if err != nil {
		return nil, err
	}
	all, err := d.store.FindProjectStats(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*governance.ProjectStats, len(all))
	for _, st := range all {
		byID[st.Project.ID] = st
	}
	cards := make([]ProjectCard, 0, len(scopes))
	for _, sc := range scopes {
		card := ProjectCard{Scope: sc}
		if sc.Reviewer() {
			card.Stats = byID[sc.Project.ID]
		} else if card.Stats, err = d.store.FindSubjectStats(ctx, sc.Project, sc.SubjectID()); err != nil {
			return nil, err
		}
		if card.Stats == nil {
			card.Stats = &governance.ProjectStats{Project: sc.Project}
		}
		cards = append(cards, card)
	}
	return cards, nil
}
