package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Heartbeat is what the console needs of the background heartbeat.
type Heartbeat interface {
	Status() governance.HeartbeatStatus
	// NudgeBy asks for a beat now without waiting, recording trigger as
	// why it ran; a beat already running is followed by one more, never
	// run beside it.
	NudgeBy(trigger string)
}

const beatHistory = 20

// handleHeartbeatShow is the heartbeat page (reviewers and admins).
func (s *Server) handleHeartbeatShow(c echo.Context) error {
	v, err := s.heartbeatView(c)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Heartbeat", "heartbeat")
	if err != nil {
		return err
	}
	v.CSRF = meta.CSRF
	return render(c, http.StatusOK, templates.HeartbeatPage(meta, v))
}

// handleHeartbeatPanel is the live panel htmx polls.
func (s *Server) handleHeartbeatPanel(c echo.Context) error {
	v, err := s.heartbeatView(c)
	if err != nil {
		return err
	}
	v.CSRF = csrfToken(c)
	return render(c, http.StatusOK, templates.HeartbeatPanel(v))
}

// handleHeartbeatRun asks for a beat now.
func (s *Server) handleHeartbeatRun(c echo.Context) error {
	ctx := c.Request().Context()
	var hb app.Nudger
	if s.cfg.Heartbeat != nil {
		hb = s.cfg.Heartbeat
	}
	if err := s.app.Heartbeat.Run(ctx, actorOf(ctx), hb); err != nil {
		return err
	}
	if isPartial(c) {
		v, err := s.heartbeatView(c)
		if err != nil {
			return err
		}
		v.CSRF, v.Requested = csrfToken(c), true
		return render(c, http.StatusOK, templates.HeartbeatPanel(v))
	}
	if err := s.flash(c, auth.FlashSuccess, "A beat was asked for; the table updates when it has run."); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/heartbeat")
}

func (s *Server) heartbeatView(c echo.Context) (templates.HeartbeatView, error) {
	ctx := c.Request().Context()
	beats, err := s.app.Heartbeat.Beats(ctx, actorOf(ctx), beatHistory)
	if err != nil {
		return templates.HeartbeatView{}, err
	}
	a := auth.UserFrom(ctx)
	_, all := a.ReviewableProjects()
	v := templates.HeartbeatView{Beats: beats, Now: time.Now(), CanRun: s.cfg.Heartbeat != nil, AllProjects: a.IsAdmin || all}
	if s.cfg.Heartbeat != nil {
		v.Status = s.cfg.Heartbeat.Status()
	}
	return v, nil
}
