package transcript_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/transcript"
)

// claudeSource generates a Claude Code transcript of n lines as it is read
// (user text, assistant text with a tool call, the tool's result, in turn;
// a session every 300 lines), so that a 300k-line transcript costs the
// benchmark no memory of its own. tag makes every id of one copy distinct
// from another's; every user line names a test no other line names, so the
// vocabulary grows with the file as a real archive's identifiers do.
type claudeSource struct {
	n, i int
	tag  string
	at   time.Time
	line []byte
	pos  int
}

func newClaudeSource(n int, tag string) *claudeSource {
	return &claudeSource{n: n, tag: tag, at: time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)}
}

func (s *claudeSource) Read(p []byte) (int, error) {
	for s.pos == len(s.line) {
		if s.i == s.n {
			return 0, io.EOF
		}
		s.line = appendClaudeLine(s.line[:0], s.tag, s.i, s.at)
		s.pos = 0
		s.i++
	}
	n := copy(p, s.line[s.pos:])
	s.pos += n
	return n, nil
}

func appendClaudeLine(b []byte, tag string, i int, at time.Time) []byte {
	ts := at.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
	session, id := tag+"s"+strconv.Itoa(i/300), tag+strconv.Itoa(i)
	switch i % 3 {
	case 0:
		return fmt.Appendf(b, `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"%s","version":"2.0.14","type":"user","message":{"role":"user","content":"Please look at failing test TestDue%d in the billing package."},"uuid":"u-%s","timestamp":"%s"}`+"\n", session, i, id, ts)
	case 1:
		return fmt.Appendf(b, `{"parentUuid":"u-%s%d","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"%s","version":"2.0.14","type":"assistant","message":{"id":"msg_%s","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Running the tests."},{"type":"tool_use","id":"toolu_%s","name":"Bash","input":{"command":"go test ./billing/..."}}]},"uuid":"u-%s","timestamp":"%s"}`+"\n", tag, i-1, session, id, id, id, ts)
	default:
		return fmt.Appendf(b, `{"parentUuid":"u-%s%d","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"%s","version":"2.0.14","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%s%d","type":"tool_result","content":"--- FAIL: TestDue (0.01s)","is_error":true}]},"uuid":"u-%s","timestamp":"%s"}`+"\n", tag, i-1, session, tag, i-1, id, ts)
	}
}

// claudeLines is a whole generated transcript, for tests that want bytes.
func claudeLines(n int) []byte {
	b, _ := io.ReadAll(newClaudeSource(n, ""))
	return b
}

// transcriptFile writes a generated transcript of n lines to a file, for
// an import to read as it would a real one (the generator's own cost stays
// out of the measure).
func transcriptFile(b *testing.B, n int, tag string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), tag+"session.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, newClaudeSource(n, tag)); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
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

// peak samples the live heap and the resident set every 10 ms until stop,
// which returns the highest of each in MB, and the live heap the sampling
// started from. It starts after a GC, so the peak less the start is what
// the measured code holds.
func peak() (stop func() (heapMB, startMB, rssMB float64)) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	start := sample[0].Value.Uint64()
	var heap, rss uint64
	read := func() {
		metrics.Read(sample)
		heap = max(heap, sample[0].Value.Uint64())
		rss = max(rss, residentBytes())
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() (float64, float64, float64) {
		close(done)
		wg.Wait()
		read()
		return float64(heap) / (1 << 20), float64(start) / (1 << 20), float64(rss) / (1 << 20)
	}
}

// residentBytes is the process's resident set (Linux; 0 elsewhere). It
// includes SQLite's page cache, which the Go heap does not.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// benchSizes are the transcript sizes BenchmarkImportVsIngest runs;
// BenchmarkImportClaudeCode also runs 300k lines, so that flat memory
// shows over a thirtyfold growth of the file.
var benchSizes = []int{10_000, 100_000}

// cpuSeconds is the process's user and system CPU time so far. On a shared
// machine the wall clock measures the other processes as much as this one;
// the CPU time a run costs does not, so the benchmarks report both rates.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkImportClaudeCode imports a generated transcript file of 10k,
// 100k and 300k lines per op into a store, in one transaction, and reports
// lines/s, the peak live heap while it ran, the part of it the import held
// (the peak less the live heap before it) and the peak resident set (which
// includes SQLite's page cache and the database file's pages). Flat memory
// means the 300k figures match the 10k ones. BenchmarkImportVsIngest
// compares the speed with the store's own ingest:
//
//	go test -run '^$' -bench ImportClaudeCode -benchtime 1x ./transcript/
func BenchmarkImportClaudeCode(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 300_000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			s, pid := benchStore(b)
			var heapMB, importMB, rssMB, cpu float64
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				path := transcriptFile(b, n, fmt.Sprintf("r%d-", i))
				b.StartTimer()
				stop := peak()
				c0 := cpuSeconds()
				res, err := transcript.ImportFile(context.Background(), s, "", pid, path, transcript.Options{Format: transcript.FormatClaudeCode})
				cpu += cpuSeconds() - c0
				h, h0, r := stop()
				heapMB, importMB, rssMB = max(heapMB, h), max(importMB, h-h0), max(rssMB, r)
				if err != nil || res.Inserted != n {
					b.Fatalf("import: %v, %d inserted of %d", err, res.Inserted, n)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(b.N*n)/cpu, "lines/cpu-s")
			b.ReportMetric(heapMB, "peak-live-heap-MB")
			b.ReportMetric(importMB, "import-heap-MB")
			b.ReportMetric(rssMB, "peak-rss-MB")
		})
	}
}

