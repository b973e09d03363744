package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/transcript"
)

func TestFollow(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "db")
	s, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	p := &governance.Project{Slug: "shop", Name: "shop"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "projects", "-home-dev-shop")
	os.MkdirAll(dir, 0o755)
	src := &store.Source{ProjectID: p.ID, Dir: dir, Format: string(transcript.FormatClaudeCode)}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("testdata", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(string(fixture), "\n")
	file := filepath.Join(dir, "5b1e7f3a.jsonl")
	appendLines := func(lines ...string) {
		fh, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		for _, l := range lines {
			fh.WriteString(l)
		}
	}
	follower := func(st *store.Store) *transcript.Follower {
		return &transcript.Follower{Store: st, SourceID: src.ID, ProjectID: p.ID, Dir: dir,
			Options: transcript.Options{Format: transcript.FormatClaudeCode}}
	}
	count := func(st *store.Store) int {
		_, n, err := st.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The first three lines, and half of the fourth (still being written).
	appendLines(all[0], all[1], all[2], all[3][:40])
	res, err := follower(s).Poll(ctx)
	if err != nil || res.Inserted != 1 || count(s) != 1 {
		t.Fatalf("first poll: %+v, %v, %d events", res, err, count(s))
	}
	// The rest of line 4 and line 5 are appended: picked up by the next poll.
	appendLines(all[3][40:], all[4])
	if res, err = follower(s).Poll(ctx); err != nil {
		t.Fatal(err)
	}
	// Lines 4 and 5 share message.id msg_01A with line 6, not yet written.
	if got := count(s); got != 2 {
		t.Fatalf("after the append: %d events, want 2", got)
	}

	// Restart: close the store, reopen it, append the rest, poll twice.
	s.Close()
	s2, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	appendLines(all[5:]...)
	if _, err := follower(s2).Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := follower(s2).Poll(ctx); err != nil {
		t.Fatal(err)
	}
	// Every event of the file exactly once, each with the text a whole
	// import gives it: the assistant message split across the polls (and
	// the restart) keeps all its parts under the message's id.
	want := map[string]string{}
	if _, err := transcript.Parse(ctx, strings.NewReader(string(fixture)), transcript.Options{Format: transcript.FormatClaudeCode, SkipMalformed: true},
		func(e *governance.Event) error { want[e.ID] = e.Text; return nil }); err != nil {
		t.Fatal(err)
	}
	events, n, err := s2.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range events {
		if seen[e.ID] {
			t.Errorf("event %s stored twice", e.ID)
		}
		seen[e.ID] = true
		if w, ok := want[e.ID]; !ok || w != e.Text {
			t.Errorf("event %s = %q, want %q as a whole import has it", e.ID, e.Text, w)
		}
	}
	if n != len(want) || n != 10 {
		t.Fatalf("%d events after the restart, want %d", n, len(want))
	}
	sources, err := s2.FindSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := sources[0].Files[0]
	if f.Path != "5b1e7f3a.jsonl" || f.Offset != int64(len(fixture)) || f.Lines != 18 || !strings.Contains(f.LastError, "line 9") {
		t.Fatalf("checkpoint = %+v", f)
	}
}
