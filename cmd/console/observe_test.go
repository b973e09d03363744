package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/ops"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestObservability: an agent's traced recall and ingest through the API,
// a beat and a forget show up as spans (the recall inside the agent's own
// trace, saying whether memory was used) and in /metrics, which a
// scraper reads with the metrics token and nobody reads without it; so do
// the SQLite store's writer and heavy-read turns, by operation.
func TestObservability(t *testing.T) {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	cfg := DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.Heartbeat, cfg.LogLevel, cfg.NoDemo = "127.0.0.1:0", filepath.Join(t.TempDir(), "data"), false, "error", true
	cfg.MetricsToken = "scrape-token-0123456789"
	m, err := openMainWith(ctx, cfg, io.Discard, ops.NewTracingWith(tp))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Open(ctx, io.Discard); err != nil {
		m.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	p := &governance.Project{Slug: "ops", Name: "ops"}
	if err := m.Store.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	const secret = "mnemo_test_observability"
	if err := m.Store.CreateToken(ctx, &governance.APIToken{ProjectID: p.ID, Name: "agent", CreatedBy: "test",
		Scopes: []governance.TokenScope{governance.ScopeIngest, governance.ScopeRecall}}, auth.HashToken(secret)); err != nil {
		t.Fatal(err)
	}
	// The agent's own trace: its recall span must be the console's parent.
	const agentTrace, agentSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	post := func(path, body string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, m.URL()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", "00-"+agentTrace+"-"+agentSpan+"-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("POST %s = %d", path, resp.StatusCode)
		}
	}
	post("/api/v1/events", `[{"id":"e1","session_id":"s1","subject_id":"u1","turn":1,"role":"user",
		"text":"From now on, always tag every release with the build number.","occurred_at":"2026-07-01T10:00:00Z"},
		{"id":"e2","session_id":"s1","subject_id":"u1","kind":"session_end","occurred_at":"2026-07-01T10:05:00Z"}]`)
	if _, err := m.Heartbeat.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	rules, _, err := m.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) == 0 {
		t.Fatalf("the beat made no rule: %v", err)
	}
	if _, err := m.Store.ApproveRule(ctx, "test", rules[0].ID, nil); err != nil {
		t.Fatal(err)
	}
	post("/api/v1/recall", `{"task":"tag the release with its build number","subject_id":"u1"}`)
	if _, err := m.App.Forget.Rule(ctx, cliActor, rules[0].ID, false); err != nil {
		t.Fatal(err)
	}

	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans.Ended() {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	attr := func(s sdktrace.ReadOnlySpan, key string) string {
		for _, kv := range s.Attributes() {
			if string(kv.Key) == key {
				return kv.Value.Emit()
			}
		}
		return ""
	}
	for _, name := range []string{"POST /api/v1/recall", "POST /api/v1/events", "mnemo.recall", "mnemo.ingest", "mnemo.beat",
		"mnemo.beat.load", "mnemo.beat.apply", "mnemo.forget"} {
		if len(byName[name]) == 0 {
			t.Errorf("no %q span; spans: %v", name, keys(byName))
		}
	}
	if t.Failed() {
		return
	}
	recall := byName["mnemo.recall"][0]
	if recall.SpanContext().TraceID().String() != agentTrace || recall.Parent().SpanID() != byName["POST /api/v1/recall"][0].SpanContext().SpanID() {
		t.Errorf("the recall span is not inside the agent's trace, under the request's span")
	}
	if n := attr(recall, "mnemo.recall.items"); n == "" || n == "0" {
		t.Errorf("recall span: mnemo.recall.items = %q, want the rule and its episode (memory was used)", n)
	}
	if load := byName["mnemo.beat.load"][0]; load.Parent().SpanID() != byName["mnemo.beat"][0].SpanContext().SpanID() {
		t.Errorf("the beat's load span is not the beat's child")
	}
	if f := byName["mnemo.forget"][0]; attr(f, "mnemo.forget.kind") != "rule" || attr(f, "mnemo.forget.rules") != "1" {
		t.Errorf("forget span attributes: %v", f.Attributes())
	}
	for _, s := range spans.Ended() {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.Emit(), "build number") {
				t.Errorf("span %s carries memory text in %s", s.Name(), kv.Key)
			}
		}
	}

	get := func(token string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, m.URL()+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without a token = %d, want 401", code)
	}
	if code, _ := get("scrape-token-wrong-000000"); code != http.StatusUnauthorized {
		t.Errorf("/metrics with a wrong token = %d, want 401", code)
	}
	code, body := get(cfg.MetricsToken)
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, want := range []string{
		`mnemo_http_request_duration_seconds_count{method="POST",route="/api/v1/recall",status="200"} 1`,
		`mnemo_recall_duration_seconds_count{outcome="hit"} 1`,
		`mnemo_beat_duration_seconds_count{outcome="ok"} 1`,
		`mnemo_events_ingested_total{path="ingest"} 2`,
		`mnemo_forgets_total{kind="rule"} 1`,
		"mnemo_review_queue_proposals ",
		"mnemo_eval_runs_queued 0",
		"mnemo_leader 1",
		// The SQLite store's queues, by the store method that took a turn.
		`mnemo_store_queue_hold_seconds_count{op="IngestEvents",queue="writer"} 1`,
		`mnemo_store_queue_hold_seconds_count{op="Recall",queue="heavy"} 1`,
		`mnemo_store_queue_hold_seconds_count{op="Recall",queue="writer"} 1`,
		`mnemo_store_queue_wait_seconds_count{op="ForgetRule",queue="writer"} 1`,
		`mnemo_store_queue_waiting{queue="writer"} 0`,
		`mnemo_store_queue_waiting{queue="heavy"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// Made-up methods and paths fold into one label each: the series do
	// not grow with what strangers send.
	series := func(body string) int { return strings.Count(body, "mnemo_http_request_duration_seconds_count{") }
	before := series(body)
	for i := range 300 {
		req, _ := http.NewRequest(fmt.Sprintf("M%dX", i), fmt.Sprintf("%s/made-up/%d", m.URL(), i), nil)
		if i%2 == 0 {
			req.URL.Path = fmt.Sprintf("/api/v1/made-up/%d", i)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	_, body = get(cfg.MetricsToken)
	if after := series(body); after > before+6 {
		t.Errorf("300 made-up requests added %d request series to /metrics, want them folded into a few", after-before)
	}
	if !strings.Contains(body, `method="other",route="unmatched"`) {
		t.Errorf("/metrics has no folded series for made-up requests")
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
