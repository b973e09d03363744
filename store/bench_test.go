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
			cpuStart(b)
			for i := 0; i < n; i += batch {
				if _, err := s.IngestEvents(ctx, pid, events[i:i+batch]); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportIngest(b, n)
	})
	// The event indexes before migration 0016 (a trigram index and a CJK
	// pair index), restored over the current schema: old and new ingest
	// measured in the same run.
	b.Run("before0016", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s, pid := open(b)
			if _, err := s.DB().ExecContext(ctx, indexesBefore0016); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cpuStart(b)
			for i := 0; i < n; i += batch {
				if _, err := s.IngestEvents(ctx, pid, events[i:i+batch]); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportIngest(b, n)
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s, pid := open(b)
			b.StartTimer()
			cpuStart(b)
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
		reportIngest(b, n)
	})
}

const indexesBefore0016 = `
DROP TRIGGER events_words_insert;
DROP TRIGGER events_words_delete;
DROP TRIGGER events_words_update;
DROP TABLE events_words;
-- Ingest's batch index statement finds nothing to index here.
DROP VIEW events_terms;
CREATE VIEW events_terms (seq, scope, terms) AS SELECT 0, '', '' WHERE 0;
CREATE TABLE events_words (scope, terms);
CREATE VIRTUAL TABLE events_fts USING fts5(text, content = 'events', content_rowid = 'seq', tokenize = 'trigram');
INSERT INTO events_fts (events_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
	INSERT INTO events_fts (rowid, text) VALUES (new.seq, new.text);
END;
CREATE VIRTUAL TABLE events_cjk USING fts5(grams, content = '', contentless_delete = 1, tokenize = 'unicode61');
INSERT INTO events_cjk (events_cjk, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER events_cjk_insert AFTER INSERT ON events WHEN mnemo_cjk_bigrams(new.text) <> '' BEGIN
	INSERT INTO events_cjk (rowid, grams) VALUES (new.seq, mnemo_cjk_bigrams(new.text));
END;`

// The machine running the benchmarks may be shared: besides events per
// second of wall time, each sub-benchmark reports the CPU time of the
// process per event (processCPU), which other processes barely change.
var cpuAtStart time.Duration

func cpuStart(*testing.B) { cpuAtStart = processCPU() }

func reportIngest(b *testing.B, n int) {
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64((processCPU()-cpuAtStart).Microseconds())/float64(n*b.N), "cpu-µs/event")
}
