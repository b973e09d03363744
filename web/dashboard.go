package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
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
	cards, err := s.app.Dashboard.Cards(ctx, actorOf(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]templates.ProjectCard, 0, len(cards))
	for _, card := range cards {
		out = append(out, templates.ProjectCard{Project: card.Project, Access: card.Access, SubjectID: card.SubjectID(), Stats: card.Stats})
	}
	return out, nil
}
