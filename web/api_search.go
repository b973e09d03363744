package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

// apiSearchDefaultLimit is the page size of GET /api/v1/search without limit.
const apiSearchDefaultLimit = 20

// apiSearchHit is one event of GET /api/v1/search with its text cut into
// fragments, the matched ones marked.
type apiSearchHit struct {
	Event     *governance.Event `json:"event"`
	Fragments []apiFragment     `json:"fragments"`
}

type apiFragment struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// apiSearchResult is the body of GET /api/v1/search. Total counts at most
// searchCountCap matches and one more when there are more.
type apiSearchResult struct {
	Hits   []apiSearchHit `json:"hits"`
	Total  int            `json:"total"`
	More   bool           `json:"more,omitempty"`
	Limit  int            `json:"limit"`
	Offset int            `json:"offset"`
}

// handleAPISearch searches the token's project's raw events through the
// same use case as the search page (app.Events.Search): most relevant
// first, or newest first with order=newest.
func (s *Server) handleAPISearch(c echo.Context) error {
	ctx := c.Request().Context()
	t := tokenFrom(ctx)
	q := c.QueryParams()
	limit, offset, err := apiPage(q.Get("limit"), q.Get("offset"), apiSearchDefaultLimit)
	if err != nil {
		return err
	}
	hits, total, err := s.app.Events.Search(ctx, actorOf(ctx), app.SearchInput{ProjectID: t.ProjectID,
		Query: strings.TrimSpace(q.Get("q")), Order: searchOrder(q.Get("order")), Session: q.Get("session"), Role: q.Get("role"),
		Source: q.Get("source"), Status: q.Get("status"), Page: app.Page{Size: limit, Offset: offset}, Agent: true})
	if err != nil {
		return err
	}
	out := apiSearchResult{Hits: make([]apiSearchHit, 0, len(hits)), Total: min(total, searchCountCap),
		More: total > searchCountCap, Limit: limit, Offset: offset}
	for _, h := range hits {
		out.Hits = append(out.Hits, apiSearchHit{Event: h.Event, Fragments: apiFragments(h.Fragments)})
	}
	return c.JSON(http.StatusOK, out)
}

// searchOrder maps the API's order names to the use case's: "relevance"
// is the default order, "".
func searchOrder(order string) string {
	if order == "relevance" {
		return string(governance.SearchRelevance)
	}
	return order
}

func apiFragments(fs []governance.Fragment) []apiFragment {
	out := make([]apiFragment, len(fs))
	for i, f := range fs {
		out[i] = apiFragment{Text: f.Text, Match: f.Match}
	}
	return out
}

// apiPage reads limit and offset ("" = the default and 0); a value that is
// not a whole number is a field error (the use case bounds the numbers).
func apiPage(limit, offset string, def int) (int, int, error) {
	l, o := def, 0
	errs := app.FieldErrors{}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 {
			errs["limit"] = governance.Say("limit must be a whole number of at least 1.")
		}
		l = n
	}
	if offset != "" {
		n, err := strconv.Atoi(offset)
		if err != nil || n < 0 {
			errs["offset"] = governance.Say("offset must be a whole number of at least 0.")
		}
		o = n
	}
	if len(errs) > 0 {
		return 0, 0, errs
	}
	return l, o, nil
}
