package web_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/web"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAccessLogNamesRoutesNotPaths: the access log records each request's
// route template, never its path, so no session, subject or rule id a
// forget removes stays in the log; made-up methods fold into "other".
func TestAccessLogNamesRoutesNotPaths(t *testing.T) {
	var logs lockedBuffer
	srv, err := web.NewServer(web.Config{}, app.New(MustOpenStore(t)), slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/projects/travel-agent/sessions/sess-secret-4711"},
		{http.MethodDelete, "/api/v1/subjects/family-secret-0815"},
		{"BREW", "/nowhere/secret-path-42"},
	} {
		req, _ := http.NewRequest(r.method, ts.URL+r.path, nil)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	got := logs.String()
	for _, secret := range []string{"sess-secret-4711", "family-secret-0815", "secret-path-42", "BREW"} {
		if strings.Contains(got, secret) {
			t.Errorf("the access log holds %q:\n%s", secret, got)
		}
	}
	for _, want := range []string{`"route":"/projects/:project/sessions/:session"`, `"route":"/api/v1/subjects/:id"`, `"route":"unmatched"`, `"method":"other"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the access log lacks %s:\n%s", want, got)
		}
	}
}
