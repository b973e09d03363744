package governance_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestParseEventsJSONL(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		in := `{"id":"e1","session_id":"s1","turn":1,"role":"user","text":"你好","occurred_at":"2026-06-15T09:00:00Z"}

{"id":"e2","session_id":"s1","turn":2,"role":"tool","tool":"route_checker","status":"failed","text":"{}","occurred_at":"2026-06-15T09:01:00Z"}
`
		events, err := governance.ParseEventsJSONL(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[1].Source != governance.SourceTool || events[0].Kind != governance.KindMessage {
			t.Fatalf("events = %+v", events)
		}
	})
	t.Run("ErrEveryLineNamed", func(t *testing.T) {
		in := strings.Join([]string{
			`{"id":"e1","session_id":"s1","turn":1,"role":"user","text":"ok","occurred_at":"2026-06-15T09:00:00Z"}`,
			`{"id":"e2","session_id":"s1","turn":2,"role":"robot","text":"x","occurred_at":"2026-06-15T09:00:00Z"}`,
			`not json`,
			`{"id":"e1","session_id":"s1","turn":3,"role":"user","text":"dup","occurred_at":"2026-06-15T09:00:00Z"}`,
			`{"id":"e4","session_id":"s1","turn":4,"role":"user","text":"` + "\xff" + `","occurred_at":"2026-06-15T09:00:00Z"}`,
			`{"id":"e5","session_id":"s1","turn":5,"role":"user","text":"","occurred_at":"2026-06-15T09:00:00Z","extra":1}`,
			`{"id":"e6","turn":6,"role":"user","text":"` + strings.Repeat("长", governance.MaxEventTextBytes) + `","occurred_at":"2026-06-15T09:00:00Z"}`,
		}, "\n")
		_, err := governance.ParseEventsJSONL(strings.NewReader(in))
		var ie *governance.ImportError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v", err)
		}
		var lines []int
		for _, l := range ie.Lines {
			lines = append(lines, l.Line)
		}
		if got, want := lines, []int{2, 3, 4, 5, 6, 7}; len(got) != len(want) {
			t.Fatalf("bad lines = %v, want %v (%v)", got, want, ie)
		}
		if !strings.Contains(ie.Error(), "line 2: role \"robot\"") || !strings.Contains(ie.Error(), "id duplicates line 1") {
			t.Fatalf("message = %s", ie.Error())
		}
	})
}
