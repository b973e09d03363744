// Command mnemo-load measures the console at scale on loopback: it builds
// (once) a database of synthetic events, then reports p50/p95 latencies of
// full-text searches through the store and of the session timeline page
// under concurrent clients, against a /healthz baseline in the same run.
// With -only mixed it runs clients for a fixed time that mix writes (API
// ingest, subject forgets) with reads (timeline pages, searches, recall),
// and checks at the end that nothing forgotten is readable (mixed.go).
// With -only scale it runs concurrent writers and page clients against
// SQLite (one console instance) and then against PostgreSQL (-database,
// -instances console instances on it) and reports them side by side
// (scale.go).
//
//	go run ./cmd/mnemo-load -data /tmp/mnemo-load -events 1000000
//	go run ./cmd/mnemo-load -data /tmp/mnemo-load-100k -events 100000 -only mixed -duration 60s
//	go run ./cmd/mnemo-load -data /tmp/mnemo-load -only scale -database postgres://… -instances 2 -writers 8 -clients 50
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mnemo-load:", err)
		os.Exit(1)
	}
}

const loadPassword = "load-test-password"

func run() error {
	dir := flag.String("data", filepath.Join(os.TempDir(), "mnemo-load"), "directory of the load database (built once, reused)")
	events := flag.Int("events", 1_000_000, "number of synthetic events")
	queries := flag.Int("queries", 300, "search queries to time")
	clients := flag.Int("clients", 50, "concurrent HTTP clients")
	requests := flag.Int("requests", 4000, "timeline page requests in all")
	only := flag.String("only", "", "run only this part: search, http, mixed or scale")
	database := flag.String("database", "", "with -only scale: the PostgreSQL database (postgres://…; default $MNEMO_DATABASE_URL), built once like -data")
	instances := flag.Int("instances", 2, "with -only scale: console instances on the PostgreSQL database")
	writers := flag.Int("writers", 8, "with -only scale: concurrent API writers, each into a project of its own")
	batch := flag.Int("batch", 100, "with -only scale: events per ingest request")
	withSQLite := flag.Bool("sqlite", true, "with -only scale: measure SQLite too (false: PostgreSQL alone, for tuning)")
	phases := flag.String("phases", "pages,ingest,mixed", "with -only scale: the phases to run, comma-separated (for tuning one of them)")
	duration := flag.Duration("duration", 60*time.Second, "how long the mixed load runs")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file (a build included: profile runs on built data)")
	blockprofile := flag.String("blockprofile", "", "write a profile of where goroutines waited (channels, locks, the connection pool) to this file, as -cpuprofile")
	flag.Parse()
	ctx := context.Background()
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *blockprofile != "" {
		runtime.SetBlockProfileRate(int(time.Millisecond))
		defer func() {
			if f, err := os.Create(*blockprofile); err == nil {
				pprof.Lookup("block").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if *only == "scale" {
		if *instances < 1 || *writers < 1 || *clients < 1 || *batch < 1 {
			return fmt.Errorf("-instances, -writers, -clients and -batch must be at least 1")
		}
		return scaleLoad(ctx, scaleConfig{dir: *dir, database: *database, events: *events, instances: *instances,
			writers: *writers, clients: *clients, batch: *batch, duration: *duration, sqlite: *withSQLite,
			phases: strings.Split(*phases, ",")})
	}
	st, err := store.Open(ctx, filepath.Join(*dir, "mnemo.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := build(ctx, st, *events)
	if err != nil {
		return err
	}
	if *only == "mixed" {
		return mixedLoad(ctx, st, p, *clients, *duration, *events)
	}
	if *only != "http" {
		if err := searchLoad(ctx, st, p, *queries); err != nil {
			return err
		}
	}
	if *only == "search" {
		return nil
	}
	return timelineLoad(ctx, st, p, *clients, *requests, *events)
}

// build fills the database once: a project, an admin and the events, in
// requests of 2,000 events (one statement each on PostgreSQL). A database
// found complete is reused as it is; one whose build was interrupted (a
// project holding fewer events than asked) is completed: the events are
// drawn per chunk of 100,000 from the chunk's own seed, so the build goes
// on from the chunk it stopped in, and the ids of that chunk already
// stored are skipped.
func build(ctx context.Context, st loadStore, n int) (*governance.Project, error) {
	p, err := st.FindProjectBySlug(ctx, "load")
	if governance.ErrorCode(err) == governance.ENOTFOUND {
		p = &governance.Project{Slug: "load", Name: "Load"}
		err = st.CreateProject(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	if _, err := st.FindAccountByUsername(ctx, "admin"); governance.ErrorCode(err) == governance.ENOTFOUND {
		hash, err := auth.HashPassword(loadPassword)
		if err != nil {
			return nil, err
		}
		if err := st.CreateAccount(ctx, &governance.Account{Username: "admin", PasswordHash: hash, IsAdmin: true}); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	const chunk = 100_000
	want := 0 // SyntheticEvents rounds each chunk down to whole sessions of ten
	for i := 0; i < n; i += chunk {
		want += min(chunk, n-i) / 10 * 10
	}
	_, have, err := st.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 1})
	if err != nil {
		return nil, err
	}
	if have >= want {
		return p, nil
	}
	from := have / chunk * chunk
	if have > 0 {
		fmt.Printf("found %d of %d events: building on from event %d\n", have, want, from)
	}
	start := time.Now()
	for i := from; i < n; i += chunk {
		batch := seed.SyntheticEvents(min(chunk, n-i), uint64(i))
		for j := 0; j < len(batch); j += 2000 {
			if _, err := st.IngestEvents(ctx, p.ID, batch[j:min(j+2000, len(batch))]); err != nil {
				return nil, err
			}
		}
		fmt.Printf("built %d events (%.0f events/s)\n", i+len(batch), float64(i+len(batch)-from)/time.Since(start).Seconds())
	}
	if c, ok := st.(interface{ Checkpoint(context.Context) error }); ok {
		return p, c.Checkpoint(ctx) // SQLite: fold the WAL into the file
	}
	return p, nil
}

// redactURL hides the password of a database URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "[unparsable]"
	}
	return u.Redacted()
}

// percentiles returns p50 and p95 of the durations.
func percentiles(d []time.Duration) (time.Duration, time.Duration) {
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.95)
}

func searchLoad(ctx context.Context, st *store.Store, p *governance.Project, n int) error {
	kinds := map[string][]string{
		"chinese ≥3 chars": {"环球影城", "兵马俑", "博物馆", "灵隐寺", "迪士尼"},
		"english words":    {"linter", "coverage", "deploy", "timeout", "invoice report"},
		"chinese 2 chars":  {"午睡", "酒店", "门票", "早餐"},
		"no match":         {"不存在的词语", "zebraquokka"},
	}
	names := []string{"chinese ≥3 chars", "english words", "chinese 2 chars", "no match"}
	fmt.Printf("\nsearch over the project's events, first page of 20 hits (%d queries per kind):\n", n/len(names))
	for _, name := range names {
		var lat []time.Duration
		for i := 0; i < n/len(names); i++ {
			q := kinds[name][i%len(kinds[name])]
			start := time.Now()
			if _, _, err := st.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: q, Limit: 20}); err != nil {
				return err
			}
			lat = append(lat, time.Since(start))
		}
		p50, p95 := percentiles(lat)
		fmt.Printf("  %-18s p50 %8s  p95 %8s\n", name, p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond))
	}
	return nil
}

