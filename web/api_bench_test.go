package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/web"
)

// BenchmarkAPIEventsIngest compares sustained ingest through POST
// /api/v1/events over loopback (JSON arrays of 500 events, one keep-alive
// connection, bodies encoded beforehand) with the store's own import path
// (store.IngestEvents on the same batches), each on a fresh database per
// iteration. Compare the two events/s figures.
//
//	go test ./web -run '^$' -bench APIEventsIngest -benchtime 5x
func BenchmarkAPIEventsIngest(b *testing.B) {
	const n, batch = 20_000, 500
	events := seed.SyntheticEvents(n, 3)
	bodies := make([][]byte, 0, n/batch)
	for i := 0; i < n; i += batch {
		body, err := json.Marshal(events[i : i+batch])
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	ctx := context.Background()
	fresh := func(b *testing.B) (*store.Store, *governance.Project) {
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), "db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		p := &governance.Project{Slug: "bench", Name: "bench"}
		if err := s.CreateProject(ctx, p); err != nil {
			b.Fatal(err)
		}
		return s, p
	}

	b.Run("http", func(b *testing.B) {
		client := &http.Client{}
		for b.Loop() {
			b.StopTimer()
			s, p := fresh(b)
			token := mustAPIToken(b, s, p.ID, governance.ScopeIngest)
			srv, err := web.NewServer(web.Config{}, app.New(s), slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv.Handler())
			b.StartTimer()
			for _, body := range bodies {
				req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/events", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
			b.StopTimer()
			ts.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("store", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s, p := fresh(b)
			// IngestEvents normalises in place; give it copies like the API decodes.
			batches := make([][]*governance.Event, 0, len(bodies))
			for _, body := range bodies {
				var evs []*governance.Event
				if err := json.Unmarshal(body, &evs); err != nil {
					b.Fatal(err)
				}
				batches = append(batches, evs)
			}
			b.StartTimer()
			for _, evs := range batches {
				if _, err := s.IngestEvents(ctx, p.ID, evs); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
