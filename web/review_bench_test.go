package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

// Governance pages at scale: one project with 10,000 rules and 50,000
// candidates (40,000 supporting rules, 10,000 held), each candidate with two
// supporting events, served by the real console on loopback to 20
// concurrent clients that each send the next request as soon as the last
// one is answered. Each sub-benchmark reports p50/p95/p99 page times and
// the CPU one page costs the process (server and client together), which
// does not depend on what else runs on the machine.
//
//	go test ./web -run '^$' -bench GovernancePages -benchtime 2000x
const (
	benchRules      = 10_000
	benchCandidates = 50_000
	benchClients    = 20
)

// buildGovernanceBench writes the data set with plain SQL in one transaction.
func buildGovernanceBench(b *testing.B, s *store.Store, p *governance.Project) {
	b.Helper()
	ctx := context.Background()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	exec := func(q string, args ...any) int64 {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	statuses := []string{"proposed", "active", "active", "active", "active", "active", "active", "stale", "archived", "rejected"}
	kinds := []string{"user_preference", "lesson", "fact"}
	words := []string{"故宫", "午睡", "linter", "发票", "高铁", "review", "酒店", "deploy", "早餐", "coverage"}
	seq := int64(0)
	event := func(session, subject string, turn int, role, text, status string) int64 {
		seq = exec(`INSERT INTO events (id, project_id, session_id, subject_id, turn, role, text, tool, status, source, occurred_at, ingested_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'conversation', ?, ?)`,
			fmt.Sprintf("e%d", seq+1), p.ID, session, subject, turn, role, text, map[bool]string{true: "route_checker"}[status != ""], status, now, now)
		return seq
	}
	candidate := func(ruleID int64, i int, session, subject, kind, status string) {
		var rule any
		if ruleID > 0 {
			rule = ruleID
		}
		text := fmt.Sprintf("候选 %d：%s 和 %s 的安排要求 number %d", i, words[i%10], words[(i/10)%10], i)
		id := exec(`INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, status_reason,
			group_id, rule_id, fingerprint, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 'bench', ?, ?, 0, ?, ?, ?, ?)`,
			p.ID, session, subject, kind, text, status, "Repeated across 2 sessions.", rule, governance.Fingerprint(text), now, now)
		exec(`UPDATE candidates SET group_id = ? WHERE id = ?`, id, id)
		e1 := event(session, subject, 2*i%7, "user", "用户说："+text, "")
		e2 := event(session, subject, 2*i%7+1, "tool", `{"result":"failed","detail":"`+words[i%10]+`"}`, "failed")
		exec(`INSERT INTO evidence (candidate_id, event_seq) VALUES (?, ?), (?, ?)`, id, e1, id, e2)
	}
	n := 0
	for r := 0; r < benchRules; r++ {
		subject := fmt.Sprintf("user-%d", r%100)
		kind := kinds[r%3]
		ruleSubject := ""
		if kind == "user_preference" {
			ruleSubject = subject
		}
		text := fmt.Sprintf("规则 %d：出行时 %s 优先，%s 其次 rule %d", r, words[r%10], words[(r/10)%10], r)
		status := statuses[r%len(statuses)]
		id := exec(`INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, version, trust, fingerprint, use_count, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'repeated_across_sessions', ?, 1, 0.8, ?, ?, ?, ?)`,
			p.ID, ruleSubject, kind, text, status, governance.Fingerprint(text), r%17, now, now)
		exec(`INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES (?, 1, ?, ?, 'heartbeat', '', ?)`, id, text, kind, now)
		candStatus := map[string]string{"proposed": "proposed", "rejected": "rejected"}[status]
		if candStatus == "" {
			candStatus = "promoted"
		}
		for k := 0; k < 4; k++ {
			candidate(id, n, fmt.Sprintf("s-%d-%d", r, k%2), subject, kind, candStatus)
			n++
		}
	}
	for ; n < benchCandidates; n++ {
		candidate(0, n, fmt.Sprintf("h-%d", n), fmt.Sprintf("user-%d", n%100), kinds[n%3], "held")
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkGovernancePages(b *testing.B) {
	ctx := context.Background()
	s := MustOpenStore(b)
	p := MustCreateProject(b, s, "big", "Big project")
	start := time.Now()
	buildGovernanceBench(b, s, p)
	if err := s.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d rules and %d candidates in %s", benchRules, benchCandidates, time.Since(start).Round(time.Millisecond))
	MustCreateAccount(b, s, &governance.Account{Username: "rita", Memberships: []governance.Membership{
		{ProjectID: p.ID, Role: governance.ProjectReviewer}}})
	srv, err := web.NewServer(web.Config{}, app.New(s), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	f := &Fixture{Store: s, Server: ts}
	c := f.Login(b, "rita")
	// A shared transport with enough idle connections for every client.
	c.http.Transport = &http.Transport{MaxIdleConnsPerHost: benchClients * 2}

	_, doc := c.Get("/projects/big/review")
	poll := doc.Find(testid("review-queue")).AttrOr("hx-get", "")
	pages := []struct {
		name, path string
		header     http.Header
		want       int
	}{
		{"RulesList", "/rules", nil, http.StatusOK},
		{"RulesSearch", "/rules?status=active&q=" + url.QueryEscape("午睡"), nil, http.StatusOK},
		{"RulesFiltered", "/rules?kind=user_preference&subject=user-7&reason=repeated_across_sessions", nil, http.StatusOK},
		{"RulesPage100", "/rules?page=100", nil, http.StatusOK},
		{"RuleDetail", "/rules/4242", nil, http.StatusOK},
		{"ReviewQueue", "/projects/big/review", nil, http.StatusOK},
		{"ReviewQueuePage40", "/projects/big/review?page=40", nil, http.StatusOK},
		{"ReviewHeld", "/projects/big/review?tab=held", nil, http.StatusOK},
		{"ReviewPollUnchanged", poll, http.Header{"Hx-Request": {"true"}, "Hx-Target": {"review-queue"}}, http.StatusNoContent},
		// A proposal's four candidates, fetched when its closed chain is opened.
		{"ReviewEvidenceOpened", "/rules/1/evidence?back=%2Fprojects%2Fbig%2Freview", http.Header{"Hx-Request": {"true"}}, http.StatusOK},
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			lat := make([]time.Duration, b.N)
			var next sync.Mutex
			i := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := 0; w < benchClients; w++ {
				wg.Go(func() {
					for {
						next.Lock()
						k := i
						i++
						next.Unlock()
						if k >= b.N {
							return
						}
						req, _ := http.NewRequest(http.MethodGet, ts.URL+pg.path, nil)
						for key, v := range pg.header {
							req.Header[key] = v
						}
						t0 := time.Now()
						res, err := c.http.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
						lat[k] = time.Since(t0)
						if res.StatusCode != pg.want {
							b.Errorf("%s: status %d", pg.path, res.StatusCode)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			// CPU spent by the whole process (server and clients) per request:
			// what a request costs, whatever else runs on the machine.
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu_ms/op")
			slices.Sort(lat)
			q := func(p float64) float64 { return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / 1e6 }
			b.ReportMetric(q(0.50), "p50_ms")
			b.ReportMetric(q(0.95), "p95_ms")
			b.ReportMetric(q(0.99), "p99_ms")
		})
	}
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
