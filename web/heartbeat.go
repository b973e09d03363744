package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
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

var errHeartbeatForbidden = governance.Errorf(governance.EFORBIDDEN, "Only reviewers and admins see and run the heartbeat.")

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
	if err := can(c.Request().Context(), governance.ActReviewAny, governance.Object{}); err != nil {
		return errHeartbeatForbidden
	}
	a := auth.UserFrom(c.Request().Context())
	if s.cfg.Heartbeat == nil {
		return governance.Errorf(governance.ECONFLICT, "The heartbeat does not run in this process.")
	}
	s.cfg.Heartbeat.NudgeBy("manual:account:" + a.Username)
	if err := s.store.AppendAudit(c.Request().Context(), &governance.AuditEntry{
		Actor: "account:" + a.Username, Action: "heartbeat.run", ObjectType: "heartbeat", ObjectID: "now",
	}); err != nil {
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
	if err := can(c.Request().Context(), governance.ActReviewAny, governance.Object{}); err != nil {
		return templates.HeartbeatView{}, errHeartbeatForbidden
	}
	beats, err := s.store.FindBeats(c.Request().Context(), beatHistory)
	if err != nil {
		return templates.HeartbeatView{}, err
	}
	a := auth.UserFrom(c.Request().Context())
	_, all := a.ReviewableProjects()
	v := templates.HeartbeatView{Beats: beats, Now: time.Now(), CanRun: s.cfg.Heartbeat != nil, AllProjects: a.IsAdmin || all}
	if s.cfg.Heartbeat != nil {
		v.Status = s.cfg.Heartbeat.Status()
	}
	return v, nil
}
