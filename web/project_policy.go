package web

import (
	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/web/templates"
)

// handleProjectPolicy switches a project between auto-activation (of the
// low-risk set) and approval, and records whether it has a single trusted
// user (admins).
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
	if single := c.FormValue("single_user") == "on"; single != p.SingleUser {
		if p, err = s.app.Reviews.SetSingleUser(ctx, actorOf(ctx), slug, single); err != nil {
			return err
		}
	}
	msg := tr(c, "review.flash.policy_wait", "Name", p.Name)
	if on {
		msg = tr(c, "review.flash.policy_auto", "Name", p.Name)
	}
	return s.done(c, templates.ReviewURL(p.Slug, "", 1), msg)
}
