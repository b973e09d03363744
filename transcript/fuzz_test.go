package transcript_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

var fuzzFormats = []transcript.Format{
	transcript.FormatAuto, transcript.FormatMnemo, transcript.FormatSeed,
	transcript.FormatClaudeCode, transcript.FormatCodex, transcript.FormatOpenAI,
}

// FuzzParse reads one file body in each format (format picks it; 0 is
// detection). Whatever the input: every event handed to the callback passes
// validation; the report counts them; a rejected file is an *ImportError
// whose named lines exist; without SkipMalformed a nil error means no
// malformed line; detection does not consume input, so a detected parse
// equals a parse forced to the detected format.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), false, body)
	}
	f.Add(uint8(1), false, []byte(`{"id":"e1","session_id":"s1","role":"user","text":"always lint","occurred_at":"2025-01-01T00:00:00Z"}`+"\n"))
	f.Add(uint8(2), true, []byte(`{"event_id":"s-1","project_id":"p","session_id":"a","turn":1,"role":"user","text":"你好"}`+"\n"+`{"event_id":"s-2","project_id":"p","session_id":"a","turn":2,"role":"tool","tool":"t","status":"failed","text":"{}"}`))
	f.Add(uint8(5), true, []byte(`[{"role":"system","content":"x"},{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"robot"}]`))
	f.Add(uint8(0), false, []byte("\ufeff\n{\"sessionId\":\"\xff\"}\n{}\n"))
	f.Add(uint8(0), true, []byte(`{"timestamp":"2025-10-29T00:59:38.317Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}}`))
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, format uint8, skip bool, body []byte) {
		opts := transcript.Options{
			Format:        fuzzFormats[int(format)%len(fuzzFormats)],
			Name:          "fuzz.jsonl",
			SkipMalformed: skip,
			Now:           now,
		}
		parse := func(opts transcript.Options) ([]*governance.Event, *transcript.Report, error) {
			var events []*governance.Event
			rep, err := transcript.Parse(context.Background(), bytes.NewReader(body), opts, func(e *governance.Event) error {
				if p := e.Validate(); len(p) > 0 {
					t.Fatalf("emitted event %q fails validation: %v", e.ID, p)
				}
				events = append(events, e)
				return nil
			})
			return events, rep, err
		}
		events, rep, err := parse(opts)
		if rep == nil {
			t.Fatalf("nil report (err %v)", err)
		}
		if rep.Events != len(events) {
			t.Fatalf("report counts %d events, %d emitted", rep.Events, len(events))
		}
		if rep.MalformedCount < len(rep.Malformed) {
			t.Fatalf("malformed count %d < %d listed", rep.MalformedCount, len(rep.Malformed))
		}
		lines := bytes.Count(body, []byte("\n")) + 1
		for _, l := range rep.Malformed {
			if l.Line < 1 || (rep.Format != transcript.FormatOpenAI && l.Line > lines) {
				t.Fatalf("malformed line %d of %d", l.Line, lines)
			}
			if len(l.Problems) == 0 {
				t.Fatalf("malformed line %d has no problem", l.Line)
			}
		}
		if err != nil {
			var ie *governance.ImportError
			if errors.As(err, &ie) && skip {
				t.Fatalf("SkipMalformed still rejected the file: %v", err)
			}
			return
		}
		if !skip && rep.MalformedCount > 0 {
			t.Fatalf("%d malformed lines accepted without SkipMalformed", rep.MalformedCount)
		}
		if opts.Format != transcript.FormatAuto {
			if rep.Format != opts.Format {
				t.Fatalf("forced %s, report says %s", opts.Format, rep.Format)
			}
			return
		}
		detected, derr := transcript.Detect(bufio.NewReader(bytes.NewReader(body)))
		if derr != nil || detected != rep.Format {
			t.Fatalf("Detect = %s, %v; Parse detected %s", detected, derr, rep.Format)
		}
		opts.Format = detected
		forced, frep, ferr := parse(opts)
		if ferr != nil || len(forced) != len(events) || frep.MalformedCount != rep.MalformedCount {
			t.Fatalf("forced %s: %d events, %d malformed, %v; detected: %d, %d", detected, len(forced), frep.MalformedCount, ferr, len(events), rep.MalformedCount)
		}
		for i := range forced {
			if forced[i].ID != events[i].ID || forced[i].Text != events[i].Text {
				t.Fatalf("event %d differs between detected and forced parse", i)
			}
		}
	})
}
