package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
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
	sc, err := s.projectScope(c, slug)
	if err != nil {
		return err
	}
	page := pageParam(c)
	sessions, total, err := s.store.FindSessions(ctx, governance.SessionFilter{
		ProjectID: sc.Project.ID,
		SubjectID: sc.Subject,
		Offset:    (page - 1) * sessionPageSize,
		Limit:     sessionPageSize,
	})
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
	sc, err := s.projectScope(c, slug)
	if err != nil {
		return err
	}
	si, err := s.visibleSession(ctx, sc, sessionID)
	if err != nil {
		return err
	}
	return s.renderTimeline(c, sc, si, pageParam(c), 0)
}

// handleEventShow is the deep link to one event: its session's timeline at
// the page holding it, with the event highlighted and anchored.
func (s *Server) handleEventShow(c echo.Context) error {
	ctx := c.Request().Context()
	seq, err := idParam(c, "seq", "event")
	if err != nil {
		return err
	}
	ev, err := s.store.FindEventBySeq(ctx, seq)
	if err != nil {
		return err
	}
	sc, err := s.projectScopeByID(ctx, ev.ProjectID)
	if err != nil {
		return err
	}
	if err := can(ctx, governance.ActSee, governance.InProject(sc.Project).About(ev.SubjectID)); err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return errEventNotFound
		}
		return err
	}
	si, err := s.visibleSession(ctx, sc, ev.SessionID)
	if err != nil {
		return err
	}
	pos, err := s.eventPosition(ctx, sc, ev)
	if err != nil {
		return err
	}
	return s.renderTimeline(c, sc, si, pos/timelinePageSize+1, ev.Seq)
}

// visibleSession returns a session of the scope's project, or ENOTFOUND when
// it does not exist or belongs to a subject the scope cannot see.
func (s *Server) visibleSession(ctx context.Context, sc scope, sessionID string) (*governance.SessionInfo, error) {
	si, err := s.store.FindSession(ctx, sc.Project.ID, sessionID)
	if err != nil {
		return nil, err
	}
	if err := can(ctx, governance.ActSee, governance.InProject(sc.Project).About(si.SubjectID)); err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return nil, errSessionNotFound
		}
		return nil, err
	}
	return si, nil
}

// sessionFilter selects a session's events visible in the scope.
func sessionFilter(sc scope, sessionID string) governance.EventFilter {
	id := sc.Project.ID
	return governance.EventFilter{ProjectID: &id, SessionID: &sessionID, SubjectID: sc.Subject}
}

// eventPosition is the 0-based index of ev in its session's timeline order.
// It pages through the session's events; sessions are short.
func (s *Server) eventPosition(ctx context.Context, sc scope, ev *governance.Event) (int, error) {
	const batch = 500
	f := sessionFilter(sc, ev.SessionID)
	f.Limit = batch
	for f.Offset = 0; ; f.Offset += batch {
		events, _, err := s.store.FindEvents(ctx, f)
		if err != nil {
			return 0, err
		}
		for i, e := range events {
			if e.Seq == ev.Seq {
				return f.Offset + i, nil
			}
		}
		if len(events) < batch {
			return 0, errEventNotFound
		}
	}
}

func (s *Server) renderTimeline(c echo.Context, sc scope, si *governance.SessionInfo, page int, highlight int64) error {
	f := sessionFilter(sc, si.SessionID)
	f.Offset, f.Limit = (page-1)*timelinePageSize, timelinePageSize
	events, total, err := s.store.FindEvents(c.Request().Context(), f)
	if err != nil {
		return err
	}
	base := templates.SessionURL(sc.Project.Slug, si.SessionID)
	v := templates.TimelineView{
		Project:   sc.Project,
		Session:   si,
		Events:    events,
		Highlight: highlight,
		Pager: newPager(page, timelinePageSize, total, false, "timeline", func(p int) string {
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
