package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Page sizes of the events browser.
const (
	sessionPageSize  = 50
	timelinePageSize = 50
)

// handleProjectIndex is the entry of the events browser: the projects the
// account may see.
func (s *Server) handleProjectIndex(c echo.Context) error {
	cards, err := s.projectCards(c.Request().Context())
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Events", "events")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ProjectsPage(meta, templates.ProjectsView{Cards: cards}))
}

// handleSessionIndex lists a project's sessions, a page at a time; members
// see only their own subject's sessions.
func (s *Server) handleSessionIndex(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	page := pageParam(c)
	sc, sessions, total, err := s.app.Events.Sessions(ctx, actorOf(ctx), slug, app.Page{Number: page, Size: sessionPageSize})
	if err != nil {
		return err
	}
	base := templates.ProjectSessionsURL(sc.Project.Slug)
	v := templates.SessionsView{
		Project:   sc.Project,
		SubjectID: sc.SubjectID(),
		Sessions:  sessions,
		Pager: newPager(page, sessionPageSize, total, false, "session-table", func(p int) string {
			return withPage(base, c.QueryParams(), p)
		}),
	}
	if hxTargets(c, "session-table") {
		return render(c, http.StatusOK, templates.SessionTable(v))
	}
	meta, err := s.meta(c, "Sessions of "+sc.Project.Name, "events")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.SessionsPage(meta, v))
}

// handleSessionShow is a session's timeline, a page at a time.
func (s *Server) handleSessionShow(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	sessionID, err := pathParam(c, "session")
	if err != nil {
		return err
	}
	tl, err := s.app.Events.SessionTimeline(ctx, actorOf(ctx), slug, sessionID, app.Page{Number: pageParam(c), Size: timelinePageSize})
	if err != nil {
		return err
	}
	return s.renderTimeline(c, tl)
}

// handleEventShow is the deep link to one event: its session's timeline at
// the page holding it, with the event highlighted and anchored.
func (s *Server) handleEventShow(c echo.Context) error {
	ctx := c.Request().Context()
	seq, err := idParam(c, "seq", "event")
	if err != nil {
		return err
	}
	tl, err := s.app.Events.EventTimeline(ctx, actorOf(ctx), seq, timelinePageSize)
	if err != nil {
		return err
	}
	return s.renderTimeline(c, tl)
}

func (s *Server) renderTimeline(c echo.Context, tl *app.Timeline) error {
	sc, si := tl.Scope, tl.Session
	base := templates.SessionURL(sc.Project.Slug, si.SessionID)
	v := templates.TimelineView{
		Project:   sc.Project,
		Session:   si,
		Events:    tl.Events,
		Highlight: tl.Highlight,
		Pager: newPager(tl.Page, timelinePageSize, tl.Total, false, "timeline", func(p int) string {
			return withPage(base, nil, p)
		}),
	}
	if hxTargets(c, "timeline") {
		return render(c, http.StatusOK, templates.Timeline(v))
	}
	meta, err := s.meta(c, "Session "+si.SessionID, "events")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.TimelinePage(meta, v))
}
