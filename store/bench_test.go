package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
)

// BenchmarkIngest compares the store's import path with a bare insert of the
// same rows into the same table (same FTS index and triggers), 100k events
// per iteration in batches of 1,000. Compare the two events/s figures.
func BenchmarkIngest(b *testing.B) {
	const n, batch = 100_000, 1000
	events := seed.SyntheticEvents(n, 1)
	ctx := context.Background()
	open := func(b *testing.B) (*store.Store, int64) {
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), "db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		p := &governance.Project{Slug: "bench", Name: "bench"}
		if err := s.CreateProject(ctx, p); err != nil {
			b.Fatal(err)
		}
		return s, p.ID
	}
	b.Run("store", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s, pid := open(b)
			b.StartTimer()
			for i := 0; i < n; i += batch {
				if _, err := s.IngestEvents(ctx, pid, events[i:i+batch]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s, pid := open(b)
			b.StartTimer()
			for i := 0; i < n; i += batch {
				tx, err := s.DB().BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (id, project_id, session_id, subject_id, turn, kind, role, text, tool, status, source, occurred_at, ingested_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range events[i : i+batch] {
					if _, err := stmt.ExecContext(ctx, e.ID, pid, e.SessionID, e.SubjectID, e.Turn, e.Kind, e.Role, e.Text, e.Tool, e.Status, e.Source,
						e.OccurredAt.Format(time.RFC3339), "2026-01-01T00:00:00Z"); err != nil {
						b.Fatal(err)
					}
				}
				stmt.Close()
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
