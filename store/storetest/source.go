package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TestSources: a followed directory is registered once per project and
// directory; a chunk's events and its file's checkpoint are written
// together or not at all; a file's problem is recorded without moving its
// checkpoint. Stopping to follow a directory deletes it and its
// checkpoints, audited, and leaves the events it imported.
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
	if f, err := s.FindSourceFile(ctx, src.ID, "a.jsonl"); err != nil || f.Offset != 0 || f.Lines != 0 || f.OpenID != "" {
		t.Fatalf("new file checkpoint = %+v, %v; want 0, 0", f, err)
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
	res, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", governance.FollowCheckpoint{Offset: 120, Lines: 3}, "", "", chunk(0, 3, nil))
	if err != nil || res.Inserted != 3 {
		t.Fatalf("chunk 1 = %+v, %v", res, err)
	}
	// A failed chunk moves neither the checkpoint nor the events.
	if _, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", governance.FollowCheckpoint{Offset: 400, Lines: 9}, "", "", chunk(3, 6, errors.New("read error"))); err == nil {
		t.Fatal("failed chunk succeeded")
	}
	if f, _ := s.FindSourceFile(ctx, src.ID, "a.jsonl"); f.Offset != 120 || f.Lines != 3 {
		t.Fatalf("checkpoint after a failed chunk = %d, %d; want 120, 3", f.Offset, f.Lines)
	}
	if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != 3 {
		t.Fatalf("events after a failed chunk = %d, want 3", total)
	}
	// The last message is left open: the next poll reads it again.
	openMsg := governance.FollowCheckpoint{Offset: 400, Lines: 9, OpenID: "a-7", OpenOffset: 350, OpenLines: 8}
	if _, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", openMsg, "", "line 8: not JSON", chunk(2, 6, nil)); err != nil {
		t.Fatal(err)
	}
	// It is read again with a part appended: its text is completed, once;
	// a text that does not extend the stored one replaces nothing.
	reread := func(text string) *governance.ImportResult {
		res, err := s.ImportChunk(ctx, p.ID, src.ID, "a.jsonl", governance.FollowCheckpoint{Offset: 400, Lines: 9}, "a-7", "line 8: not JSON",
			func(emit func(*governance.Event) error) error {
				return emit(Ev("a-7", "a", 8, governance.RoleUser, text))
			})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := reread("line\nand its second part"); res.Replaced != 1 || res.Inserted != 0 || res.Skipped != 0 {
		t.Fatalf("re-read open message = %+v, want 1 replaced", res)
	}
	if res := reread("another text altogether"); res.Replaced != 0 || res.Skipped != 1 {
		t.Fatalf("re-read with other text = %+v, want 1 skipped", res)
	}
	events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.ID == "a-7" && e.Text != "line\nand its second part" {
			t.Fatalf("completed event text = %q", e.Text)
		}
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
	if a.Path != "a.jsonl" || a.Offset != 400 || a.Lines != 9 || a.OpenID != "" || a.Events != 8 || a.LastError != "line 8: not JSON" || a.UpdatedAt == "" {
		t.Fatalf("file a = %+v; want offset 400, 9 lines, 8 events", a)
	}
	if b.Path != "b.jsonl" || b.Offset != 0 || b.LastError != "permission denied" {
		t.Fatalf("file b = %+v", b)
	}
	f, err := s.FindSourceFile(ctx, src.ID, "b.jsonl")
	if err != nil || f.LastError != "permission denied" || f.UpdatedAt != b.UpdatedAt {
		t.Fatalf("file b = %+v, %v", f, err)
	}

	// A second directory of the project, stopped: it and its checkpoints
	// go, the events imported from it stay, and the audit says what stopped.
	other := &governance.FollowSource{ProjectID: p.ID, Dir: "/var/agents/claude", Format: "claude-code", SubjectID: "dev-2"}
	if err := s.EnsureSource(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportChunk(ctx, p.ID, other.ID, "c.jsonl", governance.FollowCheckpoint{Offset: 50, Lines: 2}, "", "",
		func(emit func(*governance.Event) error) error {
			for i := range 2 {
				if err := emit(Ev(fmt.Sprintf("c-%d", i), "c", i+1, governance.RoleUser, "line")); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
		t.Fatal(err)
	}
	stopped, err := s.StopSource(ctx, other.ID, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if stopped.ID != other.ID || stopped.Dir != other.Dir || stopped.Project != "travel" || len(stopped.Files) != 1 || stopped.Files[0].Events != 2 {
		t.Fatalf("stopped = %+v", stopped)
	}
	if all, err := s.FindSources(ctx); err != nil || len(all) != 1 || all[0].ID != src.ID || len(all[0].Files) != 2 {
		t.Fatalf("sources after a stop = %+v, %v; want only the first, its files kept", all, err)
	}
	if f, err := s.FindSourceFile(ctx, other.ID, "c.jsonl"); err != nil || f.Offset != 0 || f.Events != 0 {
		t.Fatalf("stopped source's checkpoint = %+v, %v; want none", f, err)
	}
	if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != 10 {
		t.Fatalf("events after a stop = %d, want the 10 imported", total)
	}
	rows, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "source.stop"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("stop audit rows = %d, %v; want 1", len(rows), err)
	}
	var details struct {
		Dir, Format, Subject string
		Files, Events        int
	}
	if e := rows[0]; e.Actor != "admin" || e.ObjectType != "source" || e.ObjectID != fmt.Sprint(other.ID) || e.ProjectID != p.ID ||
		json.Unmarshal([]byte(e.Details), &details) != nil || details.Dir != other.Dir || details.Format != "claude-code" ||
		details.Files != 1 || details.Events != 2 || !strings.HasPrefix(details.Subject, "subject:") {
		t.Fatalf("stop audit = %+v", e)
	}
	// A poll under way stores nothing for it, and a second stop finds nothing.
	if _, err := s.ImportChunk(ctx, p.ID, other.ID, "c.jsonl", governance.FollowCheckpoint{Offset: 90, Lines: 3}, "", "",
		func(emit func(*governance.Event) error) error {
			return emit(Ev("c-2", "c", 3, governance.RoleUser, "line"))
		}); err == nil {
		t.Fatal("a chunk of a stopped source was stored")
	}
	if _, total, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); total != 10 {
		t.Fatalf("events after a stopped source's chunk = %d, want 10", total)
	}
	if _, err := s.StopSource(ctx, other.ID, "admin"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("second stop: %v, want ENOTFOUND", err)
	}
}
