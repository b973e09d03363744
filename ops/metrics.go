// Package ops holds what operators watch a console with: Prometheus
// metrics (Metrics, served at /metrics) and OpenTelemetry traces
// (Tracing; the spans themselves are started where the work is observed,
// in cmd/console's instrumented store). It imports no other package of
// the console. See docs/operations.md, "Metrics and traces".
package ops

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the console's Prometheus collectors, on a registry of their
// own (no global state), with the Go runtime and process collectors.
type Metrics struct {
	Registry *prometheus.Registry

	requests *prometheus.HistogramVec
	recalls  *prometheus.HistogramVec
	beats    *prometheus.HistogramVec
	ingested *prometheus.CounterVec
	forgets  *prometheus.CounterVec
	evalRuns *prometheus.CounterVec
	// queueWait and queueHold: turns of the store's queues (the SQLite
	// writer, the heavy-read slots) by queue and store operation.
	queueWait *prometheus.HistogramVec
	queueHold *prometheus.HistogramVec
}

// Queues reads the depths of the console's queues when /metrics is
// scraped. A failed read reports nothing for that queue.
type Queues struct {
	// Proposals is the review queue: proposed rules over all projects.
	Proposals func(ctx context.Context) (int, error)
	// EvalRuns is the eval runs waiting to run.
	EvalRuns func(ctx context.Context) (int, error)
	// Leading reports whether this instance runs the heartbeat.
	Leading func() bool
	// StoreWaiting reports how many callers wait for each of the store's
	// queues ("writer", "heavy"; SQLite only).
	StoreWaiting map[string]func() int
}

// Latency buckets: a page or a recall takes milliseconds, a beat seconds
// to minutes.
var (
	fastBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	beatBuckets = []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 120, 300, 600}
)

// NewMetrics registers the collectors; q's functions (when set) become
// gauges read at scrape time.
func NewMetrics(q Queues) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_http_request_duration_seconds", Help: "HTTP requests by route template, method and status.",
			Buckets: fastBuckets}, []string{"route", "method", "status"}),
		recalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_recall_duration_seconds", Help: "Recalls (API, MCP, playground, evals) by outcome: hit (memory recalled), empty, error.",
			Buckets: fastBuckets}, []string{"outcome"}),
		beats: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_beat_duration_seconds", Help: "Heartbeat beats by outcome: ok or error.",
			Buckets: beatBuckets}, []string{"outcome"}),
		ingested: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mnemo_events_ingested_total", Help: "Events stored, by path: ingest (API, MCP, seed), import, follow."}, []string{"path"}),
		forgets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mnemo_forgets_total", Help: "Forgets by what was forgotten: rule, rules, candidate, subject."}, []string{"kind"}),
		evalRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mnemo_eval_runs_total", Help: "Eval runs finished, by status."}, []string{"status"}),
		queueWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_store_queue_wait_seconds", Help: "Time a store operation waited for a queue (writer: the one writing transaction; heavy: the full-text search and recall slots), by queue and operation.",
			Buckets: fastBuckets}, []string{"queue", "op"}),
		queueHold: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mnemo_store_queue_hold_seconds", Help: "Time a store operation held a queue's slot, by queue and operation.",
			Buckets: fastBuckets}, []string{"queue", "op"}),
	}
	m.Registry.MustRegister(m.requests, m.recalls, m.beats, m.ingested, m.forgets, m.evalRuns, m.queueWait, m.queueHold,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	gauge := func(name, help string, read func(context.Context) (int, error)) {
		if read == nil {
			return
		}
		m.Registry.MustRegister(&queueGauge{desc: prometheus.NewDesc(name, help, nil, nil), read: read})
	}
	gauge("mnemo_review_queue_proposals", "Proposed rules waiting for review, over all projects.", q.Proposals)
	gauge("mnemo_eval_runs_queued", "Eval runs waiting to run.", q.EvalRuns)
	if q.Leading != nil {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mnemo_leader", Help: "1 when this instance leads (runs the heartbeat and the eval runner), else 0."},
			func() float64 {
				if q.Leading() {
					return 1
				}
				return 0
			}))
	}
	for _, queue := range slices.Sorted(maps.Keys(q.StoreWaiting)) {
		read := q.StoreWaiting[queue]
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mnemo_store_queue_waiting", Help: "Store operations waiting for a queue now.", ConstLabels: prometheus.Labels{"queue": queue}},
			func() float64 { return float64(read()) }))
	}
	return m
}

// ObserveQueueTurn records one turn of a store queue: how long op waited
// for it and how long it held it. op is a store method's name, a bounded set.
func (m *Metrics) ObserveQueueTurn(queue, op string, waited, held time.Duration) {
	m.queueWait.WithLabelValues(queue, op).Observe(waited.Seconds())
	m.queueHold.WithLabelValues(queue, op).Observe(held.Seconds())
}

// Handler serves the metrics in Prometheus' exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

// ObserveRequest records one HTTP request; route is the route template
// ("/rules/:id"), never the concrete path, so the label set stays bounded.
func (m *Metrics) ObserveRequest(method, route string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, Method(method), strconv.Itoa(status)).Observe(d.Seconds())
}

// Method is an HTTP method as a label: one of the standard methods, or
// "other" for any name a client makes up (labels stay bounded).
func Method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "other"
}

// ObserveRecall records one recall and whether it recalled anything.
func (m *Metrics) ObserveRecall(items int, err error, d time.Duration) {
	outcome := "hit"
	switch {
	case err != nil:
		outcome = "error"
	case items == 0:
		outcome = "empty"
	}
	m.recalls.WithLabelValues(outcome).Observe(d.Seconds())
}

// ObserveBeat records one finished beat.
func (m *Metrics) ObserveBeat(failed bool, d time.Duration) {
	outcome := "ok"
	if failed {
		outcome = "error"
	}
	m.beats.WithLabelValues(outcome).Observe(d.Seconds())
}

// Ingested counts events stored through path.
func (m *Metrics) Ingested(path string, n int) {
	m.ingested.WithLabelValues(path).Add(float64(n))
}

// Forgot counts one forget of kind.
func (m *Metrics) Forgot(kind string) { m.forgets.WithLabelValues(kind).Inc() }

// EvalRunFinished counts one finished eval run.
func (m *Metrics) EvalRunFinished(status string) { m.evalRuns.WithLabelValues(status).Inc() }

// queueGauge reads a queue's depth at scrape time, with a bound on the
// time the read may take.
type queueGauge struct {
	desc *prometheus.Desc
	read func(context.Context) (int, error)
}

func (g *queueGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *queueGauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := g.read(ctx)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(n))
}