func timelineLoad(ctx context.Context, st *store.Store, p *governance.Project, clients, requests, events int) error {
	srv, err := web.NewServer(web.Config{}, app.New(st), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	defer hs.Shutdown(ctx)
	base := "http://" + ln.Addr().String()
	cookies, err := login(base)
	if err != nil {
		return err
	}
	sessions := events / 10
	measure := func(name string, path func(r *rand.Rand) string) error {
		var (
			mu   sync.Mutex
			lat  []time.Duration
			errs int
			wg   sync.WaitGroup
		)
		transport := &http.Transport{MaxIdleConnsPerHost: clients}
		start := time.Now()
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(c), 11))
				jar, _ := cookiejar.New(nil)
				u, _ := url.Parse(base)
				jar.SetCookies(u, cookies)
				client := &http.Client{Jar: jar, Transport: transport, Timeout: 10 * time.Second}
				for i := 0; i < requests/clients; i++ {
					t0 := time.Now()
					resp, err := client.Get(base + path(r))
					ok := err == nil && resp.StatusCode == http.StatusOK
					if err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					d := time.Since(t0)
					mu.Lock()
					lat = append(lat, d)
					if !ok {
						errs++
					}
					mu.Unlock()
				}
			}(c)
		}
		wg.Wait()
		took := time.Since(start)
		p50, p95 := percentiles(lat)
		fmt.Printf("  %-22s %5d requests  %7.0f req/s  p50 %8s  p95 %8s  errors %d\n", name, len(lat),
			float64(len(lat))/took.Seconds(), p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond), errs)
		return nil
	}
	fmt.Printf("\nHTTP on loopback, %d concurrent clients, %d events in %d sessions:\n", clients, events, sessions)
	if err := measure("baseline /healthz", func(*rand.Rand) string { return "/healthz" }); err != nil {
		return err
	}
	return measure("session timeline page", func(r *rand.Rand) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "/projects/%s/sessions/syn-%d-%d", p.Slug, (r.IntN(sessions)/10000)*100_000, r.IntN(sessions)%10000)
		return sb.String()
	})
}

// login signs the admin in once and returns the session cookies.
func login(base string) ([]*http.Cookie, error) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/login")
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := between(string(body), `name="csrf" value="`, `"`)
	resp, err = client.PostForm(base+"/login", url.Values{"csrf": {token}, "username": {"admin"}, "password": {loadPassword}})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("login: status %d", resp.StatusCode)
	}
	u, _ := url.Parse(base)
	return jar.Cookies(u), nil
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return s
}
