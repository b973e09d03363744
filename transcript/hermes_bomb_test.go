package transcript_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// bombSQL builds a Hermes state.db of a few KB whose messages.content is
// a column computed as it is read: 200 MB of text per row. The rows are
// written before the column is declared (writing them with it computes
// it), as a crafted file can be.
const bombSQL = `
CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL);
INSERT INTO sessions (id, source, user_id, started_at) VALUES ('s1', 'cli', 'ann', 1762160400.0);
INSERT INTO messages (session_id, role, timestamp) VALUES ('s1', 'user', 1762160401.0), ('s1', 'assistant', 1762160402.0);
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = 'CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
    content TEXT GENERATED ALWAYS AS (replace(hex(zeroblob(50000000)), ''00'', ''aaaa'')) VIRTUAL)' WHERE name = 'messages';
PRAGMA writable_schema = OFF;`

// mustBombDB writes the bomb as dir/state.db.
func mustBombDB(tb testing.TB, dir string) string {
	tb.Helper()
	path := filepath.Join(dir, "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(bombSQL); err != nil {
		tb.Fatal(err)
	}
	return path
}

// nopSink takes an import's events and stores nothing.
type nopSink struct{}

func (nopSink) ImportStream(_ context.Context, _ string, _ int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return &governance.ImportResult{}, produce(func(*governance.Event) error { return nil })
}

// readBomb reads dir/state.db the way mode says — an upload, a file
// import, a followed database's poll — and returns the error the read
// ended in.
func readBomb(ctx context.Context, tb testing.TB, mode, dir string) error {
	tb.Helper()
	path := filepath.Join(dir, "state.db")
	opts := transcript.Options{SkipMalformed: true}
	switch mode {
	case "upload":
		body, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		_, err = transcript.Import(ctx, nopSink{}, "cli", 1, bytes.NewReader(body), opts)
		return err
	case "file":
		_, err := transcript.ImportFile(ctx, nopSink{}, "cli", 1, path, opts)
		return err
	case "follow":
		_, _, err := transcript.FollowHermes(ctx, path, governance.FollowCheckpoint{}, opts, func(*governance.Event) error { return nil })
		return err
	}
	tb.Fatalf("mode %q", mode)
	return nil
}

// bombModes are the ways a Hermes database is read.
var bombModes = []string{"upload", "file", "follow"}

// TestHermesBombChild is the process TestHermesBombBounded measures: it
// reads the database of MNEMO_HERMES_BOMB_DIR in every way, one after
// the other.
func TestHermesBombChild(t *testing.T) {
	dir := os.Getenv("MNEMO_HERMES_BOMB_DIR")
	if dir == "" {
		t.Skip("run by TestHermesBombBounded")
	}
	for _, mode := range bombModes {
		err := readBomb(context.Background(), t, mode, dir)
		fmt.Printf("BOMB-RESULT %s: %v\n", mode, err)
	}
}

// peakOf runs a child reading dir's state.db in every way and returns its
// output and peak resident size in bytes.
func peakOf(t *testing.T, dir string) (string, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHermesBombChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MNEMO_HERMES_BOMB_DIR="+dir)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no resource usage on this system")
	}
	peak := ru.Maxrss << 10 // KiB on Linux
	t.Logf("%s: peak %d MB in %s", filepath.Base(dir), peak>>20, time.Since(start).Round(time.Millisecond))
	return string(out), peak
}

// TestHermesBombBounded: a Hermes state.db of a few KB that computes 200
// MB of text per row as it is read is refused with a clear error, whether
// it is uploaded, imported from disk or followed, in a process that stays
// within 100 MB of memory for the reads (peak resident size, measured by
// the kernel, since SQLite's memory is not Go's heap), over a child that
// reads a plain state.db the same way: what the test binary itself takes
// to start (every package's tables and patterns, and under the race
// detector its shadow memory) is not the reads' and is not counted.
func TestHermesBombBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	bomb := t.TempDir()
	mustBombDB(t, bomb)
	plain := t.TempDir()
	if err := os.Rename(mustHermesDB(t), filepath.Join(plain, "state.db")); err != nil {
		t.Fatal(err)
	}
	_, baseline := peakOf(t, plain)
	out, peak := peakOf(t, bomb)
	if peak-baseline > 100<<20 {
		t.Errorf("the reads took %d MB at their peak (baseline %d MB), want under 100 MB", peak>>20, baseline>>20)
	}
	for _, mode := range bombModes {
		if !strings.Contains(out, "BOMB-RESULT "+mode+": ") || strings.Contains(out, "BOMB-RESULT "+mode+": <nil>") ||
			!regexp.MustCompile(`BOMB-RESULT `+mode+`: .*computes columns as they are read`).MatchString(out) {
			t.Errorf("%s: the bomb was not refused with a clear error:\n%s", mode, out)
		}
	}
}

// BenchmarkHermesBomb is the time an upload of the bomb takes to be
// refused.
func BenchmarkHermesBomb(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	mustBombDB(b, dir)
	for b.Loop() {
		if err := readBomb(ctx, b, "upload", dir); err == nil {
			b.Fatal("the bomb was read")
		}
	}
}

// TestImportsSayWhenTheyClip: a text longer than an event holds is cut to
// it, and the report, a followed file's problem and a Hermes read say so
// with its line.
func TestImportsSayWhenTheyClip(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("word ", 8000) // 40,000 bytes
	claude := func(n int, text string) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"5b1e7f3a","uuid":"u-%d","timestamp":"2025-11-03T09:00:0%dZ","message":{"role":"user","content":%q}}`+"\n", n, n, text)
	}
	lines := claude(1, "short") + claude(2, long)
	rep, err := transcript.Parse(ctx, strings.NewReader(lines), transcript.Options{}, func(*governance.Event) error { return nil })
	if err != nil || rep.Clipped != 1 || len(rep.ClippedLines) != 1 || rep.ClippedLines[0] != 2 {
		t.Fatalf("report = %+v, %v; want line 2 clipped", rep, err)
	}

	path := mustHermesDB(t)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20251104_100000_cd34', 'user', ?, 1762250405.0)`,
		strings.Repeat("长", 300<<10)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rep, err = transcript.ParseFile(ctx, path, transcript.Options{SkipMalformed: true}, func(e *governance.Event) error {
		if len(e.Text) > governance.MaxEventTextBytes {
			t.Errorf("event %s holds %d bytes", e.ID, len(e.Text))
		}
		return nil
	})
	if err != nil || rep.Clipped != 1 || rep.ClippedLines[0] != 11 {
		t.Fatalf("hermes report = %+v, %v; want row 11 clipped", rep, err)
	}

	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "s.jsonl"), lines)
	fx := newFollowFixture(t)
	res, err := fx.follower(dir, nil).Poll(ctx)
	if err != nil || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].String(), "1 text(s) longer than 32 KiB were cut to it: line(s) 2") {
		t.Fatalf("follow = %+v, %v; want the cut named", res, err)
	}
}
