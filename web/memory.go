package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

const memoryPageSize = 50

// memoryTabs picks the project named by ?project= among those the account
// may see (the first one by default) and returns the scope in it.
func (s *Server) memoryTabs(c echo.Context) (templates.MemoryTabs, scope, error) {
	scopes, err := s.visibleScopes(c.Request().Context())
	if err != nil {
		return templates.MemoryTabs{}, scope{}, err
	}
	var t templates.MemoryTabs
	for _, sc := range scopes {
		t.Projects = append(t.Projects, sc.Project)
	}
	if len(scopes) == 0 {
		return t, scope{}, nil
	}
	sc := scopes[0]
	if slug := c.QueryParam("project"); slug != "" {
		sc, err = s.projectScope(c, slug)
		if err != nil {
			return t, scope{}, err
		}
	}
	t.Project, t.SubjectID = sc.Project, sc.SubjectID()
	return t, sc, nil
}

// handleEpisodeIndex lists a project's episode summaries; members see only
// their own sessions' episodes.
func (s *Server) handleEpisodeIndex(c echo.Context) error {
	t, sc, err := s.memoryTabs(c)
	if err != nil {
		return err
	}
	v := templates.EpisodesView{MemoryTabs: t}
	if t.Project != nil {
		page := pageParam(c)
		episodes, total, err := s.store.FindEpisodes(c.Request().Context(), governance.EpisodeFilter{
			ProjectID: t.Project.ID, SubjectID: sc.Subject, Offset: (page - 1) * memoryPageSize, Limit: memoryPageSize,
		})
		if err != nil {
			return err
		}
		v.Episodes = episodes
		v.Pager = newPager(page, memoryPageSize, total, false, "episode-list", func(p int) string {
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
	t, sc, err := s.memoryTabs(c)
	if err != nil {
		return err
	}
	v := templates.CandidatesView{MemoryTabs: t, Status: c.QueryParam("status")}
	if t.Project != nil {
		f := governance.CandidateFilter{ProjectID: t.Project.ID, SubjectID: sc.Subject}
		if v.Status != "" {
			if !validCandidateStatus(v.Status) {
				return governance.Errorf(governance.EINVALID, "Unknown candidate status %q.", v.Status)
			}
			f.Statuses = []governance.CandidateStatus{governance.CandidateStatus(v.Status)}
		}
		if session := c.QueryParam("session"); session != "" {
			f.SessionID = &session
		}
		page := pageParam(c)
		f.Offset, f.Limit = (page-1)*memoryPageSize, memoryPageSize
		cands, total, err := s.store.FindCandidates(c.Request().Context(), f)
		if err != nil {
			return err
		}
		v.Candidates = cands
		v.Pager = newPager(page, memoryPageSize, total, false, "candidate-table", func(p int) string {
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

func validCandidateStatus(s string) bool {
	for _, st := range templates.CandidateStatuses {
		if string(st) == s {
			return true
		}
	}
	return false
}
