//go:build unix

package app_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// benchTopics make the benchmark's rules and tasks distinct and
// bilingual; each rule is about one topic, each case asks for one.
var benchTopics = []string{
	"午睡", "路线检查", "高铁", "酒店早餐", "迪士尼", "博物馆预约", "亲子房", "雨天备选", "门票", "地铁",
	"linter", "regression test", "pull request", "dependency pin", "deploy retry", "changelog", "code review", "build cache", "flaky test", "schema index",
}

// approvalBench is a project with 50 active rules, a proposal and a
// suite of 20 recall cases reading its live memory.
func approvalBench(b *testing.B) (*Fixture, *evals.Suite, int64) {
	f := NewFixture(b)
	ctx := context.Background()
	var ids []int64
	for i := range 50 {
		topic := benchTopics[i%len(benchTopics)]
		ids = append(ids, f.Rule(b, f.Travel, "", fmt.Sprintf("关于%s的规则 %d：every trip minds the %s (rule %d)", topic, i, topic, i)))
	}
	now := time.Now().UTC().Format(time.RFC3339)
	res, err := f.Store.DB().ExecContext(ctx, `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, supersedes, created_at, updated_at)
		VALUES (?, '', 'fact', '关于午睡的新规则：naps move to 13:00', 'explicit_user_instruction', 'proposed', 0.8, ?, ?, ?)`,
		f.Travel.ID, ids[0], now, now)
	if err != nil {
		b.Fatal(err)
	}
	proposal, _ := res.LastInsertId()
	var body strings.Builder
	body.WriteString("name: bench-live\nproject: travel-agent\nfixtures:\n  use_live_project: true\ncases:\n")
	for i := range 20 {
		fmt.Fprintf(&body, "  - {id: c%d, kind: recall, task: \"plan a trip, mind the %s and %s\", include: [{rule: %d}], exclude: [{rule: %d}]}\n",
			i, benchTopics[i], benchTopics[i], ids[i], ids[(i+25)%50])
	}
	suite, err := evals.ParseSuite("bench-live.yaml", []byte(body.String()))
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Store.UpsertEvalSuite(ctx, &evals.SuiteRow{Name: suite.Name, Origin: evals.OriginUploaded, Body: body.String()}, "bench"); err != nil {
		b.Fatal(err)
	}
	return f, suite, proposal
}

func quantile(d []time.Duration, q float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
}

// BenchmarkApprovalPanel: "What approving changes" for a proposal of a
// project with 50 rules and 20 recall cases (computed afresh, the cache
// dropped each time), against one plain run of the same suite in the same
// run; the target is a p95 at most 2 s. Reports p50/p95 of both and their
// ratio (panel/suite, medians).
func BenchmarkApprovalPanel(b *testing.B) {
	f, suite, proposal := approvalBench(b)
	ctx := context.Background()
	rita := f.Actors[TravelReviewer]
	mem := &evals.Services{Store: f.Store}
	var panel, plain []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := evals.RunSuite(ctx, evals.Deps{Memory: mem}, suite); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, time.Since(start))
		f.App.Effects.Forget(f.Travel.ID)
		start = time.Now()
		e, err := f.App.Effects.Of(ctx, rita, app.EffectTarget{RuleID: proposal})
		if err != nil {
			b.Fatal(err)
		}
		panel = append(panel, time.Since(start))
		if e.Incomplete || e.Unchanged+e.Fixed+e.Regressed != 20 {
			b.Fatalf("panel ran %d cases (incomplete %v)", e.Unchanged+e.Fixed+e.Regressed, e.Incomplete)
		}
	}
	b.ReportMetric(quantile(panel, 0.5), "panel-p50-ms")
	b.ReportMetric(quantile(panel, 0.95), "panel-p95-ms")
	b.ReportMetric(quantile(plain, 0.5), "suite-p50-ms")
	b.ReportMetric(quantile(plain, 0.95), "suite-p95-ms")
	b.ReportMetric(quantile(panel, 0.5)/quantile(plain, 0.5), "panel/suite")
}

