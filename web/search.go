package web

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

const (
	searchPageSize = 20
	// searchCountCap mirrors the store: a search counts at most this many
	// matches and reports one more when there are more.
	searchCountCap = 1000
	maxQueryRunes  = 200
)

// searchForm is the search query and its filters, from the URL.
type searchForm templates.SearchForm

func newSearchForm(c echo.Context) searchForm {
	q := func(name string) string { return strings.TrimSpace(c.QueryParam(name)) }
	return searchForm{
		Query:   q("q"),
		Project: q("project"),
		Session: q("session"),
		Role:    q("role"),
		Status:  q("status"),
		Source:  q("source"),
		Order:   q("order"),
	}
}

// Validate returns the problems of each field.
func (f searchForm) Validate() templates.FieldErrors {
	errs := templates.FieldErrors{}
	if utf8.RuneCountInString(f.Query) > maxQueryRunes {
		errs["q"] = "Use at most 200 characters."
	}
	switch governance.Role(f.Role) {
	case "", governance.RoleUser, governance.RoleAssistant, governance.RoleTool:
	default:
		errs["role"] = "Choose user, assistant or tool."
	}
	switch governance.Source(f.Source) {
	case "", governance.SourceConversation, governance.SourceTool, governance.SourceExternal:
	default:
		errs["source"] = "Choose conversation, tool or external."
	}
	switch governance.SearchOrder(f.Order) {
	case governance.SearchRelevance, governance.SearchNewest:
	default:
		errs["order"] = "Choose most relevant or newest first."
	}
	if len(f.Status) > governance.MaxStatusBytes {
		errs["status"] = "Unknown status."
	}
	if len(f.Session) > governance.MaxIDBytes {
		errs["session"] = "Session ids are shorter."
	}
	return errs
}

// filter narrows the search to the form's filters.
func (f searchForm) filter() governance.EventFilter {
	var ef governance.EventFilter
	ef.Query = f.Query
	ef.Order = governance.SearchOrder(f.Order)
	if f.Session != "" {
		ef.SessionID = &f.Session
	}
	if f.Role != "" {
		role := governance.Role(f.Role)
		ef.Role = &role
	}
	if f.Status != "" {
		ef.Status = &f.Status
	}
	if f.Source != "" {
		src := governance.Source(f.Source)
		ef.Source = &src
	}
	return ef
}

// handleEventSearch searches raw events (Chinese substrings and English
// words) within what the account may see: a member only their own subject.
func (s *Server) handleEventSearch(c echo.Context) error {
	ctx := c.Request().Context()
	f := newSearchForm(c)
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return err
	}
	v := templates.SearchView{Slugs: map[int64]string{}, AllProjects: len(scopes) > 0}
	for _, sc := range scopes {
		v.Projects = append(v.Projects, sc.Project)
		v.Slugs[sc.Project.ID] = sc.Project.Slug
		if sc.Subject != nil {
			v.AllProjects = false // a member's filter cannot span projects
		}
	}
	if f.Project == "" && !v.AllProjects && len(scopes) > 0 {
		f.Project = scopes[0].Project.Slug
	}

	if f.Project != "" {
		// An unknown or foreign project is refused even before a query.
		if _, err := s.projectScope(c, f.Project); err != nil {
			return err
		}
	}
	ef := f.filter()
	v.Form = templates.SearchForm(f)
	status := http.StatusOK
	if v.Errors = f.Validate(); len(v.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	} else if f.Query != "" {
		page := pageParam(c)
		ef.Offset, ef.Limit = (page-1)*searchPageSize, searchPageSize
		hits, total, err := s.app.Events.Search(ctx, actorOf(ctx), f.Project, ef)
		switch {
		case governance.ErrorCode(err) == governance.EINVALID:
			// Punctuation alone: say so where the results would be.
			v.Errors["q"], status = tr(c, "search.no_terms"), http.StatusUnprocessableEntity
		case err != nil:
			return err
		}
		v.Searched, v.Hits = err == nil, hits
		query := c.QueryParams()
		v.Pager = newPager(page, searchPageSize, total, total > searchCountCap, "search-results", func(p int) string {
			return withPage("/search", query, p)
		})
	}
	if hxTargets(c, "search-results") {
		return render(c, status, templates.SearchResults(v))
	}
	meta, err := s.meta(c, "Search", "search")
	if err != nil {
		return err
	}
	return render(c, status, templates.SearchPage(meta, v))
}
