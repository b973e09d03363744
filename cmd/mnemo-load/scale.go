package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/web"
)

// The scale comparison (-only scale): the same load on SQLite, one console
// instance, and on PostgreSQL, -instances console instances on one
// database, one after the other in one run. Each instance is the
// console's web server over its own store (its own connection pool) on
// its own loopback port, as separate console processes would be; they
// share the database, the session keys in it and nothing else, so the
// page clients sign in on the first instance and are served by all. No
// heartbeat runs: the leader's beats would compete for the same cores,
// and they are measured on their own (seed's BenchmarkConsolidate).
//
// For each backend, first a /healthz baseline with every client (a round
// trip to the database through the whole server), then three phases of
// -duration each: "pages", -clients page clients alone, each on instance
// (its number mod -instances), drawing a session timeline (65 %) or a
// search page (35 %) of the load project's -events events; "ingest",
// -writers writers alone, each ingesting through the API batches of
// -batch events (sessions of 20 events under a subject of its own) into a
// project of its own, so PostgreSQL's per-project ingest lock does not
// queue them behind each other; and "mixed", both at once. Reported: each
// page's p50 and p95, the ingest rate in events per second, the errors,
// and the machine's load average before and after each phase, then
// PostgreSQL's figures as ratios of SQLite's.

// loadStore is what the load tool needs of a store: the use cases' store,
// the seed's writes (a project, an account, events) and Close. Both
// backends satisfy it.
type loadStore interface {
	app.Store
	seed.Store
	Close() error
}

// scaleConfig holds the flags of the scale comparison.
type scaleConfig struct {
	dir, database                       string
	events, instances, writers, clients int
	batch                               int
	duration                            time.Duration
	sqlite                              bool
	phases                              []string
}

// phase is one timed part of a backend's run: page clients, writers or
// both.
type phase struct {
	name                string
	clients, writers    int
	pages               map[string][]time.Duration
	pageErrs, writeErrs int
	ingested            int
	batches             []time.Duration
	took                time.Duration
	loadBefore          string
	loadAfter           string
}

// scaleResult is one backend's figures.
type scaleResult struct {
	name         string
	instances    int
	baseline     []time.Duration
	baselineRate float64
	errs         int
	firstErr     error
	phases       []*phase
}

var (
	pageKinds  = []string{"page: session timeline", "page: search"}
	phaseNames = []string{"pages", "ingest", "mixed"}
)

func scaleLoad(ctx context.Context, cfg scaleConfig) error {
	if cfg.database == "" {
		cfg.database = os.Getenv("MNEMO_DATABASE_URL")
	}
	if cfg.database == "" {
		return fmt.Errorf("-only scale needs -database postgres://… (or MNEMO_DATABASE_URL)")
	}
	for _, name := range cfg.phases {
		if !slices.Contains(phaseNames, name) {
			return fmt.Errorf("-phases: no phase %q (%s)", name, strings.Join(phaseNames, ", "))
		}
	}
	// Both databases are built (or found built) before either is measured.
	var (
		lite        *store.Store
		liteProject *governance.Project
		err         error
	)
	if cfg.sqlite {
		if lite, err = store.Open(ctx, filepath.Join(cfg.dir, "mnemo.db")); err != nil {
			return err
		}
		defer lite.Close()
		fmt.Println("SQLite:", filepath.Join(cfg.dir, "mnemo.db"))
		if liteProject, err = build(ctx, lite, cfg.events); err != nil {
			return err
		}
	}
	var pgs []loadStore
	for range cfg.instances {
		pg, err := postgres.Open(ctx, cfg.database)
		if err != nil {
			return err
		}
		defer pg.Close()
		pgs = append(pgs, pg)
	}
	fmt.Println("PostgreSQL:", redactURL(cfg.database))
	pgProject, err := build(ctx, pgs[0], cfg.events)
	if err != nil {
		return err
	}

	fmt.Printf("\nscale comparison: %d page clients, %d writers (batches of %d events), phases of %s, %d events in the load project\n",
		cfg.clients, cfg.writers, cfg.batch, cfg.duration, cfg.events)
	liteRes := &scaleResult{}
	if cfg.sqlite {
		if liteRes, err = measureScale(ctx, cfg, "SQLite", []loadStore{lite}, liteProject); err != nil {
			return err
		}
		liteRes.print()
	}
	pgRes, err := measureScale(ctx, cfg, "PostgreSQL", pgs, pgProject)
	if err != nil {
		return err
	}
	pgRes.print()
	if !cfg.sqlite {
		if pgRes.errs > 0 {
			return fmt.Errorf("scale: %d errors", pgRes.errs)
		}
		return nil
	}

	ratio := func(a, b float64) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2f×", a/b)
	}
	fmt.Printf("\nPostgreSQL (%d instances) against SQLite (1 instance), same run:\n", cfg.instances)
	_, lb := percentiles(liteRes.baseline)
	_, pb := percentiles(pgRes.baseline)
	fmt.Printf("  %-32s p95 %s (%s against %s)\n", "baseline /healthz:", ratio(float64(pb), float64(lb)),
		pb.Round(100*time.Microsecond), lb.Round(100*time.Microsecond))
	for i, lp := range liteRes.phases {
		pp := pgRes.phases[i]
		if lp.writers > 0 {
			fmt.Printf("  %-32s %s (%.0f against %.0f events/s)\n", lp.name+": ingest rate:", ratio(pp.rate(), lp.rate()), pp.rate(), lp.rate())
		}
		if lp.clients == 0 {
			continue
		}
		for _, kind := range append(pageKinds, "all pages") {
			_, l95 := percentiles(lp.page(kind))
			_, p95 := percentiles(pp.page(kind))
			fmt.Printf("  %-32s p95 %s (%s against %s)\n", lp.name+": "+kind+":", ratio(float64(p95), float64(l95)),
				p95.Round(100*time.Microsecond), l95.Round(100*time.Microsecond))
		}
	}
	if n := liteRes.errs + pgRes.errs; n > 0 {
		return fmt.Errorf("scale comparison: %d errors", n)
	}
	return nil
}

