package transcript_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/transcript"
)

// TestExtractFromTranscript runs the offline extractor over an imported
// Claude Code session: the standing instructions are durable, the
// correction after the rejected force-push is one, and the lesson of the
// failed CI build names the fix that made it pass.
func TestExtractFromTranscript(t *testing.T) {
	events, _, err := parse(t, "claude-session.jsonl", transcript.Options{SkipMalformed: true})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string][]*governance.Event{}
	var order []string
	for i, e := range events {
		e.Seq = int64(i + 1)
		if sessions[e.SessionID] == nil {
			order = append(order, e.SessionID)
		}
		sessions[e.SessionID] = append(sessions[e.SessionID], e)
	}
	var items []governance.ExtractedItem
	for _, id := range order {
		ex, err := heuristic.NewExtractor().Extract(context.Background(), governance.ExtractInput{SessionID: id, Events: sessions[id]})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, ex.Items...)
	}
	find := func(typ governance.MemoryType, part string) *governance.ExtractedItem {
		for i := range items {
			if items[i].Type == typ && strings.Contains(items[i].Statement, part) {
				return &items[i]
			}
		}
		return nil
	}
	for _, part := range []string{"always run the unit tests before you push", "Never force-push to main", "Don't ever force-push"} {
		if it := find(governance.TypePreference, part); it == nil || !it.Durable {
			t.Errorf("no durable preference %q in %+v", part, items)
		}
	}
	lesson := find(governance.TypeLesson, "Pin the Node version")
	if lesson == nil {
		t.Fatalf("no lesson naming the fix in %+v", items)
	}
	if want := "Pin the Node version in .nvmrc and use it before the build (it makes npm run ci:build pass)"; lesson.Statement != want {
		t.Errorf("lesson = %q, want %q", lesson.Statement, want)
	}
}
