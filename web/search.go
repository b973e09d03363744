package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

const (
	searchPageSize = 20
	// searchCountCap mirrors the store: a search counts at most this many
	// matches and reports one more when there are more.
	searchCountCap = 1000
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

	v.Form = templates.SearchForm(f)
	page := pageParam(c)
	hits, total, err := s.app.Events.Search(ctx, actorOf(ctx), app.SearchInput{Project: f.Project, Query: f.Query,
		Session: f.Session, Role: f.Role, Status: f.Status, Source: f.Source, Order: f.Order,
		Page: app.Page{Number: page, Size: searchPageSize}})
	status := http.StatusOK
	if errs, ok := app.AsFieldErrors(err); ok {
		v.Errors, status = templates.FieldErrors(errs), http.StatusUnprocessableEntity
		if errs["q"].ID == app.MsgNoSearchTerms {
			v.Errors["q"] = governance.Say("search.no_terms")
		}
	} else if err != nil {
		return err
	}
	if err == nil && f.Query != "" {
		v.Searched, v.Hits = true, hits
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