// BenchmarkParseClaudeCode is the parse alone (no store), for the profile.
func BenchmarkParseClaudeCode(b *testing.B) {
	n := 10_000
	c0 := cpuSeconds()
	for range b.N {
		rep, err := transcript.Parse(context.Background(), newClaudeSource(n, ""), transcript.Options{Format: transcript.FormatClaudeCode},
			func(*governance.Event) error { return nil })
		if err != nil || rep.Events != n {
			b.Fatalf("parse: %v %+v", err, rep)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(b.N*n)/(cpuSeconds()-c0), "lines/cpu-s")
}

// BenchmarkImportVsIngest is the import's speed against the store's own
// ingest, measured in turns within each op so that both see the same load
// (the machine may be shared): the store ingests the very events the import
// of the same transcript writes, parsed beforehand outside the clock, in
// batches of 500 through IngestEvents; the import parses and stores a fresh
// copy of the transcript from a file, in one transaction. The order of the two alternates
// between ops. It reports both rates on the wall clock and per CPU-second
// (this process's user and system time), and the import's share of each:
//
//	go test -run '^$' -bench ImportVsIngest -benchtime 1x ./transcript/
func BenchmarkImportVsIngest(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			s, pid := benchStore(b)
			ctx := context.Background()
			var ingestWall, importWall time.Duration
			var ingestCPU, importCPU float64
			ingest := func(i int) {
				var events []*governance.Event
				if _, err := transcript.ParseFile(ctx, transcriptFile(b, n, fmt.Sprintf("b%d-", i)), transcript.Options{Format: transcript.FormatClaudeCode},
					func(e *governance.Event) error { events = append(events, e); return nil }); err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				start, c0 := time.Now(), cpuSeconds()
				for len(events) > 0 {
					k := min(500, len(events))
					if _, err := s.IngestEvents(ctx, pid, events[:k]); err != nil {
						b.Fatal(err)
					}
					events = events[k:]
				}
				ingestWall += time.Since(start)
				ingestCPU += cpuSeconds() - c0
			}
			imp := func(i int) {
				path := transcriptFile(b, n, fmt.Sprintf("r%d-", i))
				runtime.GC()
				start, c0 := time.Now(), cpuSeconds()
				res, err := transcript.ImportFile(ctx, s, "", pid, path, transcript.Options{Format: transcript.FormatClaudeCode})
				if err != nil || res.Inserted != n {
					b.Fatalf("import: %v, %+v", err, res)
				}
				importWall += time.Since(start)
				importCPU += cpuSeconds() - c0
			}
			for i := range b.N {
				if i%2 == 0 {
					ingest(i)
					imp(i)
				} else {
					imp(i)
					ingest(i)
				}
			}
			lines := float64(b.N * n)
			b.ReportMetric(lines/importWall.Seconds(), "import-lines/s")
			b.ReportMetric(lines/ingestWall.Seconds(), "ingest-events/s")
			b.ReportMetric(ingestWall.Seconds()/importWall.Seconds(), "ratio-wall")
			b.ReportMetric(lines/importCPU, "import-lines/cpu-s")
			b.ReportMetric(lines/ingestCPU, "ingest-events/cpu-s")
			b.ReportMetric(ingestCPU/importCPU, "ratio-cpu")
		})
	}
}

// BenchmarkFollowPickup measures how long a line appended to a followed
// Claude Code transcript takes to be stored, through Follower.Run at the
// console's interval (1 s), from the write to the event being readable.
// Each op appends one user line at a random point of the poll cycle and
// waits for it; the metrics are the mean and the slowest pickup:
//
//	go test -run '^$' -bench FollowPickup -benchtime 20x ./transcript/
func BenchmarkFollowPickup(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, pid := benchStore(b)
	dir := b.TempDir()
	src := &store.Source{ProjectID: pid, Dir: dir, Format: string(transcript.FormatClaudeCode)}
	if err := s.EnsureSource(ctx, src); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, "session.jsonl")
	fh, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	f := &transcript.Follower{Store: s, SourceID: src.ID, ProjectID: pid, Dir: dir, Options: transcript.Options{Format: transcript.FormatClaudeCode}}
	var wg sync.WaitGroup
	wg.Go(func() { _ = f.Run(ctx, time.Second, nil) })
	defer wg.Wait()
	defer cancel()
	stored := func(n int) bool {
		_, total, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &pid, Limit: 1})
		return err == nil && total >= n
	}
	var sum, slowest time.Duration
	at := time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for i := range b.N {
		// Land anywhere in the poll cycle: 0 to 1 s after the last pickup.
		time.Sleep(time.Duration(i*397%1000) * time.Millisecond)
		line := appendClaudeLine(nil, "p", 3*i, at) // a user line: stored whole
		start := time.Now()
		if _, err := fh.Write(line); err != nil {
			b.Fatal(err)
		}
		for !stored(i + 1) {
			if time.Since(start) > 10*time.Second {
				b.Fatalf("line %d not picked up in 10 s", i)
			}
			time.Sleep(5 * time.Millisecond)
		}
		d := time.Since(start)
		sum += d
		slowest = max(slowest, d)
	}
	b.ReportMetric(float64(sum.Milliseconds())/float64(b.N), "ms/pickup")
	b.ReportMetric(float64(slowest.Milliseconds()), "max-ms")
}
