package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

// evalServices wires evals to the fixture's store with the offline
// heuristic consolidator, one beat at a time.
func evalServices(st *store.Store) *evals.Services {
	cons := heuristic.NewConsolidator(nil)
	var mu sync.Mutex
	return &evals.Services{Store: st, Beat: func(ctx context.Context, projectID int64) error {
		mu.Lock()
		defer mu.Unlock()
		p, err := st.FindProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		in, err := st.LoadConsolidateInput(ctx, p, time.Hour)
		if err != nil {
			return err
		}
		plan, err := cons.Plan(ctx, in)
		if err != nil {
			return err
		}
		return st.ApplyBeatPlan(ctx, plan)
	}, Forget: func(ctx context.Context, ruleID int64, actor string) error {
		_, err := st.ForgetRule(ctx, actor, ruleID, false)
		return err
	}}
}

// startEvalRunner runs the background runner on the fixture's store.
func startEvalRunner(t *testing.T, f *Fixture) {
	t.Helper()
	r := evals.NewRunner(f.Store, evals.Deps{Memory: evalServices(f.Store)}, nil)
	r.Interval = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// uploadSuite posts a suite file to the evals page (or the benchmarks page).
func uploadSuite(t *testing.T, c *Client, page, name, content string) (*http.Response, *goquery.Document) {
	t.Helper()
	token := c.CSRF(page)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", token)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write([]byte(content))
	mw.Close()
	action := "/evals/suites"
	if page == "/evals/benchmarks" {
		action = page
	}
	res, b := c.Do(http.MethodPost, action, &body, http.Header{"Content-Type": {mw.FormDataContentType()}})
	return res, parse(t, b)
}

const webSuite = `name: web-travel
description: The nap window reaches the Shanghai task.
project: travel
subject: family-chen
fixtures:
  sessions:
    - id: bj
      events:
        - text: 孩子每天下午两点到四点要午睡，以后不管去哪儿玩，这个时间段都给她空出来。
        - role: assistant
          text: 记住了，每天14:00到16:00都留给她午睡。
cases:
  - id: nap
    kind: recall
    description: The nap window is recalled.
    task: 带五岁的女儿去上海玩两天，下午要午睡。
    include: [{regex: "14:00|午睡"}]
  - id: offline-ab
    kind: ab
    task: 带五岁的女儿去上海玩两天。
    rules: [{text: 午睡}]
`

var runPath = regexp.MustCompile(`^/evals/runs/(\d+)$`)

// waitDone polls the run's panel as htmx does until it asks for a refresh.
func waitDone(t *testing.T, c *Client, runURL string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		res, body := c.Do(http.MethodGet, runURL+"/panel", nil, http.Header{"HX-Request": {"true"}})
		wantStatus(t, res, http.StatusOK)
		if strings.Contains(body, "<html") {
			t.Fatal("the panel came back as a full page")
		}
		if res.Header.Get("HX-Refresh") == "true" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the run never finished")
}

func startRun(t *testing.T, c *Client, suiteURL string) string {
	t.Helper()
	res, _ := c.PostForm(suiteURL, suiteURL+"/runs", url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	loc := res.Header.Get("Location")
	if !runPath.MatchString(loc) {
		t.Fatalf("run location = %q", loc)
	}
	return loc
}

func TestEvalPages(t *testing.T) {
	f := NewFixture(t, web.Config{})
	// The runner starts (for the whole test) once the first run's queued
	// page has been checked, so that check never races the run to its end.
	parent := t

	t.Run("ErrForbidden", func(t *testing.T) {
		res, _ := f.Login(t, MemberLi).Get("/evals")
		wantStatus(t, res, http.StatusForbidden)
		res, _ = f.Anonymous(t).Get("/evals")
		if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
			t.Fatalf("anonymous: status %d", res.StatusCode)
		}
	})

	t.Run("ErrInvalidSuite", func(t *testing.T) {
		c := f.Login(t, TravelReviewer)
		res, doc := uploadSuite(t, c, "/evals", "broken.yaml", strings.Replace(webSuite, "include:", "includ:", 1))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		got := doc.Find(testid("upload-errors")).Text()
		if !strings.Contains(got, "broken.yaml") || !strings.Contains(got, "field includ not found") {
			t.Fatalf("upload errors = %q", got)
		}
		res, doc = uploadSuite(t, c, "/evals", "broken.yaml", strings.Replace(webSuite, "kind: recall", "kind: recal", 1))
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if got := doc.Find(testid("upload-errors")).Text(); !strings.Contains(got, `case "nap": kind: "recal" is not one of`) {
			t.Fatalf("upload errors = %q", got)
		}
		// In Chinese each problem is said with its values: the file, the
		// case, the field and what is wrong.
		zh := f.Login(t, TravelReviewer)
		inChinese(t, zh, "/evals")
		_, doc = uploadSuite(t, zh, "/evals", "broken.yaml", strings.Replace(webSuite, "kind: recall", "kind: recal", 1))
		wantChinese(t, "upload problems", doc.Find(testid("upload-errors")), []string{`broken.yaml：用例 "nap"：kind："recal" 不是`},
			[]string{"is not one of", "case \"nap\""})
		// The language is the account's: back to English for what follows.
		if res, _ := zh.PostForm("/evals", "/me/language", url.Values{"language": {"en"}, "back": {"/evals"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing English: status %d", res.StatusCode)
		}
	})

	c := f.Login(t, TravelReviewer)
	var suiteURL, firstRun, cancelledRun string
	t.Run("UploadAndRun", func(t *testing.T) {
		res, _ := uploadSuite(t, c, "/evals", "web-travel.yaml", webSuite)
		wantStatus(t, res, http.StatusSeeOther)
		suiteURL = res.Header.Get("Location")
		_, doc := c.Get(suiteURL)
		if got := texts(doc.Find(testid("case-row") + " code")); strings.Join(got, ",") != "nap,offline-ab" {
			t.Fatalf("cases = %v", got)
		}
		if doc.Find(testid("trend-empty")).Length() != 1 {
			t.Fatal("no empty-trend note before the first run")
		}

		firstRun = startRun(t, c, suiteURL)
		_, doc = c.Get(firstRun)
		panel := doc.Find(testid("eval-run-panel"))
		if hx, _ := panel.Attr("hx-get"); hx != firstRun+"/panel" {
			t.Fatalf("panel polls %q", hx)
		}
		if trig, _ := panel.Attr("hx-trigger"); trig != "every 1s" {
			t.Fatalf("panel trigger %q", trig)
		}
		// A second run, cancelled from its page while still queued: the
		// runner has not started, so nothing races the cancel.
		row, err := f.Store.FindEvalSuiteByName(context.Background(), "web-travel")
		if err != nil {
			t.Fatal(err)
		}
		queued, err := evals.Enqueue(context.Background(), f.Store, row.ID, "test")
		if err != nil {
			t.Fatal(err)
		}
		cancelledRun = fmt.Sprintf("/evals/runs/%d", queued.ID)
		res, _ = c.PostForm(cancelledRun, cancelledRun+"/cancel", url.Values{})
		wantStatus(t, res, http.StatusSeeOther)
		startEvalRunner(parent, f)
		waitDone(t, c, firstRun)

		_, doc = c.Get(firstRun)
		if got := doc.Find(testid("run-status")).First().Text(); got != "done" {
			t.Fatalf("status = %q", got)
		}
		if _, polls := doc.Find(testid("eval-run-panel")).Attr("hx-get"); polls {
			t.Fatal("a finished run still polls")
		}
		if got := doc.Find(testid("run-progress-text")).Text(); !strings.Contains(got, "2 of 2 cases done (100%)") {
			t.Fatalf("progress = %q", got)
		}
		nap := doc.Find(testid("case-nap"))
		if got := nap.Find(testid("case-status")).Text(); got != "passed" {
			t.Fatalf("nap = %s: %s", got, nap.Text())
		}
		ab := doc.Find(testid("case-offline-ab"))
		if got := ab.Find(testid("case-reason")).Text(); !strings.Contains(got, "no model endpoint configured") {
			t.Fatalf("ab reason = %q", got)
		}
		if got := doc.Find(testid("metric-pass-rate")).Text(); !strings.Contains(got, "100%") {
			t.Fatalf("pass rate = %q", got)
		}
	})

	t.Run("TrendAndCompare", func(t *testing.T) {
		// The suite changes so that the nap case must fail: a regression.
		broken := strings.Replace(webSuite, `include: [{regex: "14:00|午睡"}]`, `include: [报销]`, 1)
		res, _ := uploadSuite(t, c, "/evals", "web-travel.yaml", broken)
		wantStatus(t, res, http.StatusSeeOther)
		second := startRun(t, c, suiteURL)
		waitDone(t, c, second)
		_, doc := c.Get(second)
		if got := doc.Find(testid("case-nap") + " " + testid("case-reason")).Text(); !strings.Contains(got, "no rule in this project and subject matches it") {
			t.Fatalf("reason = %q", got)
		}
		link, ok := doc.Find(testid("compare-previous")).Attr("href")
		if !ok {
			t.Fatal("no link to compare with the previous run")
		}
		_, doc = c.Get(link)
		rows := doc.Find(testid("compare-cases") + " tbody tr")
		if first, _ := rows.First().Attr("data-testid"); first != "change-regression" {
			t.Fatalf("first row = %s, want the regression first", first)
		}
		if got := doc.Find(testid("compare-summary")).Text(); !strings.Contains(got, "1 regression,") {
			t.Fatalf("summary = %q", got)
		}

		_, doc = c.Get(suiteURL)
		chart := doc.Find(testid("trend-chart"))
		if chart.Find("svg polyline").Length() == 0 || chart.Find(testid("trend-pass-rate")+" circle").Length() != 2 {
			t.Fatalf("trend chart = %s", chart.Text())
		}
		if doc.Find(testid("compare-form")).Length() != 1 {
			t.Fatal("no compare form with two finished runs")
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		// The run cancelled while queued stayed cancelled with the runner
		// going; a finished run cannot be cancelled.
		_, doc := c.Get(cancelledRun)
		if got := doc.Find(testid("run-status")).First().Text(); got != "cancelled" {
			t.Fatalf("status = %q", got)
		}
		res, _ := c.PostForm(firstRun, firstRun+"/cancel", url.Values{})
		wantStatus(t, res, http.StatusConflict)
		if _, doc := c.Get(firstRun); doc.Find(testid("run-status")).First().Text() != "done" {
			t.Fatal("cancelling a finished run changed it")
		}
	})

	t.Run("LiveProjectsNeedTheirReviewers", func(t *testing.T) {
		live := `name: live-expense
project: expense-agent
fixtures: {use_live_project: true}
cases:
  - {id: c, kind: recall, task: 报销, include: ["200"]}
`
		res, doc := uploadSuite(t, c, "/evals", "live.yaml", live)
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if got := doc.Find(testid("upload-errors")).Text(); !strings.Contains(got, "reads live projects you do not review: expense-agent") {
			t.Fatalf("errors = %q", got)
		}
		admin := f.Login(t, Admin)
		res, _ = uploadSuite(t, admin, "/evals", "live.yaml", live)
		wantStatus(t, res, http.StatusSeeOther)
		suite := res.Header.Get("Location")
		res, _ = c.Get(suite)
		wantStatus(t, res, http.StatusForbidden)
		_, doc = c.Get("/evals")
		if doc.Find(testid("suite-live-expense")).Length() != 0 {
			t.Fatal("the travel reviewer sees a suite over the expense project")
		}
		res, _ = f.Login(t, ExpenseReviewer).Get(suite)
		wantStatus(t, res, http.StatusOK)
	})

	t.Run("Benchmark", func(t *testing.T) {
		data, err := os.ReadFile("../evals/testdata/locomo-sample.json")
		if err != nil {
			t.Fatal(err)
		}
		res, _ := uploadSuite(t, c, "/evals/benchmarks", "locomo-sample.json", string(data))
		wantStatus(t, res, http.StatusSeeOther)
		run := res.Header.Get("Location")
		waitDone(t, c, run)
		_, doc := c.Get(run)
		if doc.Find(testid("benchmark-table")+" "+testid("benchmark-row")).Length() < 4 {
			t.Fatalf("benchmark table = %s", doc.Find(testid("run-results")).Text())
		}
		_, doc = c.Get("/evals/benchmarks")
		if doc.Find(testid("benchmark-locomo-sample")+" "+testid("benchmark-table")).Length() != 1 {
			t.Fatal("the benchmarks page does not show the table")
		}
	})

	// A LongMemEval file, gzip-compressed, is kept beside its suite and
	// read back by the run: both tables and the notes show.
	t.Run("LongMemEval", func(t *testing.T) {
		data, err := os.ReadFile("../evals/testdata/longmemeval-sample.json")
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		res, _ := uploadSuite(t, c, "/evals/benchmarks", "longmemeval-sample.json.gz", gz.String())
		wantStatus(t, res, http.StatusSeeOther)
		run := res.Header.Get("Location")
		waitDone(t, c, run)
		_, doc := c.Get(run)
		if doc.Find(testid("benchmark-table")+" "+testid("benchmark-row")).Length() < 3 ||
			doc.Find(testid("benchmark-session-table")+" "+testid("benchmark-row")).Length() < 3 {
			t.Fatalf("benchmark tables = %s", doc.Find(testid("run-results")).Text())
		}
		if notes := doc.Find(testid("benchmark-notes")).Text(); !strings.Contains(notes, "knowledge updates") {
			t.Fatalf("notes = %q", notes)
		}
		_, doc = c.Get("/evals/benchmarks")
		if got := doc.Find(testid("benchmark-longmemeval-sample")).Text(); !strings.Contains(got, "4 questions") {
			t.Fatalf("the benchmarks page shows %q", got)
		}
	})
}

func TestEvalRunABRendering(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ctx := context.Background()
	row, err := evals.Upload(ctx, f.Store, "ab.yaml", []byte(`name: ab
project: travel
fixtures: {sessions: [{events: [{text: hi}]}]}
cases: [{id: shanghai, kind: ab, task: plan, rules: [{text: nap}]}]
`), "test")
	if err != nil {
		t.Fatal(err)
	}
	run, err := evals.Enqueue(ctx, f.Store, row.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Store.ClaimEvalRun(ctx); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	res := &evals.CaseResult{CaseID: "shanghai", Kind: evals.KindAB, Status: evals.StatusPassed, Reason: "uplift +1.00",
		Detail: &evals.Detail{AB: &evals.ABDetail{Task: "plan", Uplift: 1,
			With:    &evals.Variant{Output: `{"days":[{"blocks":[{"time":"14:00-16:00","activity":"午睡"}]}],"route_check":{"attached":true}}`, Score: 1},
			Without: &evals.Variant{Output: `{"days":[{"blocks":[{"time":"14:00-16:00","activity":"水族馆"}]}],"route_check":{"attached":false}}`, Score: 0},
			Rules: []*evals.RuleCompliance{{Name: "nap window", Method: "judge",
				With:    &evals.Verdict{Verdict: evals.Satisfied, Evidence: "午睡", Quoted: &yes},
				Without: &evals.Verdict{Verdict: evals.Unsatisfied, Evidence: "the child naps", Quoted: &no}}},
			Guards: []evals.CheckResult{{Check: `not_contains "Hotel X"`, Passed: true, Evidence: "does not occur"}},
		}}}
	detail, _ := json.Marshal(res)
	if err := f.Store.SaveEvalResult(ctx, &evals.ResultRow{RunID: run.ID, CaseID: "shanghai", Kind: "ab", Status: "passed",
		Reason: res.Reason, Detail: string(detail)}, 600, 0.01); err != nil {
		t.Fatal(err)
	}
	m := evals.Summarize(nil, []*evals.CaseResult{res}, time.Second)
	sum, _ := json.Marshal(evals.RunSummary{Metrics: &m})
	if _, err := f.Store.FinishEvalRun(ctx, run.ID, evals.RunDone, string(sum), ""); err != nil {
		t.Fatal(err)
	}
	_, doc := f.Login(t, TravelReviewer).Get(fmt.Sprintf("/evals/runs/%d", run.ID))
	with := doc.Find(testid("ab-with") + " ins")
	without := doc.Find(testid("ab-without") + " del")
	if !strings.Contains(with.Text(), "午睡") || !strings.Contains(with.Text(), "true") || !strings.Contains(without.Text(), "水族馆") {
		t.Fatalf("highlighted lines: with %q, without %q", with.Text(), without.Text())
	}
	if strings.Contains(with.Text(), "14:00-16:00") {
		t.Fatal("a line common to both answers is highlighted")
	}
	if got := doc.Find(testid("ab-uplift")).Text(); got != "+1.00" {
		t.Fatalf("uplift = %q", got)
	}
	if got := doc.Find(testid("ab-rules")).Text(); !strings.Contains(got, "not a quote from the answer") {
		t.Fatalf("unquoted evidence not flagged: %q", got)
	}
	if got := doc.Find(testid("compliance-row")).Text(); !strings.Contains(got, "nap window") || !strings.Contains(got, "+1.00") {
		t.Fatalf("compliance table = %q", got)
	}
	if got := doc.Find(testid("metric-uplift")).Text(); !strings.Contains(got, "+1.00") {
		t.Fatalf("uplift metric = %q", got)
	}
}

func TestRuleChecks(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ctx := context.Background()
	res, err := f.Store.DB().ExecContext(ctx, `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES (?, 'family-li', 'user_preference', '每天14:00–16:00留给孩子午睡', 'explicit_user_instruction', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')`,
		f.Travel.ID)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	page := fmt.Sprintf("/rules/%d/checks", id)

	r, _ := f.Login(t, ExpenseReviewer).Get(page)
	wantStatus(t, r, http.StatusForbidden)

	c := f.Login(t, TravelReviewer)
	_, doc := c.Get(page)
	if doc.Find(testid("no-checks")).Length() != 1 {
		t.Fatal("a rule without checks does not say the model judges it")
	}
	r, doc = c.PostForm(page, page, url.Values{"type": {"regex"}, "value": {"("}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if got := doc.Find(testid("check-error")).Text(); !strings.Contains(got, "not a valid regular expression") {
		t.Fatalf("error = %q", got)
	}
	r, _ = c.PostForm(page, page, url.Values{"type": {"time_window"}, "start": {"14:00"}, "end": {"16:00"}, "path": {"days.*"}, "labels": {"午睡, nap"}})
	wantStatus(t, r, http.StatusSeeOther)
	r, _ = c.PostForm(page, page, url.Values{"type": {"json_path_equals"}, "path": {"route_check.attached"}, "equals": {"true"}})
	wantStatus(t, r, http.StatusSeeOther)
	_, doc = c.Get(page)
	if got := texts(doc.Find(testid("check-item") + " code")); len(got) != 2 || !strings.Contains(got[0], "time_window 14:00–16:00 at days.*") {
		t.Fatalf("checks = %v", got)
	}
	stored, err := f.Store.FindRuleChecks(ctx, []int64{id})
	if err != nil {
		t.Fatal(err)
	}
	checks, err := evals.ParseChecks(stored[id])
	if err != nil || len(checks) != 2 || checks[1].Equals != true {
		t.Fatalf("stored checks = %s (%v)", stored[id], err)
	}
	r, _ = c.PostForm(page, page+"/delete", url.Values{"index": {"0"}})
	wantStatus(t, r, http.StatusSeeOther)
	_, doc = c.Get(page)
	if got := doc.Find(testid("check-item")).Length(); got != 1 {
		t.Fatalf("checks after delete = %d", got)
	}
}

// bigLongMemEval is the LongMemEval sample with a filler session of n
// bytes added to its first question's haystack, uncompressed.
func bigLongMemEval(t *testing.T, n int) []byte {
	t.Helper()
	data, err := os.ReadFile("../evals/testdata/longmemeval-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []map[string]any
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatal(err)
	}
	var turns []map[string]any
	line := strings.Repeat("A long note about the weather and nothing else. ", 500) // 24.5 KB a turn
	for size := 0; size < n; size += len(line) {
		turns = append(turns, map[string]any{"role": "user", "content": line})
	}
	q := qs[0]
	q["haystack_sessions"] = append(q["haystack_sessions"].([]any), turns)
	q["haystack_session_ids"] = append(q["haystack_session_ids"].([]any), "filler")
	q["haystack_dates"] = append(q["haystack_dates"].([]any), q["haystack_dates"].([]any)[0])
	out, err := json.Marshal(qs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEvalBenchmarkLargeUpload: an administrator's benchmark file may be
// as large as MaxBenchmarkBytes. One larger than a multipart form keeps in
// memory (sent uncompressed, so it is compressed on the way into the
// store) is stored and run; one over the limit is refused with an error
// naming the limit and the flag that raises it.
func TestEvalBenchmarkLargeUpload(t *testing.T) {
	f := NewFixture(t, web.Config{MaxBenchmarkBytes: 3 << 20})
	startEvalRunner(t, f)
	admin := f.Login(t, Admin)

	big := bigLongMemEval(t, 2<<20)
	if len(big) <= 2<<20 || len(big) > 3<<20 {
		t.Fatalf("the file is %d bytes", len(big))
	}
	res, _ := uploadSuite(t, admin, "/evals/benchmarks", "longmemeval-big.json", string(big))
	wantStatus(t, res, http.StatusSeeOther)
	run := res.Header.Get("Location")
	waitDone(t, admin, run)
	_, doc := admin.Get(run)
	if doc.Find(testid("benchmark-table")+" "+testid("benchmark-row")).Length() < 3 {
		t.Fatalf("benchmark table = %s", doc.Find(testid("run-results")).Text())
	}
	row, err := f.Store.FindEvalSuiteByName(context.Background(), "longmemeval-big")
	if err != nil || strings.Contains(row.Body, "weather") || !strings.Contains(row.Body, "stored: sha256:") {
		t.Fatalf("suite = %v, %v", row, err)
	}

	// Over the limit by less than the form's allowance (the handler
	// refuses the file), and by more (the body limit refuses the request).
	for _, n := range []int{3<<20 + 512<<10, 5 << 20} {
		res, doc = uploadSuite(t, admin, "/evals/benchmarks", "longmemeval-huge.json", string(bigLongMemEval(t, n)))
		wantStatus(t, res, http.StatusRequestEntityTooLarge)
		if got := doc.Text(); !strings.Contains(got, "larger than 3 MiB") || !strings.Contains(got, "--max-benchmark-bytes") ||
			!strings.Contains(got, "MNEMO_MAX_BENCHMARK_BYTES") {
			t.Fatalf("%d bytes: the refusal does not name the limit and the flag: %q", n, got)
		}
		if _, err := f.Store.FindEvalSuiteByName(context.Background(), "longmemeval-huge"); err == nil {
			t.Fatalf("%d bytes: a file over the limit was stored", n)
		}
	}
}
