package postgres_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// BenchmarkForgetVacuum measures what a forget's table rewrite costs: a
// subject's forget (one of the synthetic subjects, 1,000 events) on a
// table of MNEMO_BENCH_EVENTS synthetic events (default 20,000), reported
// as the whole forget and, of it, the time the events table was rewritten
// (VACUUM FULL, during which the table's readers and writers wait).
func BenchmarkForgetVacuum(b *testing.B) {
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	events := seed.SyntheticEvents(n, 1)
	var forget, vacuum time.Duration
	for b.Loop() {
		b.StopTimer()
		s := MustOpenStore(b)
		p := storetest.MustCreateProject(b, s, "bench")
		for chunk := range slices.Chunk(events, 500) {
			if _, err := s.IngestEvents(ctx, p.ID, chunk); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		if _, err := s.ForgetSubject(ctx, "bench", p.ID, "user-0"); err != nil {
			b.Fatal(err)
		}
		forget += time.Since(start)
		start = time.Now()
		if _, err := s.Pool().Exec(ctx, `VACUUM (FULL) events`); err != nil {
			b.Fatal(err)
		}
		vacuum += time.Since(start)
	}
	b.ReportMetric(float64(forget.Milliseconds())/float64(b.N), "forget-ms")
	b.ReportMetric(float64(vacuum.Milliseconds())/float64(b.N), "vacuum-events-ms")
	b.ReportMetric(float64(n), "events")
	b.ReportMetric(0, "ns/op")
}
