package postgres_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// BenchmarkIngest ingests the same 20,000 synthetic events in batches of
// 500 into SQLite and into PostgreSQL (the throwaway test server: fsync
// off, so an upper bound for PostgreSQL), from one writer and, on
// PostgreSQL, from writers into separate projects (one project's batches
// queue on its ingest lock). Compare the events/s of the sub-benchmarks of
// one run.
func BenchmarkIngest(b *testing.B) {
	const n, batch = 20_000, 500
	events := seed.SyntheticEvents(n, 1)
	ctx := context.Background()
	run := func(b *testing.B, open func(b *testing.B) storetest.Store, writers int) {
		for b.Loop() {
			b.StopTimer()
			s := open(b)
			projects := make([]int64, writers)
			for w := range projects {
				projects[w] = storetest.MustCreateProject(b, s, fmt.Sprintf("bench-%d", w)).ID
			}
			b.StartTimer()
			var wg sync.WaitGroup
			for w, pid := range projects {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w * batch; i < n; i += writers * batch {
						// Fresh copies: the store sets Seq on what it writes.
						chunk := make([]*governance.Event, 0, batch)
						for _, e := range events[i:min(i+batch, n)] {
							c := *e
							chunk = append(chunk, &c)
						}
						if _, err := s.IngestEvents(ctx, pid, chunk); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(0, "ns/op")
	}
	sqlite := func(b *testing.B) storetest.Store {
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), "db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	postgres := func(b *testing.B) storetest.Store { return MustOpenStore(b) }
	b.Run("sqlite", func(b *testing.B) { run(b, sqlite, 1) })
	b.Run("sqlite-4writers", func(b *testing.B) { run(b, sqlite, 4) })
	b.Run("postgres", func(b *testing.B) { run(b, postgres, 1) })
	b.Run("postgres-4writers", func(b *testing.B) { run(b, postgres, 4) })
}

// BenchmarkSearch runs the same relevance searches over the same 50,000
// synthetic events on SQLite and PostgreSQL (one project), one op being
// one search of a rotating list of queries. Compare ns/op of one run.
func BenchmarkSearch(b *testing.B) {
	const n = 50_000
	events := seed.SyntheticEvents(n, 2)
	queries := []string{"linter commit", "故宫 酒店", "环球影城", "deploy timeout retry", `"run the linter"`, "午睡", "invoice"}
	ctx := context.Background()
	load := func(b *testing.B, s storetest.Store) int64 {
		p := storetest.MustCreateProject(b, s, "bench")
		for i := 0; i < n; i += 1000 {
			if _, err := s.IngestEvents(ctx, p.ID, events[i:min(i+1000, n)]); err != nil {
				b.Fatal(err)
			}
		}
		return p.ID
	}
	run := func(b *testing.B, s storetest.Store) {
		pid := load(b, s)
		i := 0
		for b.Loop() {
			q := queries[i%len(queries)]
			i++
			if _, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &pid, Query: q, Limit: 20}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("sqlite", func(b *testing.B) {
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), "db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		run(b, s)
	})
	pg := func(b *testing.B, windows bool) {
		s := MustOpenStore(b)
		if !windows {
			postgres.DisableSearchWindows(s)
		}
		pid := load(b, s)
		// Planner statistics, as autovacuum would have gathered them.
		if _, err := s.Pool().Exec(ctx, `ANALYZE events`); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			q := queries[i%len(queries)]
			i++
			if _, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &pid, Query: q, Limit: 20}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// The windows kept by each instance (search_window.go) against every
	// search ranked again, same run.
	b.Run("postgres", func(b *testing.B) { pg(b, true) })
	b.Run("postgres-nowindows", func(b *testing.B) { pg(b, false) })
}
