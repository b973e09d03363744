package web_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/web"
)

// The console's own Go cost of the two pages the scale load draws (a
// session timeline and a search page): the real echo app, called in process
// through its http.Handler with a signed-in member's cookie, so ns/op,
// B/op and allocs/op are the server's alone (no client, no loopback);
// cpu_ns/op is the process's CPU time per page, which other work on the
// machine does not inflate as it does ns/op.
//
//	go test ./web -run '^$' -bench Pages -benchtime 2000x
func BenchmarkPages(b *testing.B) {
	s := MustOpenStore(b)
	p := MustCreateProject(b, s, "load", "Load")
	// 4,000 synthetic events (400 sessions of ten, four subjects), plus one
	// session of 40 events of the member's subject.
	MustIngest(b, s, p, seed.SyntheticEvents(4000, 1)...)
	long := seed.SyntheticEvents(40, 2)
	for i, e := range long {
		e.ID, e.SessionID, e.SubjectID, e.Turn = fmt.Sprintf("long-%d", i), "long", "user-0", i+1
	}
	MustIngest(b, s, p, long...)
	MustCreateAccount(b, s, &governance.Account{Username: "mia", Memberships: []governance.Membership{
		{ProjectID: p.ID, Role: governance.ProjectMember, SubjectID: "user-0"}}})
	srv, err := web.NewServer(web.Config{}, app.New(s), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	c := (&Fixture{Store: s, Server: ts}).Login(b, "mia")
	u, _ := url.Parse(ts.URL)
	cookies := c.http.Jar.Cookies(u)
	if len(cookies) == 0 {
		b.Fatal("no session cookie after sign-in")
	}
	h := srv.Handler()
	pages := []struct{ name, path, want string }{
		{"Timeline", "/projects/load/sessions/long", `data-testid="timeline"`},
		{"Search", "/search?project=load&q=" + url.QueryEscape("酒店"), `data-testid="search-results"`},
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			get := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, pg.path, nil)
				for _, ck := range cookies {
					req.AddCookie(ck)
				}
				req.Header.Set("Accept-Language", "en-US,en;q=0.9")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w
			}
			w := get()
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), pg.want) {
				b.Fatalf("%s: status %d, body without %s:\n%.2000s", pg.path, w.Code, pg.want, w.Body.String())
			}
			if c := w.Header().Values("Set-Cookie"); len(c) > 0 {
				b.Fatalf("%s: a page view wrote the session: %q", pg.path, c)
			}
			b.Logf("%s: %d bytes", pg.path, w.Body.Len())
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				get()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu_ns/op")
		})
	}
}
