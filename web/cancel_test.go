package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// TestCancelledRequests: a request whose client went away (its context
// cancelled) is neither logged as an error nor counted as a 500: it ends
// with 499 in the request log and the metrics, on a page and on the API.
func TestCancelledRequests(t *testing.T) {
	f := NewFixture(t, web.Config{})
	browser := f.Login(t, Admin)
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	var (
		mu       sync.Mutex
		statuses []int
		logs     bytes.Buffer
	)
	srv, err := web.NewServer(web.Config{ObserveRequest: func(_ context.Context, _, _ string, status int, _ time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		statuses = append(statuses, status)
	}}, app.New(f.Store), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	if err != nil {
		t.Fatal(err)
	}
	page := httptest.NewRequest(http.MethodGet, "/search?q=kayak", nil)
	base, _ := url.Parse(f.Server.URL)
	for _, c := range browser.http.Jar.Cookies(base) {
		page.AddCookie(c)
	}
	api := httptest.NewRequest(http.MethodGet, "/api/v1/rules", nil)
	api.Header.Set("Authorization", "Bearer "+token)
	for name, req := range map[string]*http.Request{"page": page, "api": api} {
		statuses, logs = nil, bytes.Buffer{}
		// The same request answers while its client waits.
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d with its client waiting:\n%s", name, rec.Code, rec.Body)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Handler().ServeHTTP(httptest.NewRecorder(), req.WithContext(ctx))
		if len(statuses) != 2 || statuses[1] != 499 {
			t.Errorf("%s: statuses observed %v, want 200 then 499", name, statuses)
		}
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Errorf("%s: a cancelled request was logged as an error:\n%s", name, logs.String())
		}
	}
}
