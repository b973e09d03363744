package web

import (
	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/web/templates"
)

// handleProjectPolicy switches a project between auto-activation and
// approval (admins).
func (s *Server) handleProjectPolicy(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	on := c.FormValue("auto_activate") == "on"
	p, err := s.app.Reviews.SetAutoActivate(ctx, actorOf(ctx), slug, on)
	if err != nil {
		return err
	}
	msg := "Proposals of " + p.Name + " now wait for a reviewer."
	if on {
		msg = "Proposals of " + p.Name + " now become active at once."
	}
	return s.done(c, templates.ReviewURL(p.Slug, "", 1), msg)
}
