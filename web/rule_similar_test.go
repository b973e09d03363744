package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
	"github.com/mnemo-console/mnemo/web"
)

// TestRuleSearchByMeaning: with an embeddings model configured, a search
// on the rules page also lists the rules close in meaning that do not hold
// its words, with their similarity, in the reader's language; a rule that
// matches the words is not listed twice; an endpoint that fails leaves the
// words' list and says so; without a model there is no such section.
func TestRuleSearchByMeaning(t *testing.T) {
	ctx := context.Background()
	f := NewGovFixture(t)
	nap, route := f.Rule(t, "午睡"), f.Rule(t, "路线检查")
	if err := f.Store.ApproveRules(ctx, "rita", []int64{nap.ID, route.ID, f.Rule(t, "远距离").ID}); err != nil {
		t.Fatal(err)
	}
	fake := modeltest.NewEmbeddings(t)
	emb := model.New(model.Config{BaseURL: fake.URL(), APIKey: "test", Model: "fake-embed", Backoff: time.Millisecond, MaxRetries: 1}, nil)
	if _, err := consolidate.Backfill(ctx, f.Store, emb, f.Travel.ID, 64, 10); err != nil {
		t.Fatal(err)
	}
	plain := f.Login(t, GovReviewer)
	a := app.New(f.Store)
	a.SetEmbedder(emb)
	srv, err := web.NewServer(web.Config{}, a, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	f.Server = httptest.NewServer(srv.Handler())
	t.Cleanup(f.Server.Close)
	rita := f.Login(t, GovReviewer)

	ids := func(sel string, doc *goquery.Document) []string {
		var out []string
		doc.Find(sel).Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr("data-rule", "")) })
		return out
	}
	napID := strconv.FormatInt(nap.ID, 10)
	search := "/rules?q=" + url.QueryEscape("孩子午睡的时间段")

	res, doc := rita.Get(search)
	wantStatus(t, res, http.StatusOK)
	if n := doc.Find(testid("rule-row")).Length(); n != 0 {
		t.Fatalf("%d rules hold every word of the search; the test needs none", n)
	}
	if got := ids(testid("similar-rule"), doc); len(got) == 0 || got[0] != napID {
		t.Fatalf("close in meaning = %v, want the nap rule %s first", got, napID)
	}
	if txt := doc.Find(testid("similar-rule")).First().Text(); !strings.Contains(txt, "similarity 0.") || !strings.Contains(txt, "travel-agent") {
		t.Errorf("the hit does not show its project and similarity: %q", txt)
	}
	if _, zh := rita.Get(search, "Accept-Language", "zh-CN"); !strings.Contains(zh.Find(testid("rules-similar")).Text(), "意思相近") {
		t.Errorf("the section is not in Chinese: %q", zh.Find(testid("rules-similar")).Text())
	}
	// The htmx swap of the list carries the section too.
	if _, part := rita.Get(search, "HX-Request", "true", "HX-Target", "rule-table"); part.Find(testid("similar-rule")).Length() == 0 {
		t.Error("the list's htmx swap has no rules close in meaning")
	}

	_, doc = rita.Get("/rules?q=" + url.QueryEscape("午睡"))
	if got := ids(testid("rule-row"), doc); len(got) != 1 || got[0] != napID {
		t.Fatalf("the words' list = %v, want the nap rule", got)
	}
	if got := ids(testid("similar-rule"), doc); slices.Contains(got, napID) {
		t.Errorf("the nap rule is listed twice: %v", got)
	}

	fake.Fail(true)
	res, doc = rita.Get(search)
	fake.Fail(false)
	wantStatus(t, res, http.StatusOK)
	if doc.Find(testid("rules-similar-failed")).Length() != 1 || doc.Find(testid("similar-rule")).Length() != 0 {
		t.Error("a failed embedding is not said, or rules are still listed by meaning")
	}

	_, doc = plain.Get(search)
	if doc.Find(testid("rules-similar")).Length()+doc.Find(testid("rules-similar-failed")).Length() != 0 {
		t.Error("a console without an embeddings model lists rules by meaning")
	}
}
