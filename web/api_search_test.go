package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// TestAPISearch: GET /api/v1/search finds the token's project's events
// only — a token of project A never sees project B's — most relevant first
// or newest first, and refuses bad pages and tokens without the scope.
func TestAPISearch(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ctx := context.Background()
	at := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	ingest := func(projectID int64, id, session, subject, text string, minutes int) {
		t.Helper()
		ev := &governance.Event{ID: id, SessionID: session, SubjectID: subject, Role: governance.RoleUser, Text: text,
			OccurredAt: at.Add(time.Duration(minutes) * time.Minute)}
		if _, err := f.Store.IngestEvents(ctx, projectID, []*governance.Event{ev}); err != nil {
			t.Fatal(err)
		}
	}
	ingest(f.Travel.ID, "s-1", "quokka-1", "family-li", "The quokka island ferry leaves at nine; book the quokka tour early.", 0)
	ingest(f.Travel.ID, "s-2", "quokka-2", "family-wang", "A ferry timetable for the harbour.", 5)
	ingest(f.Expense.ID, "s-3", "quokka-3", "", "Expense report: quokka island ferry tickets, 40 dollars.", 10)
	travel := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	expense := mustAPIToken(t, f.Store, f.Expense.ID, governance.ScopeRecall)

	type result struct {
		Hits []struct {
			Event     governance.Event    `json:"event"`
			Fragments []apiSearchFragment `json:"fragments"`
		} `json:"hits"`
		Total int `json:"total"`
		Limit int `json:"limit"`
	}
	search := func(t *testing.T, token, query string) result {
		t.Helper()
		var out result
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/search?"+query, token, "", nil, &out), http.StatusOK)
		return out
	}
	ids := func(r result) string {
		var s []string
		for _, h := range r.Hits {
			s = append(s, h.Event.ID)
		}
		return strings.Join(s, ",")
	}
	t.Run("RelevanceFirst", func(t *testing.T) {
		r := search(t, travel, "order=relevance&q="+url.QueryEscape("quokka ferry"))
		if got := ids(r); got != "s-1,s-2" || r.Total != 2 || r.Limit != 20 {
			t.Errorf("hits = %s, total %d, limit %d", got, r.Total, r.Limit)
		}
		if h := r.Hits[0]; len(h.Fragments) == 0 || !fragmentMatched(h.Fragments, "quokka") {
			t.Errorf("fragments = %+v", h.Fragments)
		}
	})
	t.Run("Newest", func(t *testing.T) {
		if got := ids(search(t, travel, "order=newest&q=ferry")); got != "s-2,s-1" {
			t.Errorf("newest first = %s", got)
		}
		if got := ids(search(t, travel, "q=ferry&limit=1&offset=1&order=newest")); got != "s-1" {
			t.Errorf("second page = %s", got)
		}
		if got := ids(search(t, travel, "q=ferry&session=quokka-2")); got != "s-2" {
			t.Errorf("one session = %s", got)
		}
	})
	t.Run("ProjectScope", func(t *testing.T) {
		if got := ids(search(t, expense, "q=quokka")); got != "s-3" {
			t.Errorf("expense token sees %s", got)
		}
		if got := ids(search(t, travel, "q=dollars")); got != "" {
			t.Errorf("travel token sees the expense project's event: %s", got)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, q := range []string{"q=ferry&limit=0", "q=ferry&limit=101", "q=ferry&limit=x", "q=ferry&offset=-1", "q=ferry&order=oldest", "q=%22%22"} {
			var e apiErr
			wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/search?"+q, travel, "", nil, &e), http.StatusBadRequest)
			if e.Code != governance.EINVALID {
				t.Errorf("%s: error = %+v", q, e)
			}
		}
	})
	t.Run("NothingToSearchFor", func(t *testing.T) {
		// Punctuation or stop words alone match nothing, with a sentence
		// that says so, never every event.
		for _, q := range []string{"???", "。。。", "the", "the a of", "!?"} {
			var e apiErr
			wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/search?q="+url.QueryEscape(q), travel, "", nil, &e), http.StatusBadRequest)
			if e.Code != governance.EINVALID || !strings.Contains(e.Message, "nothing to search for") {
				t.Errorf("%q: error = %+v", q, e)
			}
		}
	})
	t.Run("ErrScope", func(t *testing.T) {
		ingestOnly := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
		var e apiErr
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/search?q=ferry", ingestOnly, "", nil, &e), http.StatusForbidden)
	})
}

type apiSearchFragment struct {
	Text  string `json:"text"`
	Match bool   `json:"match"`
}

func fragmentMatched(fs []apiSearchFragment, word string) bool {
	for _, f := range fs {
		if f.Match && strings.EqualFold(f.Text, word) {
			return true
		}
	}
	return false
}
