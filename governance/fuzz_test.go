package governance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseEventsJSONL: the NDJSON parser either rejects the input with an
// *ImportError naming lines that exist, or returns events that each pass
// validation, carry distinct ids, and survive a JSON round trip through the
// parser unchanged in number.
func FuzzParseEventsJSONL(f *testing.F) {
	f.Add([]byte(`{"id":"e1","session_id":"s1","role":"user","text":"always run go test","occurred_at":"2025-01-01T00:00:00Z"}`))
	f.Add([]byte("{\"id\":\"e1\",\"session_id\":\"s1\",\"role\":\"tool\",\"tool\":\"bash\",\"status\":\"failed\",\"text\":\"exit 1\",\"occurred_at\":\"2025-01-01T00:00:00Z\"}\r\n\n{\"id\":\"e2\",\"session_id\":\"s1\",\"kind\":\"session_end\",\"text\":\"\",\"occurred_at\":\"2025-01-01T00:00:01Z\"}\n"))
	f.Add([]byte(`{"id":"e1","session_id":"s1","role":"user","text":"x","occurred_at":"2025-01-01T00:00:00Z"}` + "\n" + `{"id":"e1","session_id":"s1","role":"user","text":"y","occurred_at":"2025-01-01T00:00:00Z"}`))
	f.Add([]byte("{}\n{}\n[]\n\"\xff\"\n"))
	f.Add([]byte(`{"id":"e\u202e1","session_id":"s\u0000","role":"user","text":"\u001b[31m","occurred_at":"x"}`))
	f.Add([]byte(`{"id":"e1","session_id":"s1","role":"user","text":"x","occurred_at":"2025-01-01T00:00:00Z","extra":1} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxLine = 512
		events, err := ParseEventsJSONLLimit(bytes.NewReader(data), maxLine)
		lines := bytes.Count(data, []byte("\n")) + 1
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("error is %T, not *ImportError: %v", err, err)
			}
			if events != nil {
				t.Fatalf("rejected input returned %d events", len(events))
			}
			if ie.Total < len(ie.Lines) || len(ie.Lines) > MaxReportedErrors || len(ie.Lines) == 0 {
				t.Fatalf("error counts: %d named, total %d", len(ie.Lines), ie.Total)
			}
			for _, l := range ie.Lines {
				if l.Line < 1 || l.Line > lines {
					t.Fatalf("error names line %d of %d", l.Line, lines)
				}
				if len(l.Problems) == 0 {
					t.Fatalf("line %d has no problem", l.Line)
				}
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err.Error())
			}
			return
		}
		ids := map[string]bool{}
		var again bytes.Buffer
		for _, e := range events {
			if p := e.Validate(); len(p) > 0 {
				t.Fatalf("returned event %q fails validation: %v", e.ID, p)
			}
			if ids[e.ID] {
				t.Fatalf("duplicate id %q returned", e.ID)
			}
			ids[e.ID] = true
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			again.Write(b)
			again.WriteByte('\n')
		}
		if err := ValidateBatch(events); err != nil {
			t.Fatalf("parsed events fail ValidateBatch: %v", err)
		}
		back, err := ParseEventsJSONL(&again)
		if err != nil {
			t.Fatalf("re-parsing the marshalled events: %v\n%s", err, again.String())
		}
		if len(back) != len(events) {
			t.Fatalf("round trip: %d events, then %d", len(events), len(back))
		}
		for i := range back {
			if back[i].ID != events[i].ID || back[i].Text != events[i].Text || !back[i].OccurredAt.Equal(events[i].OccurredAt) {
				t.Fatalf("round trip changed event %d: %+v -> %+v", i, events[i], back[i])
			}
		}
	})
}

// FuzzLineReader: every line the reader returns is at most the limit, holds
// no line feed, and the lines (with the too-long ones) rebuild the input.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nccc"), 4)
	f.Add([]byte("0123456789\n01\n"), 3)
	f.Add([]byte(""), 1)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<16 {
			max = 1 + (max&0x7fffffff)%64
		}
		lr := NewLineReader(bytes.NewReader(data), max)
		var rebuilt []string
		long := false
		for want := 1; ; want++ {
			line, n, err := lr.Next()
			if n != want {
				t.Fatalf("line number %d, want %d", n, want)
			}
			if err != nil {
				var tl *LineTooLongError
				if errors.As(err, &tl) {
					long = true
					continue
				}
				if !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				break
			}
			if len(line) > max {
				t.Fatalf("line %d has %d bytes, limit %d", n, len(line), max)
			}
			if bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %d holds a line feed", n)
			}
			rebuilt = append(rebuilt, string(line))
		}
		if !long {
			// Without long lines the input is the lines joined, up to
			// "\r\n" endings and the final line feed.
			norm := strings.ReplaceAll(string(data), "\r\n", "\n")
			norm = strings.TrimSuffix(norm, "\n")
			if got := strings.Join(rebuilt, "\n"); got != norm {
				t.Fatalf("lines rebuild %q, input %q", got, norm)
			}
		}
	})
}
