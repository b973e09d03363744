package transcript_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
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

// readBomb reads the bomb of dir the way mode says: an upload, a file
// import or a followed directory; it returns the error the read ended in.
func readBomb(ctx context.Context, tb testing.TB, mode, dir string) error {
	tb.Helper()
	path := filepath.Join(dir, "state.db")
	s, err := store.Open(ctx, filepath.Join(tb.TempDir(), "db"))
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	p := &governance.Project{Slug: "bomb", Name: "bomb"}
	if err := s.CreateProject(ctx, p); err != nil {
		tb.Fatal(err)
	}
	switch mode {
	case "upload":
		body, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		_, err = transcript.Import(ctx, s, "cli", p.ID, bytes.NewReader(body), transcript.Options{SkipMalformed: true})
		return err
	case "file":
		_, err := transcript.ImportFile(ctx, s, "cli", p.ID, path, transcript.Options{SkipMalformed: true})
		return err
	case "follow":
		src := &store.Source{ProjectID: p.ID, Dir: dir}
		if err := s.EnsureSource(ctx, src); err != nil {
			tb.Fatal(err)
		}
		f := &transcript.Follower{Store: s, SourceID: src.ID, ProjectID: p.ID, Dir: dir}
		res, err := f.Poll(ctx)
		if err != nil {
			return err
		}
		if len(res.Problems) == 0 {
			return nil
		}
		return fmt.Errorf("%s", strings.Join(res.Problems, "; "))
	}
	tb.Fatalf("mode %q", mode)
	return nil
}

// TestHermesBombChild is the process TestHermesBombBounded measures.
func TestHermesBombChild(t *testing.T) {
	mode := os.Getenv("MNEMO_HERMES_BOMB")
	if mode == "" {
		t.Skip("run by TestHermesBombBounded")
	}
	err := readBomb(context.Background(), t, mode, os.Getenv("MNEMO_HERMES_BOMB_DIR"))
	fmt.Printf("BOMB-RESULT: %v\n", err)
}

// TestHermesBombBounded: a Hermes state.db of a few KB that computes 200
// MB of text per row as it is read is refused with a clear error, whether
// it is uploaded, imported from disk or followed, in a process that stays
// under 100 MB of memory (its peak resident size, measured by the
// kernel, since SQLite's memory is not Go's heap).
func TestHermesBombBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	for _, mode := range []string{"upload", "file", "follow"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHermesBombChild$", "-test.count=1")
			dir := t.TempDir()
			mustBombDB(t, dir)
			cmd.Env = append(os.Environ(), "MNEMO_HERMES_BOMB="+mode, "MNEMO_HERMES_BOMB_DIR="+dir)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				t.Skip("no resource usage on this system")
			}
			peak := ru.Maxrss << 10 // KiB on Linux
			t.Logf("%s: peak %d MB in %s", mode, peak>>20, took.Round(time.Millisecond))
			if peak > 100<<20 {
				t.Errorf("%s: the read took %d MB at its peak, want under 100 MB", mode, peak>>20)
			}
			result := string(out)
			if !strings.Contains(result, "BOMB-RESULT: ") || strings.Contains(result, "BOMB-RESULT: <nil>") ||
				!strings.Contains(result, "computes columns as they are read") {
				t.Errorf("%s: the bomb was not refused with a clear error:\n%s", mode, out)
			}
		})
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
	if err != nil || len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "1 text(s) longer than 32 KiB were cut to it: line(s) 2") {
		t.Fatalf("follow = %+v, %v; want the cut named", res, err)
	}
}
