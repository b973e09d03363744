package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

var (
	zhWords = strings.Fields("故宫 环球影城 午睡 王府井 兵马俑 回民街 路线检查 西湖 灵隐寺 报销 发票 住宿 高铁 亲子 酒店 早餐 地铁 门票 排队 天气")
	enWords = strings.Fields("linter commit test failure fix deploy review branch merge coverage build cache retry timeout schema index query budget travel invoice")
)

// SyntheticEvents makes n events of mixed Chinese and English text in
// sessions of ten, deterministic for a seed.
func SyntheticEvents(n int, seed uint64) []*governance.Event {
	r := rand.New(rand.NewPCG(seed, 7))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]*governance.Event, n)
	for i := range out {
		var b strings.Builder
		words := zhWords
		sep := ""
		if r.IntN(2) == 0 {
			words, sep = enWords, " "
		}
		for j := 0; j < 12+r.IntN(20); j++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(sep)
		}
		role := []governance.Role{governance.RoleUser, governance.RoleAssistant, governance.RoleTool}[i%3]
		e := &governance.Event{
			ID: fmt.Sprintf("ev-%d-%d", seed, i), SessionID: fmt.Sprintf("sess-%d-%d", seed, i/10), SubjectID: fmt.Sprintf("user-%d", i/1000),
			Turn: i%10 + 1, Role: role, Text: b.String(), OccurredAt: base.Add(time.Duration(i) * time.Second),
		}
		if role == governance.RoleTool {
			e.Tool, e.Status = "route_checker", []string{governance.StatusPassed, governance.StatusFailed}[r.IntN(2)]
		}
		e.Normalize()
		out[i] = e
	}
	return out
}

// BenchmarkIngest compares the store's import path with a bare insert of the
// same rows into the same table (same FTS index and triggers), 100k events
// per iteration in batches of 1,000. Compare the two events/s figures.
func BenchmarkIngest(b *testing.B) {
	const n, batch = 100_000, 1000
	events := SyntheticEvents(n, 1)
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
