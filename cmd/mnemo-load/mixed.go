package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

// The mixed load: clients signed in to the console (pages) and holding an
// API token (ingest, recall, forget) run for a fixed time. Each turn a
// client draws one operation: a timeline page (35 %), a search page
// (20 %), a recall (20 %) or an ingest of a 20-event session under a new
// subject (25 %); every fourth subject it ingested it then forgets through
// the API. A /healthz baseline with the same clients runs first, in the
// same process, and the figures are also given as ratios to it. At the end
// the store is searched for the marker words of every forgotten subject:
// none may be readable.

type opStats struct {
	lat  []time.Duration
	errs int
}

func mixedLoad(ctx context.Context, st *store.Store, p *governance.Project, clients int, dur time.Duration, events int) error {
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
	secret, err := loadToken(ctx, st, p)
	if err != nil {
		return err
	}
	sessions := events / 10
	transport := &http.Transport{MaxIdleConnsPerHost: clients}

	type client struct {
		page *http.Client
		api  *http.Client
	}
	newClient := func() client {
		jar, _ := cookiejar.New(nil)
		u, _ := url.Parse(base)
		jar.SetCookies(u, cookies)
		return client{page: &http.Client{Jar: jar, Transport: transport, Timeout: 30 * time.Second},
			api: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
	}
	do := func(c *http.Client, method, path string, body any) error {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(ctx, method, base+path, rd)
		if c.Jar == nil {
			req.Header.Set("Authorization", "Bearer "+secret)
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s %s: status %d", method, path, resp.StatusCode)
		}
		return nil
	}
	var (
		mu        sync.Mutex
		stats     = map[string]*opStats{}
		firstErr  error
		forgotten []string // marker words of forgotten subjects
	)
	record := func(op string, d time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		s := stats[op]
		if s == nil {
			s = &opStats{}
			stats[op] = s
		}
		s.lat = append(s.lat, d)
		if err != nil {
			s.errs++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	run := func(d time.Duration, turn func(c client, r *mrand.Rand, id int, n int)) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		deadline := start.Add(d)
		for i := 0; i < clients; i++ {
			wg.Add(1)
			go func(id int) {
				defer wg.Done()
				c := newClient()
				r := mrand.New(mrand.NewPCG(uint64(id), 29))
				for n := 0; time.Now().Before(deadline); n++ {
					turn(c, r, id, n)
				}
			}(i)
		}
		wg.Wait()
		return time.Since(start)
	}
	timed := func(op string, fn func() error) {
		t0 := time.Now()
		err := fn()
		record(op, time.Since(t0), err)
	}

	baseDur := dur / 6
	fmt.Printf("load average before: %s\n", loadAverage())
	defer func() { fmt.Printf("load average after: %s\n", loadAverage()) }()
	fmt.Printf("\nmixed load on loopback, %d clients, %d events in %d sessions; baseline /healthz for %s, then the mix for %s\n",
		clients, events, sessions, baseDur, dur)
	baseTook := run(baseDur, func(c client, _ *mrand.Rand, _ int, _ int) {
		timed("baseline /healthz", func() error { return do(c.page, http.MethodGet, "/healthz", nil) })
	})
	words := []string{"酒店", "门票", "环球影城", "deploy", "timeout", "午睡", "博物馆", "invoice report"}
	// Subjects, event ids and markers are new in every run: the database
	// is reused, and a batch whose ids an earlier run stored (or forgot)
	// is skipped whole, so its forget would find nothing to do.
	runTag := time.Now().UnixMilli() % 1_000_000_000
	var queues queueTurns
	st.ObserveQueues(queues.record)
	cpuBefore := processCPU()
	mixTook := run(dur, func(c client, r *mrand.Rand, id int, n int) {
		switch x := r.IntN(100); {
		case x < 35:
			path := fmt.Sprintf("/projects/%s/sessions/syn-%d-%d", p.Slug, (r.IntN(sessions)/10000)*100_000, r.IntN(sessions)%10000)
			timed("page: session timeline", func() error { return do(c.page, http.MethodGet, path, nil) })
		case x < 55:
			path := "/search?project=" + p.Slug + "&q=" + url.QueryEscape(words[r.IntN(len(words))])
			timed("page: search", func() error { return do(c.page, http.MethodGet, path, nil) })
		case x < 75:
			body := map[string]any{"task": "plan a family trip with " + words[r.IntN(len(words))], "subject_id": fmt.Sprintf("mix-%d-%d-%d", runTag, id, r.IntN(n+1)),
				"include_events": true}
			timed("api: recall", func() error { return do(c.api, http.MethodPost, "/api/v1/recall", body) })
		default:
			subject := fmt.Sprintf("mix-%d-%d-%d", runTag, id, n)
			marker := fmt.Sprintf("%s%dr%dq%dz", markerPrefix, runTag, id, n)
			now := time.Now().UTC()
			var batch []map[string]any
			for i := 0; i < 20; i++ {
				batch = append(batch, map[string]any{"id": fmt.Sprintf("%s-%d", subject, i), "session_id": subject, "subject_id": subject,
					"turn": i + 1, "role": []string{"user", "assistant"}[i%2], "text": fmt.Sprintf("we always take the %s to the lake, line %d", marker, i),
					"occurred_at": now.Add(time.Duration(i-20) * time.Second).Format(time.RFC3339)})
			}
			var err error
			timed("api: ingest 20 events", func() error { err = do(c.api, http.MethodPost, "/api/v1/events", batch); return err })
			if err == nil && n%4 == 0 {
				timed("api: forget subject", func() error {
					err := do(c.api, http.MethodDelete, "/api/v1/subjects/"+url.PathEscape(subject), nil)
					if err == nil {
						mu.Lock()
						forgotten = append(forgotten, marker)
						mu.Unlock()
					}
					return err
				})
			}
		}
	})

	mixCPU := processCPU() - cpuBefore
	bs := stats["baseline /healthz"]
	b50, b95 := percentiles(bs.lat)
	bRate := float64(len(bs.lat)) / baseTook.Seconds()
	fmt.Printf("  %-24s %7d requests %8.0f req/s  p50 %8s  p95 %8s  errors %d\n", "baseline /healthz", len(bs.lat), bRate,
		b50.Round(10*time.Microsecond), b95.Round(10*time.Microsecond), bs.errs)
	total, errs := 0, 0
	for _, op := range []string{"page: session timeline", "page: search", "api: recall", "api: ingest 20 events", "api: forget subject"} {
		s := stats[op]
		if s == nil {
			continue
		}
		p50, p95 := percentiles(s.lat)
		rate := float64(len(s.lat)) / mixTook.Seconds()
		total += len(s.lat)
		errs += s.errs
		fmt.Printf("  %-24s %7d requests %8.0f req/s  p50 %8s (%5.1f× base)  p95 %8s (%5.1f× base)  errors %d\n", op, len(s.lat), rate,
			p50.Round(10*time.Microsecond), float64(p50)/float64(b50), p95.Round(10*time.Microsecond), float64(p95)/float64(b95), s.errs)
	}
	mixRate := float64(total) / mixTook.Seconds()
	fmt.Printf("  %-24s %7d requests %8.0f req/s (%.3f× the baseline's throughput)  errors %d\n", "all of the mix", total, mixRate, mixRate/bRate, errs)
	fmt.Printf("  %-24s %7.1f CPU-s in %s (%.2f cores), %.1f CPU-ms a request\n", "this process's CPU", mixCPU.Seconds(),
		mixTook.Round(time.Second), mixCPU.Seconds()/mixTook.Seconds(), float64(mixCPU.Milliseconds())/float64(max(total, 1)))
	st.ObserveQueues(nil)
	queues.print(mixTook)
	if firstErr != nil {
		fmt.Printf("  first error: %v\n", firstErr)
	}

	// Nothing forgotten is readable: not in the events' text, not found
	// by the full-text index.
	// One pass over the events finds every line of this run's markers
	// (one pass per marker took minutes at 1M events); a marker is a
	// whole word ("kayak3q4" must not count the lines of "kayak3q40",
	// another subject's).
	var runLines []string
	err = queryTexts(ctx, st, fmt.Sprintf("%s%dr", markerPrefix, runTag), func(text string) { runLines = append(runLines, text) })
	if err != nil {
		return err
	}
	left := 0
	for _, m := range forgotten {
		word := " " + m + " "
		n := 0
		for _, text := range runLines {
			if strings.Contains(text, word) {
				n++
			}
		}
		hits, _, err := st.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: m, Limit: 50})
		if err != nil {
			return err
		}
		for _, h := range hits {
			if strings.Contains(h.Event.Text, word) {
				n++
			}
		}
		left += n
	}
	// Nor in the bytes of the database file and its log once the last
	// forget's scrub is done (checkpointed).
	inFile, err := markersInFile(ctx, st, forgotten)
	if err != nil {
		return err
	}
	left += inFile
	fmt.Printf("  forgotten subjects: %d; their lines still readable: %d (in the database file or its log: %d)\n", len(forgotten), left, inFile)
	if errs > 0 || left > 0 {
		return fmt.Errorf("mixed load: %d errors, %d forgotten lines readable", errs, left)
	}
	return nil
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// queueTurns gathers the store's queue turns (writer, heavy reads) by
// queue and operation during the mix.
type queueTurns struct {
	mu    sync.Mutex
	turns map[[2]string]*queueOp
}

type queueOp struct{ waited, held []time.Duration }

func (q *queueTurns) record(t store.QueueTurn) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.turns == nil {
		q.turns = map[[2]string]*queueOp{}
	}
	k := [2]string{string(t.Queue), t.Op}
	o := q.turns[k]
	if o == nil {
		o = &queueOp{}
		q.turns[k] = o
	}
	o.waited, o.held = append(o.waited, t.Waited), append(o.held, t.Held)
}

