package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store/internal/pgtest"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// BenchmarkForgetVacuum measures what a forget's table rewrite costs, on
// the events table before migration 0018 (one table: "plain") and after it
// (partitioned by project: "partitioned"), in one run. Each database holds
// MNEMO_BENCH_EVENTS synthetic events (default 20,000) in eight projects
// of equal size; each iteration forgets one synthetic subject of the
// first project (1,000 events) while a client of another project (in
// another partition) reads one of its sessions and ingests one event, in
// two loops. Reported: the forget's latency (the rewrite included) and the
// longest read and write of the other project during it — how long the
// rewrite blocked a project the forget did not touch.
func BenchmarkForgetVacuum(b *testing.B) {
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	const projects = 8
	per := n / projects
	ctx := context.Background()
	for _, schema := range []struct{ name, stop string }{{"plain", "0018"}, {"partitioned", ""}} {
		b.Run(schema.name, func(b *testing.B) {
			s, err := postgres.OpenBefore(ctx, pgtest.NewEmptyDatabase(b), schema.stop)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var ps []*governance.Project
			for i := range projects {
				p := storetest.MustCreateProject(b, s, fmt.Sprintf("bench-%d", i))
				for chunk := range slices.Chunk(seed.SyntheticEvents(per, uint64(i)), 2000) {
					if _, err := s.IngestEvents(ctx, p.ID, chunk); err != nil {
						b.Fatal(err)
					}
				}
				ps = append(ps, p)
			}
			if _, err := s.Pool().Exec(ctx, `ANALYZE events`); err != nil {
				b.Fatal(err)
			}
			partition := func(p *governance.Project) (name string) {
				if err := s.Pool().QueryRow(ctx, `SELECT tableoid::regclass::text FROM events WHERE project_id = $1 LIMIT 1`, p.ID).Scan(&name); err != nil {
					b.Fatal(err)
				}
				return name
			}
			forgotten, other := ps[0], ps[1]
			for _, p := range ps[1:] {
				if partition(p) != partition(forgotten) {
					other = p
					break
				}
			}
			var (
				forget, readMax, writeMax time.Duration
				reads, writes             int
				rows                      int64
			)
			if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM `+partition(forgotten)).Scan(&rows); err != nil {
				b.Fatal(err)
			}
			subject := 0
			for b.Loop() {
				done := make(chan struct{})
				var wg sync.WaitGroup
				// loop runs op until the forget returns and keeps its longest run.
				loop := func(longest *time.Duration, count *int, op func(k int) error) {
					defer wg.Done()
					for k := 0; ; k++ {
						select {
						case <-done:
							return
						default:
						}
						t0 := time.Now()
						if err := op(k); err != nil {
							b.Error(err)
							return
						}
						*longest, *count = max(*longest, time.Since(t0)), *count+1
					}
				}
				session := fmt.Sprintf("syn-%d-%d", other.ID-ps[0].ID, 7)
				wg.Add(2)
				go loop(&readMax, &reads, func(int) error {
					_, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &other.ID, SessionID: &session, Limit: 50})
					return err
				})
				go loop(&writeMax, &writes, func(k int) error {
					e := &governance.Event{ID: fmt.Sprintf("w-%d-%d", subject, k), SessionID: "writer", Turn: k, Role: governance.RoleUser,
						Text: "a line written during the forget", OccurredAt: time.Now()}
					_, err := s.IngestEvents(ctx, other.ID, []*governance.Event{e})
					return err
				})
				start := time.Now()
				r, err := s.ForgetSubject(ctx, "bench", forgotten.ID, fmt.Sprintf("user-%d", subject))
				forget += time.Since(start)
				close(done)
				wg.Wait()
				if err != nil {
					b.Fatal(err)
				}
				if r.Events == 0 {
					b.Fatalf("user-%d had no events", subject)
				}
				subject++
			}
			b.ReportMetric(float64(forget.Milliseconds())/float64(b.N), "forget-ms")
			b.ReportMetric(float64(readMax.Milliseconds()), "other-read-max-ms")
			b.ReportMetric(float64(writeMax.Milliseconds()), "other-write-max-ms")
			b.ReportMetric(float64(reads+writes)/float64(b.N), "other-ops/forget")
			b.ReportMetric(float64(rows), "rewritten-rows")
			b.ReportMetric(0, "ns/op")
		})
	}
}