// BenchmarkOutcomeReports: outcome reports through the use case on SQLite
// (the rate limit off), serially and from 4 agents at once, in reports a
// second, and the process's CPU time per report; and recall's p95 alone
// against recall's p95 while reports arrive at 1,000 a second (the target:
// reports/s at least 1,000, recall p95 under that load at most 10 %
// slower), and under a stand-in load that only spins for the same CPU
// time. The load is 10 agents at once every 10 ms.
func BenchmarkOutcomeReports(b *testing.B) {
	f := NewFixture(b)
	ctx := context.Background()
	f.App.SetOutcomeLimit(app.OutcomeLimit{})
	for i := range 30 {
		f.Rule(b, f.Travel, "", fmt.Sprintf("关于%s的规则 %d：mind the %s", benchTopics[i%len(benchTopics)], i, benchTopics[i%len(benchTopics)]))
	}
	tok := f.Actors[TokenRecall]
	recall := func(i int) *governance.RecallPackage {
		pkg, err := f.App.Recalls.Recall(ctx, tok, governance.RecallRequest{ProjectID: f.Travel.ID,
			Task: "plan a trip, mind the " + benchTopics[i%len(benchTopics)]})
		if err != nil {
			b.Fatal(err)
		}
		return pkg
	}
	// Every report needs an item of its own: one trace per report.
	traces := make([]*governance.RecallPackage, 0, 4096)
	next := 0
	var mu sync.Mutex
	take := func() (*governance.RecallPackage, int) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(traces) {
			return nil, 0
		}
		next++
		return traces[next-1], next - 1
	}
	report := func(pkg *governance.RecallPackage, i int) {
		in := governance.OutcomeInput{Verdict: governance.OutcomeVerdicts[i%4], Note: "bench"}
		if len(pkg.Items) > 0 {
			in.ItemID = pkg.Items[0].ID
		}
		if _, err := f.App.Outcomes.Report(ctx, tok, pkg.Trace.ID, in); err != nil {
			b.Fatal(err)
		}
	}
	fill := func(n int) {
		for i := range n {
			traces = append(traces, recall(i))
		}
	}
	fill(4000)
	b.ResetTimer()

	measureRecall := func(n int) []time.Duration {
		var d []time.Duration
		for i := range n {
			start := time.Now()
			recall(i)
			d = append(d, time.Since(start))
		}
		return d
	}
	var serial, parallel, alone, loaded, spun, cpu []float64
	med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	for b.Loop() {
		// Serial and parallel throughput, 500 reports each; the CPU time
		// of the serial ones (the whole process's).
		cpu0 := cpuTime()
		start := time.Now()
		for range 500 {
			pkg, i := take()
			if pkg == nil {
				b.Fatal("out of traces")
			}
			report(pkg, i)
		}
		serial = append(serial, 500/time.Since(start).Seconds())
		cpu = append(cpu, float64((cpuTime()-cpu0).Microseconds())/500)
		start = time.Now()
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 125 {
					pkg, i := take()
					if pkg == nil {
						return
					}
					report(pkg, i)
				}
			})
		}
		wg.Wait()
		parallel = append(parallel, 500/time.Since(start).Seconds())
		// Recall alone, under 1,000 reports a second, and under a stand-in
		// load of the same CPU time without any write (spinning for the
		// serial reports' CPU time per report): on a shared machine the
		// scheduler alone slows recall's tail, which the stand-in shows.
		alone = append(alone, quantile(measureRecall(200), 0.95))
		spin := time.Duration(med(cpu) * float64(time.Microsecond))
		for _, standIn := range []bool{false, true} {
			stop := make(chan struct{})
			var load sync.WaitGroup
			load.Go(func() {
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						// Ten agents at once, as many agents report.
						var batch sync.WaitGroup
						for range 10 {
							if standIn {
								batch.Go(func() {
									for start := time.Now(); time.Since(start) < spin; {
									}
								})
							} else if pkg, i := take(); pkg != nil {
								batch.Go(func() { report(pkg, i) })
							}
						}
						batch.Wait()
					}
				}
			})
			p95 := quantile(measureRecall(200), 0.95)
			close(stop)
			load.Wait()
			if standIn {
				spun = append(spun, p95)
			} else {
				loaded = append(loaded, p95)
			}
		}
		b.StopTimer()
		mu.Lock()
		left := len(traces) - next
		mu.Unlock()
		if left < 2000 {
			fill(3000)
		}
		b.StartTimer()
	}
	b.ReportMetric(med(serial), "reports/s")
	b.ReportMetric(med(cpu), "cpu-µs/report")
	b.ReportMetric(med(parallel), "reports/s-4-agents")
	b.ReportMetric(med(alone), "recall-p95-ms")
	b.ReportMetric(med(loaded), "recall-p95-loaded-ms")
	b.ReportMetric(med(spun), "recall-p95-cpu-stand-in-ms")
	b.ReportMetric(med(loaded)/med(alone), "loaded/alone")
	b.ReportMetric(med(loaded)/med(spun), "loaded/stand-in")
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
