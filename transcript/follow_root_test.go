package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/transcript"
)

// followLine is one event of the mnemo line format with the given id and
// text.
func followLine(id, text string) string {
	return `{"id":"` + id + `","session_id":"s-` + id + `","turn":1,"role":"user","text":"` + text + `","occurred_at":"2026-06-01T10:00:00Z"}` + "\n"
}

type followFixture struct {
	t       *testing.T
	s       *store.Store
	project *governance.Project
}

func newFollowFixture(t *testing.T) *followFixture {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &governance.Project{Slug: "agents", Name: "agents"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	return &followFixture{t: t, s: s, project: p}
}

// follower follows dir (under roots, nil for none) as a new source.
func (fx *followFixture) follower(dir string, roots []string) *transcript.Follower {
	fx.t.Helper()
	src := &store.Source{ProjectID: fx.project.ID, Dir: dir}
	if err := fx.s.EnsureSource(context.Background(), src); err != nil {
		fx.t.Fatal(err)
	}
	return &transcript.Follower{Store: fx.s, SourceID: src.ID, ProjectID: fx.project.ID, Dir: dir, Roots: roots}
}

// texts are the texts of every stored event.
func (fx *followFixture) texts() string {
	fx.t.Helper()
	events, _, err := fx.s.FindEvents(context.Background(), governance.EventFilter{ProjectID: &fx.project.ID, Limit: 1000})
	if err != nil {
		fx.t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.Text + "\n")
	}
	return b.String()
}

func mustWrite(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestFollowReadsOnlyInsideItsDirectory: no symbolic link leads a read of
// a followed directory out of it, whether it is a file's link, a
// subdirectory replaced by a link after the first poll, a link to a
// Hermes database outside, or a directory on the path between the follow
// root and the followed directory replaced by a link.
func TestFollowReadsOnlyInsideItsDirectory(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	mustWrite(t, filepath.Join(outside, "secret.jsonl"), followLine("x1", "outside secret one"))
	mustWrite(t, filepath.Join(outside, "sub", "later.jsonl"), followLine("x2", "outside secret two"))
	mustWrite(t, filepath.Join(outside, "team", "agent", "far.jsonl"), followLine("x3", "outside secret three"))
	if err := os.Rename(mustHermesDB(t), filepath.Join(outside, "state.db")); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(root, "team", "agent")
	mustWrite(t, filepath.Join(dir, "own.jsonl"), followLine("a1", "inside line"))
	mustWrite(t, filepath.Join(dir, "sub", "proj.jsonl"), followLine("a2", "inside sub line"))
	mustSymlink(t, filepath.Join(outside, "secret.jsonl"), filepath.Join(dir, "link.jsonl"))
	mustSymlink(t, "../../../outside/secret.jsonl", filepath.Join(dir, "rel.jsonl"))
	mustSymlink(t, filepath.Join(outside, "state.db"), filepath.Join(dir, "state.db"))
	// A link that stays inside is followed.
	mustSymlink(t, "own.jsonl", filepath.Join(dir, "alias.jsonl"))

	fx := newFollowFixture(t)
	f := fx.follower(dir, []string{root})
	res, err := f.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := fx.texts()
	if !strings.Contains(got, "inside line") || !strings.Contains(got, "inside sub line") {
		t.Fatalf("the directory's own files were not read: %q (%+v)", got, res)
	}
	if strings.Contains(got, "outside") || strings.Contains(got, "部署") {
		t.Fatalf("a link led a read out of the followed directory: %q", got)
	}
	problems := governance.Lines(res.Problems...).String()
	for _, name := range []string{"link.jsonl", "rel.jsonl", "state.db"} {
		if !strings.Contains(problems, name+": a symbolic link that leads out") {
			t.Errorf("no problem shown for %s: %q", name, problems)
		}
	}

	// A subdirectory swapped for a link out after it was read.
	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(base, "old-sub")); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join(outside, "sub"), filepath.Join(dir, "sub"))
	if _, err := f.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fx.texts(); strings.Contains(got, "outside secret two") {
		t.Fatalf("a swapped subdirectory led out: %q", got)
	}

	// A directory between the root and the followed one swapped for a link.
	if err := os.Rename(filepath.Join(root, "team"), filepath.Join(base, "old-team")); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join(outside, "team"), filepath.Join(root, "team"))
	if _, err := f.Poll(ctx); err == nil || !strings.Contains(err.Error(), "no longer lies under a follow root") {
		t.Fatalf("poll of a directory carried out of its root: %v", err)
	}
	if got := fx.texts(); strings.Contains(got, "outside secret three") {
		t.Fatalf("a swapped parent directory led out: %q", got)
	}
	files, err := fx.s.FindSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ff := range files[0].Files {
		if ff.Path == "link.jsonl" && !strings.Contains(governance.ParseText(ff.LastError).String(), "leads out") {
			t.Errorf("the Sources page does not say why link.jsonl is skipped: %+v", ff)
		}
	}
}

// TestFollowSkipsFIFOs: a FIFO named like a session file neither blocks
// the poll nor the other files: it is skipped with its reason, the other
// file's lines flow, and the loop stops promptly when cancelled.
func TestFollowSkipsFIFOs(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "a-pipe.jsonl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "state.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "b-real.jsonl"), followLine("b1", "a real line"))
	fx := newFollowFixture(t)
	f := fx.follower(dir, nil)

	ctx, cancel := context.WithCancel(context.Background())
	polls := make(chan *transcript.PollResult, 100)
	done := make(chan error, 1)
	go func() {
		done <- f.Run(ctx, 10*time.Millisecond, func(res *transcript.PollResult, err error) {
			if err != nil {
				t.Errorf("poll: %v", err)
			}
			polls <- res
		})
	}()
	var res *transcript.PollResult
	select {
	case res = <-polls:
	case <-time.After(30 * time.Second):
		t.Fatal("the first poll never finished: a FIFO blocked it")
	}
	if res.Inserted != 1 || !strings.Contains(fx.texts(), "a real line") {
		t.Fatalf("poll = %+v; want the real file's line", res)
	}
	problems := governance.Lines(res.Problems...).String()
	for _, name := range []string{"a-pipe.jsonl", "state.db"} {
		if !strings.Contains(problems, name+": not a regular file") {
			t.Errorf("no reason shown for the FIFO %s: %q", name, problems)
		}
	}
	// The file keeps flowing at the next polls.
	fh, err := os.OpenFile(filepath.Join(dir, "b-real.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(followLine("b2", "appended later"))
	fh.Close()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(fx.texts(), "appended later") {
		select {
		case <-polls:
		case <-deadline:
			t.Fatal("the appended line never came")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the follower did not stop within 5 s of being cancelled")
	}
}
