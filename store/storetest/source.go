package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestSources: a followed directory is registered once per project and
// directory; a chunk's events and its file's checkpoint are written
// together or not at all; a file's problem is recorded without moving its
// checkpoint.
func TestSources(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")
	src := &governance.FollowSource{ProjectID: p.ID, Dir: "/var/agents/codex", Format: "auto"}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	again := &governance.FollowSource{ProjectID: p.ID, Dir: "/var/agents/codex", Format: "codex", SubjectID: "dev-1"}
	if err := s.EnsureSource(ctx, again); err != nil {
		t.Fatal(err)
	}
	if again.ID != src.ID {
		t.Fatalf("second registration id %d, want %d", again.ID, src.ID)
	}
	if off, lines, err := s.FindSourceFileOffset(ctx, src.ID, "a.jsonl"); err != nil || off != 0 || lines != 0 {
		t.Fatalf("new file checkpoint = %d, %d, %v; want 0, 0", off, lines, err)
	}

	chunk := func(first, n int, fail error) func(emit func(*governance.Event) error) error {
		return func(emit func(*governance.Event) error) error {
			for i := first; i < first+n; i++ {
				if err := emit(Ev(fmt.Sprintf("a-%d", i), "a", i+1, governance.RoleUser, "line")); err != nil {
					return err
				}
			}
			return fail
		}
	}
	res, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", 120, 3, "", chunk(0, 3, nil))
	if err != nil || res.Inserted != 3 {
		t.Fatalf("chunk 1 = %+v, %v", res, err)
	}
	// A failed chunk moves neither the checkpoint nor the events.
	if _, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", 400, 9, "", chunk(3, 6, errors.New("read error"))); err == nil {
		t.Fatal("failed chunk succeeded")
	}
	if off, lines, _ := s.FindSourceFileOffset(ctx, src.ID, "a.jsonl"); off != 120 || lines != 3 {
		t.Fatalf("checkpoint after a failed chunk = %d, %d; want 120, 3", off, lines)
	}
	if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != 3 {
		t.Fatalf("events after a failed chunk = %d, want 3", total)
	}
	if _, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", 400, 9, "line 8: not JSON", chunk(2, 6, nil)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSourceFileError(ctx, src.ID, "b.jsonl", "permission denied"); err != nil {
		t.Fatal(err)
	}

	all, err := s.FindSources(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("sources = %+v, %v", all, err)
	}
	got := all[0]
	if got.ID != src.ID || got.Project != "travel" || got.Format != "codex" || got.SubjectID != "dev-1" || len(got.Files) != 2 {
		t.Fatalf("source = %+v", got)
	}
	a, b := got.Files[0], got.Files[1]
	if a.Path != "a.jsonl" || a.Offset != 400 || a.Lines != 9 || a.Events != 8 || a.LastError != "line 8: not JSON" || a.UpdatedAt == "" {
		t.Fatalf("file a = %+v; want offset 400, 9 lines, 8 events", a)
	}
	if b.Path != "b.jsonl" || b.Offset != 0 || b.LastError != "permission denied" {
		t.Fatalf("file b = %+v", b)
	}
	f, err := s.FindSourceFile(ctx, src.ID, "b.jsonl")
	if err != nil || f.LastError != "permission denied" || f.UpdatedAt != b.UpdatedAt {
		t.Fatalf("file b = %+v, %v", f, err)
	}
}
