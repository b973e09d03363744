package seed_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
)

// BenchmarkConsolidate measures one heartbeat with the heuristic extractor
// over 100k synthetic events in 10k ended sessions of one project: extract,
// gate, merge, promote and write, checkpoint included. Setup (ingest) is
// not timed. Run: go test -run '^$' -bench Consolidate -benchtime 1x ./seed/
func BenchmarkConsolidate(b *testing.B) {
	const n = 100_000
	events := seed.SyntheticEvents(n, 3)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		st, err := store.Open(ctx, filepath.Join(b.TempDir(), "db"))
		if err != nil {
			b.Fatal(err)
		}
		p := &governance.Project{Slug: "bench", Name: "bench"}
		if err := st.CreateProject(ctx, p); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(events); i += 5000 {
			if _, err := st.IngestEvents(ctx, p.ID, events[i:min(i+5000, len(events))]); err != nil {
				b.Fatal(err)
			}
		}
		hb := &consolidate.Heartbeat{Store: st, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
		b.StartTimer()
		rec, err := hb.Beat(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if rec.Episodes != n/10 {
			b.Fatalf("episodes = %d, want %d", rec.Episodes, n/10)
		}
		b.ReportMetric(float64(rec.Candidates), "candidates")
		b.ReportMetric(float64(rec.Proposals), "proposals")
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}
