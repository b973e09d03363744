package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/web"
)

func search(q url.Values) string { return "/search?" + q.Encode() }

func marks(doc *goquery.Document) []string { return texts(doc.Find(testid("hit-text") + " mark")) }

func TestSearch(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, TravelReviewer)

	t.Run("NothingToSearchFor", func(t *testing.T) {
		for _, q := range []string{"???", "。。。", "the"} {
			res, doc := c.Get(search(url.Values{"q": {q}}))
			wantStatus(t, res, http.StatusUnprocessableEntity)
			if n := doc.Find(testid("hit")).Length(); n != 0 {
				t.Errorf("%q: %d hits, want none", q, n)
			}
			if msg := doc.Find("#search-q-error").Text(); !strings.Contains(msg, "common words") {
				t.Errorf("%q: the field says %q", q, msg)
			}
		}
		// Quoted, punctuation is exact text to find.
		res, _ := c.Get(search(url.Values{"q": {`"???"`}}))
		wantStatus(t, res, http.StatusOK)
	})
	t.Run("Chinese", func(t *testing.T) {
		res, doc := c.Get(search(url.Values{"q": {"环球影城"}}))
		wantStatus(t, res, http.StatusOK)
		if n := doc.Find(testid("hit")).Length(); n != 3 {
			t.Fatalf("hits = %d, want 3", n)
		}
		for _, m := range marks(doc) {
			if m != "环球影城" {
				t.Fatalf("mark = %q", m)
			}
		}
		if got := doc.Find(testid("hit-count")).Text(); !strings.Contains(got, "3 matches") {
			t.Fatalf("count = %q", got)
		}
		href, _ := doc.Find(testid("hit-link")).First().Attr("href")
		if !strings.HasPrefix(href, "/events/") || !strings.Contains(href, "#event-") {
			t.Fatalf("hit link = %q", href)
		}
	})

	t.Run("ChineseTwoCharacters", func(t *testing.T) {
		_, doc := c.Get(search(url.Values{"q": {"午睡"}}))
		if n := doc.Find(testid("hit")).Length(); n != 1 {
			t.Fatalf("hits = %d, want 1", n)
		}
		if got := marks(doc); len(got) != 1 || got[0] != "午睡" {
			t.Fatalf("marks = %v", got)
		}
	})

	t.Run("English", func(t *testing.T) {
		_, doc := c.Get(search(url.Values{"q": {"disneyland"}}))
		if n := doc.Find(testid("hit")).Length(); n != 1 {
			t.Fatalf("hits = %d, want 1", n)
		}
		if got := marks(doc); len(got) != 1 || got[0] != "Disneyland" {
			t.Fatalf("marks = %v", got)
		}
	})

	t.Run("Filters", func(t *testing.T) {
		_, doc := c.Get(search(url.Values{"q": {"环球影城"}, "role": {"tool"}, "status": {"failed"}}))
		hits := doc.Find(testid("hit"))
		if hits.Length() != 1 || hits.Find(testid("event-status")).Text() != "failed" {
			t.Fatalf("tool+failed hits = %d", hits.Length())
		}
		_, doc = c.Get(search(url.Values{"q": {"Hotel"}, "source": {"external"}}))
		if n := doc.Find(testid("hit") + " " + testid("event-external")).Length(); n != 1 {
			t.Fatalf("external hits = %d, want 1", n)
		}
		_, doc = c.Get(search(url.Values{"q": {"环球影城"}, "session": {"bj-2"}}))
		if n := doc.Find(testid("hit")).Length(); n != 0 {
			t.Fatalf("session filter hits = %d, want 0", n)
		}
		// The form keeps the filters.
		_, doc = c.Get(search(url.Values{"q": {"环球影城"}, "role": {"user"}}))
		if v, _ := doc.Find(`#search-role option[selected]`).Attr("value"); v != "user" {
			t.Fatalf("role filter not kept: %q", v)
		}
		if v, _ := doc.Find(testid("search-q")).Attr("value"); v != "环球影城" {
			t.Fatalf("query not kept: %q", v)
		}
	})

	t.Run("Order", func(t *testing.T) {
		res, doc := c.Get(search(url.Values{"q": {"环球影城"}, "order": {"newest"}}))
		wantStatus(t, res, http.StatusOK)
		if n := doc.Find(testid("hit")).Length(); n != 3 {
			t.Fatalf("hits = %d, want 3", n)
		}
		if v, _ := doc.Find(`#search-order option[selected]`).Attr("value"); v != "newest" {
			t.Fatalf("order not kept: %q", v)
		}
		res, _ = c.Get(search(url.Values{"q": {"环球影城"}, "order": {"oldest"}}))
		wantStatus(t, res, http.StatusUnprocessableEntity)
	})

	t.Run("ErrInvalidFilter", func(t *testing.T) {
		res, doc := c.Get(search(url.Values{"q": {"x"}, "role": {"robot"}}))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if _, ok := doc.Find("#search-role").Attr("aria-invalid"); !ok {
			t.Fatal("role not marked invalid")
		}
	})

	t.Run("Empty", func(t *testing.T) {
		res, doc := c.Get("/search")
		wantStatus(t, res, http.StatusOK)
		if doc.Find(testid("search-hint")).Length() != 1 {
			t.Fatal("no hint on an empty search")
		}
		for _, id := range []string{"search-q", "search-project", "search-session", "search-role", "search-status", "search-source"} {
			el := doc.Find(testid(id))
			elID, _ := el.Attr("id")
			if el.Length() != 1 || doc.Find(`label[for="`+elID+`"]`).Length() != 1 {
				t.Errorf("%s has no label", id)
			}
		}
	})

	t.Run("NoMarkup", func(t *testing.T) {
		MustIngest(t, f.Store, f.Travel, ev("xss-1", "xss", "family-li", 1, "user", `<script>alert("环球影城")</script><b>bold</b>`))
		res, body := c.Do(http.MethodGet, search(url.Values{"q": {"环球影城"}, "session": {"xss"}}), nil, nil)
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<b>bold") {
			t.Fatal("event text rendered as HTML")
		}
		if !strings.Contains(body, "&lt;script&gt;") {
			t.Fatal("event text not escaped")
		}
	})

	t.Run("HTMXPartial", func(t *testing.T) {
		res, body := c.Do(http.MethodGet, search(url.Values{"q": {"环球影城"}}), nil,
			http.Header{"Hx-Request": {"true"}, "Hx-Target": {"search-results"}})
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<html") || strings.Contains(body, "<form") {
			t.Fatalf("partial has more than the results: %.200s", body)
		}
		doc := parse(t, body)
		if doc.Find("section#search-results "+testid("hit")).Length() == 0 {
			t.Fatal("partial has no hits")
		}
	})

	t.Run("Paging", func(t *testing.T) {
		for i := range 45 {
			MustIngest(t, f.Store, f.Travel, ev("many-"+string(rune('A'+i)), "many", "family-li", i, "user", "又提到环球影城 "+strings.Repeat("。", i)))
		}
		_, doc := c.Get(search(url.Values{"q": {"环球影城"}, "session": {"many"}}))
		if n := doc.Find(testid("hit")).Length(); n != 20 {
			t.Fatalf("page 1 hits = %d, want 20", n)
		}
		if got := doc.Find(testid("pager-status")).Text(); got != "Page 1 of 3" {
			t.Fatalf("pager = %q", got)
		}
		next, _ := doc.Find(testid("pager-next")).Attr("href")
		u, _ := url.Parse(next)
		if u.Query().Get("page") != "2" || u.Query().Get("session") != "many" || u.Query().Get("q") != "环球影城" {
			t.Fatalf("next = %q", next)
		}
		_, doc = c.Get(next)
		if n := doc.Find(testid("hit")).Length(); n != 20 {
			t.Fatalf("page 2 hits = %d", n)
		}
	})
}
