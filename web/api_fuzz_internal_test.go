package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// FuzzParseEventArray: the API's JSON-array body parser (POST
// /api/v1/events) either rejects the body — with an *ImportError naming
// items that exist, or a governance error saying what is wrong — and
// returns nothing, or returns events decoded from valid UTF-8 that
// survive a JSON round trip unchanged. A body holding invalid UTF-8 is
// always rejected: encoding/json would otherwise replace it by U+FFFD, and
// two different ids could collide.
func FuzzParseEventArray(f *testing.F) {
	f.Add([]byte(`[{"id":"e1","session_id":"s1","role":"user","text":"always run go test","occurred_at":"2025-01-01T00:00:00Z"}]`))
	f.Add([]byte(`[{"id":"e1","session_id":"s1","role":"tool","tool":"bash","status":"failed","text":"exit 1","occurred_at":"2025-01-01T00:00:00Z"},{"id":"e2","session_id":"s1","kind":"session_end","occurred_at":"2025-01-01T00:00:01Z"}]`))
	f.Add([]byte("[{\"id\":\"e\xff1\",\"session_id\":\"s1\",\"text\":\"x\"},{\"id\":\"e\xfe1\",\"session_id\":\"s1\",\"text\":\"y\"}]"))
	f.Add([]byte(`[{}, {"extra": 1}, {"id": 5}]`))
	f.Add([]byte(`[{"id":"e1"}] [] `))
	f.Add([]byte(`{"id":"e1"}`))
	f.Add([]byte(`[{"id":"e1",`))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := parseEventArray(bytes.NewReader(data))
		if err != nil {
			if events != nil {
				t.Fatalf("rejected body returned %d events", len(events))
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err.Error())
			}
			var ie *governance.ImportError
			if errors.As(err, &ie) {
				if len(ie.Lines) == 0 || len(ie.Lines) > governance.MaxReportedErrors || ie.Total < len(ie.Lines) {
					t.Fatalf("error counts: %d named, total %d", len(ie.Lines), ie.Total)
				}
				for _, l := range ie.Lines {
					if l.Line < 1 || l.Line > APIMaxEvents+1 || len(l.Problems) == 0 {
						t.Fatalf("error names item %d with problems %v", l.Line, l.Problems)
					}
				}
			} else if code := governance.ErrorCode(err); code != governance.EINVALID && code != governance.ETOOLARGE {
				t.Fatalf("error %v has code %s", err, code)
			}
			return
		}
		if !utf8.Valid(data) {
			t.Fatalf("a body with invalid UTF-8 was accepted: %q", data)
		}
		again, err := json.Marshal(append([]*governance.Event{}, events...)) // [] for none, not null
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseEventArray(bytes.NewReader(again))
		if err != nil {
			t.Fatalf("re-parsing the marshalled events: %v\n%s", err, again)
		}
		if len(back) != len(events) {
			t.Fatalf("round trip: %d events, then %d", len(events), len(back))
		}
		for i := range back {
			if back[i].ID != events[i].ID || back[i].Text != events[i].Text || back[i].SessionID != events[i].SessionID {
				t.Fatalf("round trip changed event %d: %+v -> %+v", i, events[i], back[i])
			}
		}
	})
}
