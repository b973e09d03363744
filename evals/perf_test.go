package evals_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/internal/testrace"
	"github.com/mnemo-console/mnemo/seed"
)

// perfSuite is the built-in travel fixtures (travel and expense projects,
// the demo's conversations) with n offline cases: recall, isolation and
// two-step sequences in turn.
func perfSuite(tb testing.TB, n int) *evals.Suite {
	tb.Helper()
	body := string(seed.BuiltinSuites()["travel-recall.yaml"])
	body = body[:strings.Index(body, "\ncases:\n")]
	body = strings.Replace(body, "name: travel-recall", "name: perf", 1)
	var b strings.Builder
	b.WriteString(body + "\ncases:\n")
	const task = "带五岁的女儿去上海玩两天，她一直想去迪士尼。最终路线必须可执行。"
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "  - {id: recall-%d, kind: recall, task: %s, include: [{regex: \"14:00|午睡\"}], exclude: [报销]}\n", i, task)
		case 1:
			fmt.Fprintf(&b, "  - {id: isolation-%d, kind: isolation, task: %s 报销要发票吗？, foreign: {project: expense}}\n", i, task)
		default:
			fmt.Fprintf(&b, `  - id: sequence-%d
    kind: sequence
    steps:
      - turns: [{text: 孩子每天下午两点到四点要午睡，以后不管去哪儿玩，这个时间段都给她空出来。}]
        expect: {writes: [{regex: "14:00|午睡"}]}
      - turns: [{text: 这次不用留午睡时间了，她在车上睡。}]
        expect: {no_writes: true, unchanged: [{regex: "14:00|午睡"}]}
`, i)
		}
	}
	return MustParseSuite(tb, b.String())
}

// TestPerformance200 runs a 200-case offline suite on the real store with
// the heuristic heartbeat and recall, directly and through the runner, and
// logs how long each took. Speed is judged by BenchmarkSuite200, never by a
// timed assertion: the machines are shared and noisy.
func TestPerformance200(t *testing.T) {
	if testing.Short() {
		t.Skip("200 cases are run without -short")
	}
	testrace.Skip(t, "200 cases through the real store take minutes under -race")
	ctx := context.Background()
	st := MustOpenStore(t)
	s := perfSuite(t, 200)
	start := time.Now()
	rep, err := evals.RunSuite(ctx, evals.Deps{Memory: realServices(t, st)}, s)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() || rep.Metrics.Passed != 200 {
		t.Fatalf("report:\n%s", rep)
	}
	t.Logf("RunSuite: 200 offline cases (%v) in %s", rep.Metrics.Kinds, took.Round(time.Millisecond))

	// The same suite as a background run: queued, executed by the runner,
	// every result stored as it finishes.
	body, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	run := MustEnqueue(t, st, string(body))
	r := evals.NewRunner(st, evals.Deps{Memory: realServices(t, st)}, nil)
	r.Interval = 10 * time.Millisecond
	start = time.Now()
	startRunner(t, r)
	got := waitRun(t, st, run.ID, "done", func(r *evals.RunRow) bool { return r.Status == evals.RunDone })
	took = time.Since(start)
	if got.Passed != 200 {
		t.Fatalf("background run = %+v", got)
	}
	t.Logf("Runner: 200 offline cases queued → done in %s", took.Round(time.Millisecond))
}

// BenchmarkSuite200 measures the same suite run (go test -bench Suite200 ./evals).
func BenchmarkSuite200(b *testing.B) {
	ctx := context.Background()
	s := perfSuite(b, 200)
	for b.Loop() {
		st := MustOpenStore(b)
		if _, err := evals.RunSuite(ctx, evals.Deps{Memory: realServices(b, st)}, s); err != nil {
			b.Fatal(err)
		}
	}
}
