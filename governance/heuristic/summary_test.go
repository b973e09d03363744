package heuristic_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// The episode summary's own sentences (what failed, what was fixed, how
// many preferences) are the extractor's words, not a user's: the
// consolidator reads every summary as an agent will, and must find
// nothing in them to describe or withhold. Each case is a session whose
// user's words are low-risk, so the summary an agent reads is the one the
// extractor wrote, every sentence of it whole.
func TestSummaryOwnSentencesKept(t *testing.T) {
	at := time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)
	user := func(text string) *governance.Event {
		return &governance.Event{Role: governance.RoleUser, Source: governance.SourceConversation, Text: text}
	}
	tool := func(name, status, text string) *governance.Event {
		return &governance.Event{Role: governance.RoleTool, Source: governance.SourceTool, Tool: name, Status: status, Text: text}
	}
	external := &governance.Event{Role: governance.RoleUser, Source: governance.SourceExternal, Text: "Opening hours: 9 to 17."}
	for name, events := range map[string][]*governance.Event{
		"one standing preference":    {user("From now on answer in French.")},
		"two preferences":            {user("From now on answer in French. I like short answers.")},
		"no preference":              {user("What is the capital of Peru?")},
		"tools passed":               {user("Which tests are slow?"), tool("go_test", governance.StatusPassed, "ok")},
		"tools passed, a preference": {user("From now on keep answers short."), tool("go_test", governance.StatusPassed, "ok")},
		"external content":           {user("What time does the museum open?"), external},
		"以后":                         {user("以后都用英文回答我。")},
		"工具通过":                       {user("哪些测试比较慢？"), tool("go_test", governance.StatusPassed, "ok")},
		"failed, never re-checked":   {user("Which tests are slow?"), tool("go_test", governance.StatusFailed, "FAIL: missing table users")},
		"failed, fixed": {user("Which tests are slow?"),
			tool("go_test", governance.StatusFailed, "FAIL: no such table: users"),
			tool("migrate", governance.StatusPassed, "applied 3 migrations"),
			tool("go_test", governance.StatusPassed, "ok")},
	} {
		t.Run(name, func(t *testing.T) {
			w := &governance.SessionWork{Session: &governance.SessionInfo{SessionID: "s1", SubjectID: "u1"}, Known: map[string]bool{}}
			for i, e := range events {
				e.Seq, e.SessionID, e.SubjectID, e.OccurredAt = int64(i+1), "s1", "u1", at
				w.Events = append(w.Events, e)
			}
			in := &governance.ConsolidateInput{Project: &governance.Project{ID: 1, Slug: "p", AutoActivate: true},
				NewCheckpoint: 1, Now: at, Evidence: map[int64]*governance.Event{}, Sessions: []*governance.SessionWork{w}}
			written, err := heuristic.NewExtractor().Extract(context.Background(), governance.ExtractInput{Events: w.Events})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := heuristic.NewConsolidator(nil).Plan(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			got := plan.Episodes[0].Summary
			if got != written.Summary {
				t.Fatalf("the summary agents read changed the extractor's:\n got %q\nwant %q", got, written.Summary)
			}
			for _, s := range strings.SplitAfter(got, ". ") {
				s = strings.TrimSpace(s)
				if strings.HasPrefix(s, "go_test ") { // a tool's name, as it is spelled
					continue
				}
				if r := []rune(s); len(r) > 0 && unicode.IsLower(r[0]) {
					t.Errorf("sentence %q of %q starts in lower case", s, got)
				}
			}
			if strings.Contains(got, gate.WithheldMarker) || strings.Contains(got, "(s)") {
				t.Errorf("summary %q", got)
			}
		})
	}
}
