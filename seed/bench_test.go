package seed_test

import (
	"context"
	"path/filepath"
	"syscall"
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
		st, hb := ingested(b, events)
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

// BenchmarkConsolidateRank measures what keeping the review rank costs a
// beat: the beat of BenchmarkConsolidate on the store as shipped, with the
// per-row candidate and evidence triggers of migration 0102 put back, and
// with no rank trigger at all, the three run in turn (the order rotating) in every
// iteration so that the machine's load moves them alike. It reports each
// one's time, wall clock and CPU, as a ratio to the beat without rank
// triggers.
// Run: go test -run '^$' -bench ConsolidateRank -benchtime 3x ./seed/
func BenchmarkConsolidateRank(b *testing.B) {
	const n = 100_000
	events := seed.SyntheticEvents(n, 3)
	ctx := context.Background()
	variants := []struct {
		name  string
		setup []string
	}{
		{"none", rankTriggers},
		{"0102", triggers0102},
		{"shipped", nil},
	}
	took, cpu := make([]time.Duration, len(variants)), make([]time.Duration, len(variants))
	for i := 0; b.Loop(); i++ {
		for k := range variants {
			st, hb := ingested(b, events, variants[(i+k)%len(variants)].setup...)
			start, cpu0 := time.Now(), cpuTime()
			if _, err := hb.Beat(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
			took[(i+k)%len(variants)] += time.Since(start)
			cpu[(i+k)%len(variants)] += cpuTime() - cpu0
			st.Close()
		}
	}
	for k, v := range variants {
		b.ReportMetric(took[k].Seconds()/float64(b.N), v.name+"-s/beat")
		b.ReportMetric(float64(took[k])/float64(took[0]), v.name+"/none")
		b.ReportMetric(float64(cpu[k])/float64(cpu[0]), v.name+"/none-cpu")
	}
}

// cpuTime is the CPU time the process has used (user and system): unlike
// the wall clock, other work on the machine moves it little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// triggers0102 are the candidate- and evidence-insert triggers migration
// 0104 drops.
var triggers0102 = []string{`CREATE TRIGGER candidates_rank_insert AFTER INSERT ON candidates WHEN NEW.rule_id IS NOT NULL BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = NEW.rule_id AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = NEW.rule_id AND status = 'proposed';
END`, `CREATE TRIGGER evidence_rank_insert AFTER INSERT ON evidence BEGIN
	UPDATE rules SET rank_epoch = rank_epoch + 1 WHERE id = (SELECT rule_id FROM candidates WHERE id = NEW.candidate_id) AND status = 'proposed';
	UPDATE rules SET rank_score = NULL WHERE rank_score IS NOT NULL AND id = (SELECT rule_id FROM candidates WHERE id = NEW.candidate_id) AND status = 'proposed';
END`}

// rankTriggers drops every trigger of the stored rank.
var rankTriggers = []string{
	`DROP TRIGGER rules_rank_own`, `DROP TRIGGER candidates_rank_move`, `DROP TRIGGER candidates_rank_delete`,
	`DROP TRIGGER evidence_rank_delete`, `DROP TRIGGER events_rank_update`,
}

// ingested opens a store in b's temporary directory, runs the setup
// statements on it, ingests events into one project and returns the store
// and a heartbeat over it with the offline consolidator.
func ingested(b *testing.B, events []*governance.Event, setup ...string) (*store.Store, *consolidate.Heartbeat) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "db"))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range setup {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
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
	return st, &consolidate.Heartbeat{Store: st, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
}
