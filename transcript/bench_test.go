package transcript_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/transcript"
)

// claudeLines builds n lines of a Claude Code transcript: user text,
// assistant text with a tool call, and the tool's result, in turn.
func claudeLines(n int) []byte {
	var b bytes.Buffer
	at := time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ts := at.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s%d","version":"2.0.14","type":"user","message":{"role":"user","content":"Please look at failing test number %d in the billing package."},"uuid":"u-%d","timestamp":"%s"}`+"\n", i/300, i, i, ts)
		case 1:
			fmt.Fprintf(&b, `{"parentUuid":"u-%d","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s%d","version":"2.0.14","type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Running the tests."},{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./billing/..."}}]},"uuid":"u-%d","timestamp":"%s"}`+"\n", i-1, i/300, i, i, i, ts)
		default:
			fmt.Fprintf(&b, `{"parentUuid":"u-%d","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s%d","version":"2.0.14","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"--- FAIL: TestDue (0.01s)","is_error":true}]},"uuid":"u-%d","timestamp":"%s"}`+"\n", i-1, i/300, i-1, i, ts)
		}
	}
	return b.Bytes()
}

func benchStore(b *testing.B) (*store.Store, int64) {
	ctx := context.Background()
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

// BenchmarkImportClaudeCode imports b.N×3000 transcript lines; compare its
// lines/s with BenchmarkIngestBaseline's events/s in the same run.
func BenchmarkImportClaudeCode(b *testing.B) {
	data := claudeLines(3000)
	s, pid := benchStore(b)
	b.ResetTimer()
	for i := range b.N {
		// A fresh copy per round with other ids, so nothing is skipped.
		d := bytes.ReplaceAll(data, []byte(`"u-`), []byte(fmt.Sprintf(`"r%d-`, i)))
		d = bytes.ReplaceAll(d, []byte(`msg_`), []byte(fmt.Sprintf(`m%d_`, i)))
		d = bytes.ReplaceAll(d, []byte(`toolu_`), []byte(fmt.Sprintf(`t%d_`, i)))
		res, err := transcript.Import(context.Background(), s, "", pid, bytes.NewReader(d), transcript.Options{Format: transcript.FormatClaudeCode})
		if err != nil || res.Inserted != 3000 {
			b.Fatalf("import: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.N*3000)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkIngestBaseline stores the same number of events through the
// store's own batch ingest (batches of 500).
func BenchmarkIngestBaseline(b *testing.B) {
	s, pid := benchStore(b)
	at := time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for i := range b.N {
		for batch := range 6 {
			events := make([]*governance.Event, 0, 500)
			for j := range 500 {
				k := batch*500 + j
				events = append(events, &governance.Event{ID: fmt.Sprintf("b%d-%d", i, k), SessionID: fmt.Sprintf("s%d", k/300), Turn: k + 1,
					Role: governance.RoleUser, Text: "Please look at failing test number in the billing package.", OccurredAt: at})
			}
			if _, err := s.IngestEvents(context.Background(), pid, events); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*3000)/b.Elapsed().Seconds(), "events/s")
}
