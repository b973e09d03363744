package transcript_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// A tool call is rendered as its name and the argument that says what it
// does; unless that argument is the whole call (a command, the file of a
// file tool), the arguments follow on the next line as compact JSON, in
// their order, each long string shortened, so that a reader can compare a
// failed call with the one that passed. The same rendering in every agent
// format.
func TestRenderedCalls(t *testing.T) {
	long := strings.Repeat("a long paragraph of the body ", 40)
	for _, tc := range []struct {
		name, tool, input, want string
	}{
		{"a command is the call", "Bash", `{"command":"npm test","description":"Run the tests","timeout":120000}`,
			"[Bash] npm test"},
		{"a file tool's file is the call", "Edit", `{"file_path":"/w/app.go","old_string":"a","new_string":"b"}`,
			"[Edit] /w/app.go"},
		{"an MCP tool's file is an argument", "mcp__drive__upload", `{"file_path":"/w/q3.pdf","folder":"Reports"}`,
			"[mcp__drive__upload] /w/q3.pdf\n" + `{"file_path":"/w/q3.pdf","folder":"Reports"}`},
		{"a shell script", "shell", `{"command":["bash","-lc","go test ./..."],"workdir":"/w"}`,
			"[shell] go test ./..."},
		{"one argument only", "WebSearch", `{"query":"go 1.26 release notes"}`,
			"[WebSearch] go 1.26 release notes"},
		{"a description, then the arguments", "mcp__calendar__create_event", `{"description":"Weekly sync","start":"04/02/2026 10:00","attendees":["a@example.com"]}`,
			"[mcp__calendar__create_event] Weekly sync\n" + `{"description":"Weekly sync","start":"04/02/2026 10:00","attendees":["a@example.com"]}`},
		{"a URL, then nested arguments", "mcp__http__request", `{"method":"POST","url":"https://api.example/v2/entries","body":{"amount":"120.00"}}`,
			"[mcp__http__request] https://api.example/v2/entries\n" + `{"method":"POST","url":"https://api.example/v2/entries","body":{"amount":"120.00"}}`},
		{"no headline: the arguments on the name's line", "create_charge", `{"customer":"cus_1","amount":4990, "currency" : "eur"}`,
			`[create_charge] {"customer":"cus_1","amount":4990,"currency":"eur"}`},
		{"a long string shortened, what follows it kept", "send_email", `{"subject":"Invoice","body":"` + long + `","to":["x@example.com"]}`,
			`[send_email] {"subject":"Invoice","body":"` + long[:200] + `…","to":["x@example.com"]}`},
		{"Chinese stays as it is", "create_task", `{"title":"整理季度报表","due":1763107200}`,
			`[create_task] {"title":"整理季度报表","due":1763107200}`},
		{"no arguments", "list_rooms", `{}`, "[list_rooms]"},
		{"spaces inside strings kept, between tokens left out", "post_note", `{ "note" : "say \"hi\"  twice\\", "n" : [1, 2] }`,
			`[post_note] {"note":"say \"hi\"  twice\\","n":[1,2]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, format := range []string{"claude", "openai"} {
				if got := renderedBy(t, format, tc.tool, tc.input); got != tc.want {
					t.Errorf("%s: %q\nwant %q", format, got, tc.want)
				}
			}
		})
	}
	// However many arguments, the line stays bounded.
	var b strings.Builder
	b.WriteString(`{"description":"many"`)
	for i := range 400 {
		fmt.Fprintf(&b, `,"field_%d":"value %d"`, i, i)
	}
	b.WriteString("}")
	got := renderedBy(t, "claude", "bulk_update", b.String())
	if head, args, _ := strings.Cut(got, "\n"); head != "[bulk_update] many" || len(args) > 2100 || !strings.HasSuffix(args, "…") {
		t.Errorf("bounded: %d bytes, %q…", len(args), got[:80])
	}
}

// renderedBy imports one call with input as the arguments of tool in
// format (Claude Code's tool_use input, OpenAI's arguments string) and
// returns the assistant event's text.
func renderedBy(t *testing.T, format, tool, input string) string {
	t.Helper()
	dir := t.TempDir()
	var path, body string
	switch format {
	case "claude":
		path = filepath.Join(dir, "s.jsonl")
		body = `{"type":"assistant","sessionId":"s1","uuid":"u1","timestamp":"2025-11-20T09:00:00Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"` + tool + `","input":` + input + `}]}}` + "\n"
	case "openai":
		path = filepath.Join(dir, "chat.json")
		q := fmt.Sprintf("%q", input)
		body = `[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"` + tool + `","arguments":` + q + `}}]}]`
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var text string
	_, err := transcript.ParseFile(context.Background(), path, transcript.Options{Now: importTime}, func(e *governance.Event) error {
		if e.Role == governance.RoleAssistant {
			text = e.Text
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return text
}