func (p *phase) rate() float64 { return float64(p.ingested) / p.took.Seconds() }

// page returns the latencies of one kind of page, or of all of them.
func (p *phase) page(kind string) []time.Duration {
	if kind != "all pages" {
		return p.pages[kind]
	}
	var all []time.Duration
	for _, k := range pageKinds {
		all = append(all, p.pages[k]...)
	}
	return all
}

func (r *scaleResult) print() {
	fmt.Printf("\n%s, %d instance(s)\n", r.name, r.instances)
	b50, b95 := percentiles(r.baseline)
	fmt.Printf("  %-26s %7d requests %7.0f req/s  p50 %8s  p95 %8s\n", "baseline /healthz", len(r.baseline), r.baselineRate,
		b50.Round(10*time.Microsecond), b95.Round(10*time.Microsecond))
	for _, p := range r.phases {
		fmt.Printf("  phase %s (%d page clients, %d writers); load average before %s, after %s\n", p.name, p.clients, p.writers,
			p.loadBefore, p.loadAfter)
		if p.clients > 0 {
			for _, kind := range append(pageKinds, "all pages") {
				lat := p.page(kind)
				p50, p95 := percentiles(lat)
				fmt.Printf("    %-24s %7d requests %7.0f req/s  p50 %8s  p95 %8s\n", kind, len(lat), float64(len(lat))/p.took.Seconds(),
					p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond))
			}
			fmt.Printf("    %-24s errors %d\n", "pages", p.pageErrs)
		}
		if p.writers > 0 {
			w50, w95 := percentiles(p.batches)
			fmt.Printf("    %-24s %7d events  %7.0f events/s  batch p50 %8s  p95 %8s  errors %d\n", "api: ingest", p.ingested, p.rate(),
				w50.Round(10*time.Microsecond), w95.Round(10*time.Microsecond), p.writeErrs)
		}
	}
	if r.firstErr != nil {
		fmt.Printf("  first error: %v\n", r.firstErr)
	}
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// measureScale serves stores, one console instance each, and runs the
// baseline and the phases against them.
func measureScale(ctx context.Context, cfg scaleConfig, name string, stores []loadStore, p *governance.Project) (*scaleResult, error) {
	var bases []string
	for _, st := range stores {
		srv, err := web.NewServer(web.Config{}, app.New(st), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		hs := &http.Server{Handler: srv.Handler()}
		go hs.Serve(ln)
		defer hs.Shutdown(ctx)
		bases = append(bases, "http://"+ln.Addr().String())
	}
	cookies, err := login(bases[0])
	if err != nil {
		return nil, err
	}
	// Each writer ingests into a project of its own, with its token.
	secrets := make([]string, cfg.writers)
	for w := range cfg.writers {
		slug := fmt.Sprintf("load-w%d", w)
		wp, err := stores[0].FindProjectBySlug(ctx, slug)
		if err != nil {
			wp = &governance.Project{Slug: slug, Name: slug}
			if err := stores[0].CreateProject(ctx, wp); err != nil {
				return nil, err
			}
		}
		if secrets[w], err = loadToken(ctx, stores[0], wp); err != nil {
			return nil, err
		}
	}
	transport := &http.Transport{MaxIdleConnsPerHost: cfg.clients + cfg.writers, MaxIdleConns: 2 * (cfg.clients + cfg.writers)}
	defer transport.CloseIdleConnections()
	res := &scaleResult{name: name, instances: len(stores)}
	var mu sync.Mutex
	fail := func(err error) {
		res.errs++
		if res.firstErr == nil {
			res.firstErr = err
		}
	}
	get := func(c *http.Client, u string) error {
		resp, err := c.Get(u)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: status %d", u, resp.StatusCode)
		}
		return nil
	}
	// Every client signs in on the first instance and carries the
	// cookies to all of them (the session keys are in the database).
	clients := make([]*http.Client, cfg.clients+cfg.writers)
	for i := range clients {
		jar, _ := cookiejar.New(nil)
		for _, b := range bases {
			u, _ := url.Parse(b)
			jar.SetCookies(u, cookies)
		}
		clients[i] = &http.Client{Jar: jar, Transport: transport, Timeout: 30 * time.Second}
	}
	api := &http.Client{Transport: transport, Timeout: 60 * time.Second}
	// run starts n goroutines that call turn until the deadline.
	run := func(d time.Duration, n int, turn func(id, k int, r *mrand.Rand)) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		deadline := start.Add(d)
		for id := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := mrand.New(mrand.NewPCG(uint64(id), 31))
				for k := 0; time.Now().Before(deadline); k++ {
					turn(id, k, r)
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}

	// Baseline: /healthz from every client, spread over the instances.
	took := run(max(cfg.duration/6, 5*time.Second), len(clients), func(id, _ int, _ *mrand.Rand) {
		t0 := time.Now()
		err := get(clients[id], bases[id%len(bases)]+"/healthz")
		d := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		res.baseline = append(res.baseline, d)
		if err != nil {
			fail(err)
		}
	})
	res.baselineRate = float64(len(res.baseline)) / took.Seconds()

	sessions := cfg.events / 10
	words := []string{"酒店", "门票", "环球影城", "deploy", "timeout", "午睡", "博物馆", "invoice report"}
	run0 := time.Now().UnixNano()
	pageTurn := func(ph *phase, id int, r *mrand.Rand) {
		kind, path := pageKinds[0], fmt.Sprintf("/projects/%s/sessions/syn-%d-%d", p.Slug, (r.IntN(sessions)/10000)*100_000, r.IntN(sessions)%10000)
		if r.IntN(100) >= 65 {
			kind, path = pageKinds[1], "/search?project="+p.Slug+"&q="+url.QueryEscape(words[r.IntN(len(words))])
		}
		t0 := time.Now()
		err := get(clients[id], bases[id%len(bases)]+path)
		d := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		ph.pages[kind] = append(ph.pages[kind], d)
		if err != nil {
			ph.pageErrs++
			fail(err)
		}
	}
	writeTurn := func(ph *phase, w, k int, r *mrand.Rand) {
		subject := fmt.Sprintf("writer-%d", w)
		now := time.Now().UTC()
		batch := make([]map[string]any, 0, cfg.batch)
		for i := range cfg.batch {
			session := fmt.Sprintf("w%d-%s-%d-%d-%d", run0, ph.name, w, k, i/20)
			batch = append(batch, map[string]any{"id": fmt.Sprintf("%s-%d", session, i%20), "session_id": session, "subject_id": subject,
				"turn": i%20 + 1, "role": []string{"user", "assistant"}[i%2],
				"text":        fmt.Sprintf("line %d of batch %d: please book the %s near the station", i, k, words[r.IntN(len(words))]),
				"occurred_at": now.Add(time.Duration(i-cfg.batch) * time.Second).Format(time.RFC3339)})
		}
		body, _ := json.Marshal(batch)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, bases[w%len(bases)]+"/api/v1/events", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secrets[w])
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := api.Do(req)
		var out governance.ImportResult
		if err == nil {
			if resp.StatusCode/100 != 2 {
				err = fmt.Errorf("POST /api/v1/events: status %d", resp.StatusCode)
			} else {
				err = json.NewDecoder(resp.Body).Decode(&out)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		d := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		ph.batches = append(ph.batches, d)
		ph.ingested += out.Inserted
		if err != nil {
			ph.writeErrs++
			fail(err)
		}
	}
	for _, name := range cfg.phases {
		ph := &phase{name: name, pages: map[string][]time.Duration{}}
		if name != "ingest" {
			ph.clients = cfg.clients
		}
		if name != "pages" {
			ph.writers = cfg.writers
		}
		ph.loadBefore = loadAverage()
		ph.took = run(cfg.duration, ph.clients+ph.writers, func(id, k int, r *mrand.Rand) {
			if id < ph.clients {
				pageTurn(ph, id, r)
			} else {
				writeTurn(ph, id-ph.clients, k, r)
			}
		})
		ph.loadAfter = loadAverage()
		res.phases = append(res.phases, ph)
	}
	return res, nil
}