// print lists each queue's turns by operation: how many a second, the
// held time (mean, p95, max, and the share of the mix's time), and the
// wait for the turn (p50, p95).
func (q *queueTurns) print(took time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	keys := slices.SortedFunc(maps.Keys(q.turns), func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return -c // writer first
		}
		return strings.Compare(a[1], b[1])
	})
	fmt.Printf("\n  store queue turns during the mix (%s): held = the turn's time in the queue's slot, wait = before it\n", took.Round(time.Second))
	for _, k := range keys {
		o := q.turns[k]
		var sum, top time.Duration
		for _, h := range o.held {
			sum += h
			top = max(top, h)
		}
		_, h95 := percentiles(o.held)
		w50, w95 := percentiles(o.waited)
		fmt.Printf("  %-6s %-22s %6d turns %6.1f/s  held mean %8s p95 %8s max %8s (%5.1f %% of the time)  wait p50 %8s p95 %8s\n",
			k[0], k[1], len(o.held), float64(len(o.held))/took.Seconds(), (sum / time.Duration(len(o.held))).Round(10*time.Microsecond),
			h95.Round(10*time.Microsecond), top.Round(10*time.Microsecond), 100*sum.Seconds()/took.Seconds(),
			w50.Round(10*time.Microsecond), w95.Round(10*time.Microsecond))
	}
}

