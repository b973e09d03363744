package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// handleDashboard shows counts per layer for each project the account may
// see: admins all, reviewers their projects, members their own subject.
func (s *Server) handleDashboard(c echo.Context) error {
	cards, err := s.projectCards(c.Request().Context())
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Dashboard", "dashboard")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.DashboardPage(meta, templates.DashboardView{Cards: cards}))
}

// projectCards returns the visible projects with their counts; a member's
// counts cover only their subject.
func (s *Server) projectCards(ctx context.Context) ([]templates.ProjectCard, error) {
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.store.FindProjectStats(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*governance.ProjectStats, len(all))
	for _, st := range all {
		byID[st.Project.ID] = st
	}
	cards := make([]templates.ProjectCard, 0, len(scopes))
	for _, sc := range scopes {
		card := templates.ProjectCard{Project: sc.Project, Access: sc.Access, SubjectID: sc.SubjectID()}
		if sc.Subject == nil {
			card.Stats = byID[sc.Project.ID]
		} else if card.Stats, err = s.subjectStats(ctx, sc); err != nil {
			return nil, err
		}
		if card.Stats == nil {
			card.Stats = &governance.ProjectStats{Project: sc.Project}
		}
		cards = append(cards, card)
	}
	return cards, nil
}

// subjectStats counts what every layer holds about the scope's subject.
func (s *Server) subjectStats(ctx context.Context, sc scope) (*governance.ProjectStats, error) {
	return s.store.FindSubjectStats(ctx, sc.Project, sc.SubjectID())
}
