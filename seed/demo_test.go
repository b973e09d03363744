package seed_test

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
)

func TestDemoProjects(t *testing.T) {
	projects, err := seed.DemoProjects()
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, p := range projects {
		slugs = append(slugs, p.Slug)
	}
	if got, want := len(slugs), 3; got != want {
		t.Fatalf("projects: got %v, want %d", slugs, want)
	}
	for i, want := range []string{"travel-agent", "expense-agent", "coding-assistant"} {
		if slugs[i] != want {
			t.Fatalf("order: got %v", slugs)
		}
	}

	for _, p := range projects {
		t.Run(p.Slug, func(t *testing.T) {
			if p.Name == "" || p.Description == "" {
				t.Error("name and description are required")
			}
			if len(p.SubjectIDs) != 1 {
				t.Errorf("subjects: got %v, want one", p.SubjectIDs)
			}
			ids := map[string]bool{}
			type sessionState struct {
				turn  int
				ended bool
			}
			sessions := map[string]*sessionState{}
			var order []string
			var last governance.Event
			for i, e := range p.Events {
				e.Normalize()
				if problems := e.Validate(); len(problems) > 0 {
					t.Errorf("event %s: %v", e.ID, problems)
				}
				if ids[e.ID] {
					t.Errorf("event id %s is not unique", e.ID)
				}
				ids[e.ID] = true
				if !e.OccurredAt.Equal(e.OccurredAt.UTC()) || e.OccurredAt.Location().String() != "UTC" {
					t.Errorf("event %s: occurred_at %v is not UTC", e.ID, e.OccurredAt)
				}
				if i > 0 && !e.OccurredAt.After(last.OccurredAt) {
					t.Errorf("event %s: occurred_at does not advance", e.ID)
				}
				last = *e
				s := sessions[e.SessionID]
				if s == nil {
					s = &sessionState{}
					sessions[e.SessionID] = s
					order = append(order, e.SessionID)
				}
				if s.ended {
					t.Errorf("event %s comes after the end of session %s", e.ID, e.SessionID)
				}
				s.turn++
				if e.Turn != s.turn {
					t.Errorf("event %s: turn got %d, want %d", e.ID, e.Turn, s.turn)
				}
				if e.Kind == governance.KindSessionEnd {
					if e.Role != "" || e.Text != "" {
						t.Errorf("session_end %s carries a role or text", e.ID)
					}
					s.ended = true
				}
				if e.Role == governance.RoleTool && e.Source != governance.SourceExternal {
					if e.Tool == "" || (e.Status != governance.StatusPassed && e.Status != governance.StatusFailed) {
						t.Errorf("tool event %s: tool %q status %q", e.ID, e.Tool, e.Status)
					}
				}
			}
			for _, id := range order {
				if !sessions[id].ended {
					t.Errorf("session %s has no session_end event", id)
				}
			}
		})
	}
}

func TestTravelAgent(t *testing.T) {
	projects, err := seed.DemoProjects()
	if err != nil {
		t.Fatal(err)
	}
	p := projects[0]
	messages := map[string]int{}
	var sessions []string
	external, failed := 0, 0
	for _, e := range p.Events {
		if e.Kind != governance.KindMessage {
			continue
		}
		if e.Source == governance.SourceExternal {
			external++
			continue
		}
		if messages[e.SessionID] == 0 {
			sessions = append(sessions, e.SessionID)
		}
		messages[e.SessionID]++
		if e.Tool == "route_checker" && e.Status == governance.StatusFailed {
			failed++
		}
	}
	total := 0
	for _, n := range messages {
		total += n
	}
	if got, want := len(sessions), 3; got != want {
		t.Errorf("conversation sessions: got %d, want %d", got, want)
	}
	if got, want := total, 36; got != want {
		t.Errorf("message events: got %d, want %d", got, want)
	}
	if got, want := external, 1; got != want {
		t.Errorf("external events: got %d, want %d", got, want)
	}
	if got, want := failed, 2; got != want {
		t.Errorf("failed route checks: got %d, want %d", got, want)
	}
}
