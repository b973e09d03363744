package web

import (
	"net/http"
	"net/url"
	"strconv"

	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
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
	v := templates.CandidatesView{MemoryTabs: t, Status: status, CanDecide: list.Scope.Project != nil && list.Scope.Reviewer(),
		Back: c.Request().URL.RequestURI()}
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

// candidateBack is where a decision on a candidate returns: the list it
// was made from, else the candidates of its project and status.
func candidateBack(c echo.Context, def string) string {
	b := c.QueryParam("back")
	if c.Request().Method != http.MethodGet {
		b = c.FormValue("back")
	}
	if b = safeNext(b); !strings.HasPrefix(b, "/candidates") {
		return def
	}
	return b
}

// candidatesOf is the list of p's candidates with cand's status.
func candidatesOf(cand *governance.Candidate, p *governance.Project) string {
	return "/candidates?" + url.Values{"project": {p.Slug}, "status": {string(cand.Status)}}.Encode()
}

// handleCandidateDecide shows a held or blocked candidate, why it waits
// and the reviewer's decisions (reviewers of its project only).
func (s *Server) handleCandidateDecide(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "candidate")
	if err != nil {
		return err
	}
	cand, sc, err := s.app.Memories.Candidate(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	return s.renderCandidateDecide(c, http.StatusOK, templates.CandidateDecideView{Project: sc.Project, Candidate: cand,
		Back: candidateBack(c, candidatesOf(cand, sc.Project))})
}

func (s *Server) renderCandidateDecide(c echo.Context, status int, v templates.CandidateDecideView) error {
	meta, err := s.meta(c, "Decide a candidate", "candidates")
	if err != nil {
		return err
	}
	return render(c, status, templates.CandidateDecidePage(meta, v))
}

// candidateProblem re-renders the decision page with 422 and the form's
// values when err is app.FieldErrors (field names prefixed by the form:
// "reject_" for the reject form), and returns any other error.
func (s *Server) candidateProblem(c echo.Context, id int64, prefix string, err error) error {
	fe, ok := app.AsFieldErrors(err)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	cand, sc, err := s.app.Memories.Candidate(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	v := templates.CandidateDecideView{Project: sc.Project, Candidate: cand, Back: candidateBack(c, candidatesOf(cand, sc.Project)),
		Errors: templates.FieldErrors{}}
	for k, msg := range fe {
		v.Errors[prefix+k] = msg
	}
	if prefix == "" {
		v.Reason, v.Acknowledged = c.FormValue("reason"), c.FormValue("acknowledged") == "yes"
	} else {
		v.RejectReason = c.FormValue("reason")
	}
	return s.renderCandidateDecide(c, http.StatusUnprocessableEntity, v)
}

// handleCandidateRelease releases a held or blocked candidate into review
// as a proposed rule; a blocked one needs its findings acknowledged and a
// reason.
func (s *Server) handleCandidateRelease(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "candidate")
	if err != nil {
		return err
	}
	r, err := s.app.Memories.Release(ctx, actorOf(ctx), id, app.CandidateRelease{
		Reason: c.FormValue("reason"), Acknowledged: c.FormValue("acknowledged") == "yes"})
	if err != nil {
		return s.candidateProblem(c, id, "", err)
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "memory.flash.released", "ID", id, "Rule", r.ID)); err != nil {
		return err
	}
	return redirect(c, templates.RuleURL(r.ID))
}

// handleCandidateReject rejects a held or blocked candidate, with a reason.
func (s *Server) handleCandidateReject(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "candidate")
	if err != nil {
		return err
	}
	cand, err := s.app.Memories.Reject(ctx, actorOf(ctx), id, c.FormValue("reason"))
	if err != nil {
		return s.candidateProblem(c, id, "reject_", err)
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "memory.flash.rejected", "ID", id)); err != nil {
		return err
	}
	return redirect(c, candidateBack(c, "/candidates?"+url.Values{"status": {string(cand.Status)}}.Encode()))
}