// queryTexts calls fn with the text of every event holding needle.
func queryTexts(ctx context.Context, st *store.Store, needle string, fn func(string)) error {
	rows, err := st.DB().QueryContext(ctx, `SELECT text FROM events WHERE instr(text, ?) > 0`, needle)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return err
		}
		fn(text)
	}
	return rows.Err()
}

// loadToken makes an API token of the load project with every scope and
// returns its secret.
func loadToken(ctx context.Context, st loadStore, p *governance.Project) (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret := "mnemo_load_" + hex.EncodeToString(b)
	t := &governance.APIToken{ProjectID: p.ID, Name: "load " + time.Now().UTC().Format(time.RFC3339Nano),
		Scopes: []governance.TokenScope{governance.ScopeIngest, governance.ScopeRecall, governance.ScopeForget}}
	if err := st.CreateToken(ctx, t, governance.HashTokenSecret(secret)); err != nil {
		return "", err
	}
	return secret, nil
}

// markersInFile checkpoints the log and counts the forgotten markers still
// present in the bytes of the database file or its log: one pass over
// each file for the markers' common prefix.
func markersInFile(ctx context.Context, st *store.Store, markers []string) (int, error) {
	if err := st.Checkpoint(ctx); err != nil {
		return 0, err
	}
	gone := map[string]bool{}
	for _, m := range markers {
		gone[m] = true
	}
	found := 0
	for _, path := range []string{st.Path(), st.Path() + "-wal"} {
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		for i := bytes.Index(b, []byte(markerPrefix)); i >= 0; {
			end := i + len(markerPrefix)
			for end < len(b) && (b[end] >= '0' && b[end] <= '9' || b[end] == 'q' || b[end] == 'r') {
				end++
			}
			if end < len(b) && b[end] == 'z' {
				end++ // a whole marker; without its z, a prefix a live term's index key may carry
			}
			if gone[string(b[i:end])] {
				found++
			}
			next := bytes.Index(b[i+1:], []byte(markerPrefix))
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return found, nil
}

// markerPrefix starts every marker word the mix writes
// ("kayak<run>r<client>q<turn>z"). The closing z keeps any marker from
// being a prefix of another: the full-text index keeps the shortest prefix
// of a page's first term as that page's key, so a live "…q80z" can leave
// the bytes "…q8" in the file, which must not count as the forgotten
// "…q8z".
const markerPrefix = "kayak"
