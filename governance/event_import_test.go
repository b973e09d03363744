package governance_test

import (
	"errors"
	"fmt"
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
	t.Run("ErrInSentences", func(t *testing.T) {
		// A parser's own wording never reaches the user.
		in := `{"id":"e1","session_id":"s1","turn":1,"role":"user","text":"ok","occurred_at":"yesterday"}` + "\n" + `{"id":x}` + "\n" + `{"id":`
		_, err := governance.ParseEventsJSONL(strings.NewReader(in))
		msg := fmt.Sprint(err)
		for _, want := range []string{`line 1: the time "yesterday" is not a date and time like 2026-05-20T06:02:45Z`, "line 2: invalid JSON at character", "line 3: invalid JSON: the line ends before the record does"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message = %s, want %q", msg, want)
			}
		}
		if strings.Contains(msg, "parsing time") || strings.Contains(msg, "2006-01-02") {
			t.Errorf("a Go parser's message got through: %s", msg)
		}
	})
}

// TestParseEventsJSONLLimits: a line over the limit is an error naming it,
// never cut to size; errors are bounded to the first MaxReportedErrors.
func TestParseEventsJSONLLimits(t *testing.T) {
	good := `{"id":"e1","session_id":"s1","turn":1,"role":"user","text":"ok","occurred_at":"2026-06-15T09:00:00Z"}`
	t.Run("ErrLongLineNotCut", func(t *testing.T) {
		// Valid JSON padded past the limit: cutting the tail would leave an
		// acceptable event.
		in := good + "\n" + good[:len(good)-1] + strings.Repeat(" ", governance.MaxImportLineBytes) + "}\n"
		in = strings.Replace(in, `"e1"`, `"e2"`, 2)
		in = good + "\n" + strings.SplitN(in, "\n", 2)[1]
		_, err := governance.ParseEventsJSONL(strings.NewReader(in))
		var ie *governance.ImportError
		if !errors.As(err, &ie) || len(ie.Lines) != 1 || ie.Lines[0].Line != 2 ||
			!strings.Contains(strings.Join(ie.Lines[0].Problems, ";"), "longer than") {
			t.Fatalf("err = %v; want line 2 rejected as too long", err)
		}
	})
	t.Run("ErrBounded", func(t *testing.T) {
		in := strings.Repeat("{}\n", 5000)
		_, err := governance.ParseEventsJSONL(strings.NewReader(in))
		var ie *governance.ImportError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v", err)
		}
		if len(ie.Lines) != governance.MaxReportedErrors || ie.Total != 5000 || ie.Lines[99].Line != 100 {
			t.Fatalf("%d lines listed (last %d), total %d; want the first %d of 5000",
				len(ie.Lines), ie.Lines[len(ie.Lines)-1].Line, ie.Total, governance.MaxReportedErrors)
		}
		if msg := ie.Error(); !strings.Contains(msg, "5000 invalid") || len(msg) > 16<<10 {
			t.Fatalf("message (%d bytes) %.200s", len(msg), msg)
		}
	})
}
