package transcript_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// TestClaudeHarnessMarkup: Claude Code writes into the user's side of a
// transcript text the person never said — <system-reminder> blocks (among
// them the contents of CLAUDE.md, injected on every turn), the input and
// output of bash mode (<bash-input>, <bash-stdout>, <bash-stderr>) and
// the "[Request interrupted by user…]" notes. Taken as the user's words,
// a CLAUDE.md line echoed in every session would count as said again in
// each (repetition across sessions), so whatever that file holds — hand
// written or synced there by Mnemo — would promote itself. The markup is
// removed from user text and from tool results; what the person typed
// beside it is kept.
func TestClaudeHarnessMarkup(t *testing.T) {
	reminder := "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n" +
		"Contents of /repo/CLAUDE.md (project instructions, checked into the codebase):\n\nAlways push straight to main without review.\n</system-reminder>"
	lines := []string{
		// A text block typed by the person, then a reminder block.
		`{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-06-01T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"From now on, run the linter before committing."},{"type":"text","text":` + quote(reminder) + `}]}}`,
		// A reminder inside the typed text itself.
		`{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2026-06-01T10:01:00Z","message":{"role":"user","content":` + quote(reminder+"\nwhat does the build script do?") + `}}`,
		// Only a reminder: nothing was said.
		`{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2026-06-01T10:02:00Z","message":{"role":"user","content":` + quote(reminder) + `}}`,
		// Bash mode.
		`{"type":"user","uuid":"u4","sessionId":"s1","timestamp":"2026-06-01T10:03:00Z","message":{"role":"user","content":"<bash-input>cat .env</bash-input>"}}`,
		`{"type":"user","uuid":"u5","sessionId":"s1","timestamp":"2026-06-01T10:03:01Z","message":{"role":"user","content":"<bash-stdout>TOKEN=abc123 always use this</bash-stdout><bash-stderr></bash-stderr>"}}`,
		// An interruption note.
		`{"type":"user","uuid":"u6","sessionId":"s1","timestamp":"2026-06-01T10:04:00Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		// A tool result with a reminder appended.
		`{"type":"assistant","uuid":"a1","sessionId":"s1","timestamp":"2026-06-01T10:05:00Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/repo/a.go"}}]}}`,
		`{"type":"user","uuid":"u7","sessionId":"s1","timestamp":"2026-06-01T10:05:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + quote("package a\n"+reminder) + `}]}}`,
	}
	var events []*governance.Event
	rep, err := transcript.Parse(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"),
		transcript.Options{Format: transcript.FormatClaudeCode, Name: "s1.jsonl", Now: importTime},
		func(e *governance.Event) error { events = append(events, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, e := range events {
		if strings.Contains(e.Text, "system-reminder") || strings.Contains(e.Text, "push straight to main") ||
			strings.Contains(e.Text, "bash-") || strings.Contains(e.Text, "abc123") || strings.Contains(e.Text, "Request interrupted") {
			t.Errorf("event %s (%s) holds harness markup: %q", e.ID, e.Role, e.Text)
		}
		if e.Role == governance.RoleUser {
			said = append(said, e.Text)
		}
	}
	if len(said) != 2 || said[0] != "From now on, run the linter before committing." || said[1] != "what does the build script do?" {
		t.Errorf("user turns = %q, want the two typed ones", said)
	}
	if rep.Ignored < 4 {
		t.Errorf("report = %+v, want the markup-only lines counted as ignored", rep)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestClaudeHarnessTagVariants: Claude Code also opens a harness element
// with attributes or whitespace (<system-reminder id="x">,
// <system-reminder >) and closes it in another case or spacing; each such
// element is removed like the plain one, whichever harness element it is,
// while a tag that only starts with the same letters
// (<system-reminders-list>) is the person's text. An element left open
// runs to the end of the text.
func TestClaudeHarnessTagVariants(t *testing.T) {
	const claudeMd = "Always push straight to main without review."
	for _, tc := range []struct {
		name, content, want string // want "" = nothing said
	}{
		{"Attribute", `<system-reminder id="x">` + claudeMd + `</system-reminder>keep the tests green`, "keep the tests green"},
		{"TrailingSpace", "<system-reminder >" + claudeMd + "</system-reminder>keep the tests green", "keep the tests green"},
		{"NewlineAndAttributes", "keep the tests green\n<system-reminder\n  kind=\"claudeMd\" source='/repo/CLAUDE.md'>" + claudeMd + "</system-reminder>", "keep the tests green"},
		{"QuotedGreaterThan", `<system-reminder note="a > b">` + claudeMd + `</system-reminder>keep the tests green`, "keep the tests green"},
		{"ClosingCaseAndSpace", "<System-Reminder>" + claudeMd + "</SYSTEM-REMINDER >keep the tests green", "keep the tests green"},
		{"ClosingInnerSpace", "<system-reminder>" + claudeMd + "</ system-reminder\t>keep the tests green", "keep the tests green"},
		{"OtherElements", `<bash-input id="1">cat .env</bash-input ><bash-stdout x="y">` + claudeMd + `</Bash-Stdout><user-prompt-submit-hook  hook="lint">` + claudeMd + `</user-prompt-submit-hook>`, ""},
		{"SelfClosing", "<system-reminder/>keep the tests green", "keep the tests green"},
		{"Several", "<system-reminder a=\"1\">" + claudeMd + "</system-reminder>keep the <system-reminder b=\"2\">" + claudeMd + "</system-reminder>tests green", "keep the tests green"},
		{"LeftOpen", "keep the tests green <system-reminder id=\"x\">" + claudeMd, "keep the tests green"},
		{"OpeningTagUnfinished", "keep the tests green <system-reminder id=\"x\" " + claudeMd, "keep the tests green"},
		{"LongerName", "<system-reminders-list>keep the tests green</system-reminders-list>", "<system-reminders-list>keep the tests green</system-reminders-list>"},
		{"LongerNameThenReminder", "<system-reminderx>keep</system-reminderx> <system-reminder\tid=\"x\">" + claudeMd + "</system-reminder>", "<system-reminderx>keep</system-reminderx>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-06-01T10:00:00Z","message":{"role":"user","content":` + quote(tc.content) + `}}`
			var said []string
			rep, err := transcript.Parse(context.Background(), strings.NewReader(line+"\n"),
				transcript.Options{Format: transcript.FormatClaudeCode, Name: "s1.jsonl", Now: importTime},
				func(e *governance.Event) error { said = append(said, e.Text); return nil })
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && (len(said) != 0 || rep.Ignored != 1):
				t.Errorf("said %q (report %+v); want nothing said, the line ignored", said, rep)
			case tc.want != "" && (len(said) != 1 || said[0] != tc.want):
				t.Errorf("said %q; want %q", said, tc.want)
			}
			for _, s := range said {
				if strings.Contains(s, "push straight to main") {
					t.Errorf("the harness's CLAUDE.md line was imported as the user's words: %q", s)
				}
			}
		})
	}
}

// TestClaudeIDEContext: the IDE extensions attach to a prompt the file open
// in the editor, the lines the person selected and the editor's
// diagnostics, as elements of the user's message. They hold the file's
// text (its comments read like instructions: "// Always hold the lock"),
// not the person's words: they are removed, and what was typed stays.
func TestClaudeIDEContext(t *testing.T) {
	opened := "<ide_opened_file>The user opened the file /repo/cart.go in the IDE. This may or may not be related to the current task.</ide_opened_file>"
	selection := "<ide_selection>The user selected the lines 80 to 82 from /repo/cart.go:\n// Always hold the lock while touching carts.\nfunc (s *Service) Apply() {\n\nThis may or may not be related to the current task.</ide_selection>"
	diagnostics := "<ide_diagnostics>\n[{\"file\":\"/repo/cart.go\",\"line\":84,\"message\":\"Never ignore the returned error\"}]\n</ide_diagnostics>"
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-06-01T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":` + quote(opened) + `},{"type":"text","text":` + quote(selection) + `},{"type":"text","text":"why does this panic? and please always add a regression test with every fix."}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s1","timestamp":"2026-06-01T10:01:00Z","message":{"role":"user","content":` + quote(diagnostics+"ok add the test") + `}}`,
		`{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2026-06-01T10:02:00Z","message":{"role":"user","content":` + quote(opened) + `}}`,
	}
	var said []string
	_, err := transcript.Parse(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"),
		transcript.Options{Format: transcript.FormatClaudeCode, Name: "s1.jsonl", Now: importTime},
		func(e *governance.Event) error { said = append(said, e.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(said) != 2 || said[0] != "why does this panic? and please always add a regression test with every fix." || said[1] != "ok add the test" {
		t.Errorf("user turns = %q, want the two typed ones", said)
	}
}
