package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

const memoryPageSize = 50

// memoryTabs is the project picker of the episodes and candidates pages.
func memoryTabs(t app.MemoryTabs) templates.MemoryTabs {
	return templates.MemoryTabs{Projects: t.Projects, Project: t.Scope.Project, SubjectID: t.Scope.SubjectID()}
}

// handleEpisodeIndex lists a project's episode summaries; members see only
// their own sessions' episodes.
func (s *Server) handleEpisodeIndex(c echo.Context) error {
	ctx := c.Request().Context()
	page := pageParam(c)
	list, err := s.app.Memories.Episodes(ctx, actorOf(ctx), app.MemoryQuery{Project: c.QueryParam("project"),
		Offset: (page - 1) * memoryPageSize, Limit: memoryPageSize})
	if err != nil {
		return err
	}
	t := memoryTabs(list.MemoryTabs)
	v := templates.EpisodesView{MemoryTabs: t}
	if t.Project != nil {
		v.Episodes = list.Episodes
		v.Pager = newPager(page, memoryPageSize, list.Total, false, "episode-list", func(p int) string {
			return "/episodes?" + url.Values{"project": {t.Project.Slug}, "page": {strconv.Itoa(p)}}.Encode()
		})
		if isPartial(c) {
			return render(c, http.StatusOK, templates.EpisodeList(v))
		}
	}
	meta, err := s.meta(c, "Episodes", "episodes")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.EpisodesPage(meta, v))
}

// handleCandidateIndex lists a project's candidates by status, each with
// its gate findings and supporting events.
func (s *Server) handleCandidateIndex(c echo.Context) error {
	ctx := c.Request().Context()
	page := pageParam(c)
	q := app.MemoryQuery{Project: c.QueryParam("project"), Session: c.QueryParam("session"),
		Offset: (page - 1) * memoryPageSize, Limit: memoryPageSize}
	status := c.QueryParam("status")
	if status != "" {
		q.Statuses = []governance.CandidateStatus{governance.CandidateStatus(status)}
	}
	list, err := s.app.Memories.Candidates(ctx, actorOf(ctx), q)
	if err != nil {
		return err
	}
	t := memoryTabs(list.MemoryTabs)
	v := templates.CandidatesView{MemoryTabs: t, Status: status}
	if t.Project != nil {
		v.Candidates = list.Candidates
		v.Pager = newPager(page, memoryPageSize, list.Total, false, "candidate-table", func(p int) string {
			q := url.Values{"project": {t.Project.Slug}, "page": {strconv.Itoa(p)}}
			if v.Status != "" {
				q.Set("status", v.Status)
			}
			return "/candidates?" + q.Encode()
		})
		if isPartial(c) {
			return render(c, http.StatusOK, templates.CandidateTable(v))
		}
	}
	meta, err := s.meta(c, "Candidates", "candidates")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.CandidatesPage(meta, v))
}
