package transcript_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

var importTime = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// parse reads a testdata file with opts and returns the events.
func parse(tb testing.TB, name string, opts transcript.Options) ([]*governance.Event, *transcript.Report, error) {
	tb.Helper()
	if opts.Name == "" {
		opts.Name = name
	}
	opts.Now = importTime
	var events []*governance.Event
	rep, err := transcript.ParseFile(context.Background(), filepath.Join("testdata", name), opts, func(e *governance.Event) error {
		events = append(events, e)
		return nil
	})
	return events, rep, err
}

func byID(events []*governance.Event, id string) *governance.Event {
	for _, e := range events {
		if e.ID == id {
			return e
		}
	}
	return nil
}

func malformedLines(rep *transcript.Report) []int {
	var out []int
	for _, l := range rep.Malformed {
		out = append(out, l.Line)
	}
	return out
}

// The fixture follows the transcript format Claude Code writes under
// ~/.claude/projects/: user and assistant lines with message.content as a
// string or an array of blocks (text, thinking, tool_use, tool_result with
// is_error), summary, system, progress, file-history-snapshot and
// queue-operation lines; see the Claude Code docs on sessions
// (https://docs.claude.com/en/docs/claude-code/sdk/sdk-sessions) and the
// Messages API content blocks
// (https://docs.anthropic.com/en/api/messages: text, thinking, tool_use,
// tool_result.is_error).
func TestParseClaudeCode(t *testing.T) {
	t.Run("ErrRejectsByDefault", func(t *testing.T) {
		_, rep, err := parse(t, "claude-session.jsonl", transcript.Options{})
		var ie *governance.ImportError
		if !errors.As(err, &ie) {
			t.Fatalf("err = %v, want an ImportError", err)
		}
		if got, want := malformedLines(rep), []int{9}; !slices.Equal(got, want) {
			t.Fatalf("malformed lines = %v, want %v", got, want)
		}
		if !strings.Contains(ie.Error(), "line 9: invalid JSON") {
			t.Errorf("error = %s", ie.Error())
		}
	})
	t.Run("OK", func(t *testing.T) {
		events, rep, err := parse(t, "claude-session.jsonl", transcript.Options{SkipMalformed: true, Subject: "dev"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Format != transcript.FormatClaudeCode || rep.MalformedCount != 1 || rep.Lines != 18 {
			t.Fatalf("report = %+v", rep)
		}
		// summary, file-history-snapshot, progress, system, queue-operation.
		if rep.Ignored != 5 {
			t.Errorf("ignored = %d, want 5", rep.Ignored)
		}
		first := byID(events, "cc:a1f0c3e2-0000-4000-8000-000000000001")
		if first == nil || first.Role != governance.RoleUser || first.SubjectID != "dev" || first.Turn != 1 ||
			!first.OccurredAt.Equal(time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)) {
			t.Fatalf("first user event = %+v", first)
		}
		// Three lines share message id msg_01A: one event, thinking left out.
		a := byID(events, "cc:msg_01A")
		if a == nil || a.Text != "I'll run the CI build locally.\n[Bash] npm run ci:build" || a.Role != governance.RoleAssistant {
			t.Fatalf("assembled assistant message = %+v", a)
		}
		failed := byID(events, "cc:toolu_01B")
		if failed == nil || failed.Status != governance.StatusFailed || failed.Tool != "Bash" || !strings.Contains(failed.Text, "wanted node >=20") {
			t.Fatalf("failed tool result = %+v", failed)
		}
		passed := byID(events, "cc:toolu_01D")
		if passed == nil || passed.Status != governance.StatusPassed || passed.Text != "build ok in 41s" {
			t.Fatalf("passed tool result = %+v", passed)
		}
		rejected := byID(events, "cc:toolu_02B")
		if rejected == nil || rejected.Status != governance.StatusRejected || rejected.SessionID != "9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f" {
			t.Fatalf("rejected tool call = %+v", rejected)
		}
		sessions := map[string]int{}
		for _, e := range events {
			sessions[e.SessionID]++
		}
		if len(sessions) != 2 || sessions["5b1e7f3a-2c4d-4e6f-8a9b-0c1d2e3f4a5b"] != 6 || sessions["9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f"] != 4 {
			t.Errorf("events per session = %v", sessions)
		}
		// Turns count per session, in file order.
		second := byID(events, "cc:b2f0c3e2-0000-4000-8000-000000000004")
		if second == nil || second.Turn != 4 {
			t.Errorf("last event of the second session = %+v", second)
		}
	})
	t.Run("SidechainJoinsParent", func(t *testing.T) {
		events, _, err := parse(t, "claude-subagent.jsonl", transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 3 {
			t.Fatalf("got %d events, want 3", len(events))
		}
		for _, e := range events {
			if e.SessionID != "5b1e7f3a-2c4d-4e6f-8a9b-0c1d2e3f4a5b" {
				t.Errorf("event %s in session %s, want the parent's", e.ID, e.SessionID)
			}
			if e.Role == governance.RoleUser {
				t.Errorf("the parent agent's prompt %q was recorded as the user's", e.Text)
			}
		}
		if tool := events[2]; tool.Tool != "Grep" || tool.Status != governance.StatusPassed {
			t.Errorf("subagent tool result = %+v", tool)
		}
	})
}

// The fixture follows the rollout format Codex CLI writes under
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl: {timestamp, type, payload}
// lines of session_meta, turn_context, response_item (message, reasoning,
// function_call, function_call_output, custom_tool_call and its output),
// event_msg (user_message, agent_message, exec_command_end, token_count) and
// compacted, as defined by the protocol types of the openai/codex repository
// (codex-rs/protocol/src/models.rs ResponseItem, protocol.rs EventMsg,
// RolloutItem) and described at https://developers.openai.com/codex.
func TestParseCodex(t *testing.T) {
	events, rep, err := parse(t, "codex-rollout.jsonl", transcript.Options{SkipMalformed: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != transcript.FormatCodex {
		t.Fatalf("format = %s", rep.Format)
	}
	if got, want := malformedLines(rep), []int{24, 25}; !slices.Equal(got, want) {
		t.Fatalf("malformed = %v, want %v (%+v)", got, want, rep.Malformed)
	}
	var got []string
	for _, e := range events {
		s := string(e.Role)
		if e.Status != "" {
			s += ":" + e.Tool + ":" + e.Status
		}
		got = append(got, s)
	}
	want := []string{
		"user",              // the request; instructions and environment context skipped, event_msg copy skipped
		"assistant",         // [shell] go test
		"tool:shell:failed", // metadata exit_code 1
		"assistant",         // agent_message (its response_item copy skipped)
		"assistant",         // [apply_patch]
		"tool:apply_patch:passed",
		"assistant",         // [shell] go test
		"tool:shell:passed", // "Exit code: 0"
		"assistant",         // [shell] go vet
		"tool:shell:passed", // "Process exited with code 0"
		"assistant",         // [shell] go build
		"tool:shell:failed", // exit code from the later exec_command_end
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events =\n%v\nwant\n%v", got, want)
	}
	for _, e := range events {
		if e.SessionID != "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5" || !strings.HasPrefix(e.ID, "cx:019a2d7a-41c4-78b1-b7cc-a45d62a89cd5:") {
			t.Errorf("event %s in session %s", e.ID, e.SessionID)
		}
	}
	if events[1].Text != "[shell] go test ./migrate/..." {
		t.Errorf("call rendered as %q", events[1].Text)
	}
	if !strings.Contains(events[0].Text, "from now on run go vet") {
		t.Errorf("user text = %q", events[0].Text)
	}
	t.Run("ErrRejectsByDefault", func(t *testing.T) {
		_, _, err := parse(t, "codex-rollout.jsonl", transcript.Options{})
		var ie *governance.ImportError
		if !errors.As(err, &ie) || len(ie.Lines) != 2 {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestParseSeed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	body := `{"event_id":"s-1","project_id":"travel-agent","session_id":"a","turn":1,"role":"user","text":"你好"}
{"event_id":"s-2","project_id":"travel-agent","session_id":"a","turn":2,"role":"tool","tool":"route_checker","status":"failed","text":"{}"}
`
	name := write("seed.jsonl", body)
	run := func(opts transcript.Options) ([]*governance.Event, *transcript.Report, error) {
		opts.Name, opts.Now = name, importTime
		var events []*governance.Event
		rep, err := transcript.ParseFile(context.Background(), filepath.Join(dir, name), opts, func(e *governance.Event) error {
			events = append(events, e)
			return nil
		})
		return events, rep, err
	}
	t.Run("SelectsProject", func(t *testing.T) {
		events, rep, err := run(transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Format != transcript.FormatSeed || rep.Project != "travel-agent" || len(events) != 2 {
			t.Fatalf("report = %+v, %d events", rep, len(events))
		}
		if events[0].ID != "s-1" || !events[0].OccurredAt.Equal(importTime.Add(time.Millisecond)) ||
			!events[1].OccurredAt.Equal(importTime.Add(2*time.Millisecond)) || events[1].Source != governance.SourceTool {
			t.Errorf("events = %+v %+v", events[0], events[1])
		}
	})
	t.Run("ErrOtherProject", func(t *testing.T) {
		_, rep, err := run(transcript.Options{Project: "expense-agent"})
		var ie *governance.ImportError
		if !errors.As(err, &ie) || rep.MalformedCount != 2 || !strings.Contains(ie.Error(), `project_id "travel-agent" is not the target project "expense-agent"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

// The OpenAI chat-completions message format: role, content (a string or
// an array of parts), tool_calls [{id, type: "function", function: {name,
// arguments}}] and tool messages with tool_call_id
// (https://platform.openai.com/docs/api-reference/chat/create).
func TestParseOpenAI(t *testing.T) {
	dir := t.TempDir()
	body := `[
  {"role": "system", "content": "You are a coding assistant."},
  {"role": "user", "content": [{"type": "text", "text": "Run the linter, and going forward always lint before committing."}]},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "run", "arguments": "{\"command\": \"golangci-lint run\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "{\"exit_code\": 1, \"output\": \"main.go:3: unused variable x\"}"},
  {"role": "assistant", "content": "Removed the unused variable."},
  {"role": "robot", "content": "?"}
]`
	if err := os.WriteFile(filepath.Join(dir, "chat.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var events []*governance.Event
	rep, err := transcript.ParseFile(context.Background(), filepath.Join(dir, "chat.json"), transcript.Options{SkipMalformed: true, Now: importTime},
		func(e *governance.Event) error { events = append(events, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != transcript.FormatOpenAI || rep.Ignored != 1 || !slices.Equal(malformedLines(rep), []int{6}) || len(events) != 4 {
		t.Fatalf("report = %+v, %d events", rep, len(events))
	}
	// The session comes from the conversation's opening, not the file name.
	if tool := events[2]; tool.Tool != "run" || tool.Status != governance.StatusFailed || !strings.HasPrefix(tool.SessionID, "chat-") ||
		tool.ID != "oa:"+tool.SessionID+":4" {
		t.Errorf("tool event = %+v", tool)
	}
	if events[1].Text != "[run] golangci-lint run" {
		t.Errorf("call = %q", events[1].Text)
	}
}

func TestDetect(t *testing.T) {
	for name, want := range map[string]transcript.Format{
		"claude-session.jsonl":  transcript.FormatClaudeCode,
		"claude-subagent.jsonl": transcript.FormatClaudeCode,
		"codex-rollout.jsonl":   transcript.FormatCodex,
	} {
		_, rep, _ := parse(t, name, transcript.Options{SkipMalformed: true})
		if rep.Format != want {
			t.Errorf("%s: format %q, want %q", name, rep.Format, want)
		}
	}
	rep, err := transcript.Parse(context.Background(), strings.NewReader(`{"hello":"world"}`), transcript.Options{}, func(*governance.Event) error { return nil })
	var ie *governance.ImportError
	if rep.Format != transcript.FormatMnemo || !errors.As(err, &ie) || !strings.Contains(ie.Error(), "line 1: invalid JSON") {
		t.Errorf("undetectable input: format %s, err = %v", rep.Format, err)
	}
	if _, err := transcript.Parse(context.Background(), strings.NewReader(" \n"), transcript.Options{}, func(*governance.Event) error { return nil }); governance.ErrorCode(err) != governance.EINVALID {
		t.Errorf("empty input: err = %v", err)
	}
	if _, err := transcript.ParseFormat("claude"); err != nil {
		t.Error(err)
	}
	if _, err := transcript.ParseFormat("word"); governance.ErrorCode(err) != governance.EINVALID {
		t.Errorf("unknown format: err = %v", err)
	}
}

// TestClaudeCodeEndCommand: the echo of /exit (or /quit, /clear) that
// Claude Code writes as a user line ends its session with a session_end
// event; other command echoes are skipped as before.
func TestClaudeCodeEndCommand(t *testing.T) {
	body := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-1","version":"2.0.14","type":"user","message":{"role":"user","content":"Fix the flaky test."},"uuid":"u1","timestamp":"2025-11-03T09:00:00.000Z"}
{"parentUuid":"u1","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-1","version":"2.0.14","type":"user","message":{"role":"user","content":"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>"},"uuid":"u2","timestamp":"2025-11-03T09:01:00.000Z"}
{"parentUuid":"u2","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s-1","version":"2.0.14","type":"user","message":{"role":"user","content":"<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>"},"uuid":"u3","timestamp":"2025-11-03T09:02:00.000Z"}
`
	var events []*governance.Event
	rep, err := transcript.Parse(context.Background(), strings.NewReader(body), transcript.Options{Format: transcript.FormatClaudeCode},
		func(e *governance.Event) error { events = append(events, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || rep.Ignored != 1 {
		t.Fatalf("%d events, %d ignored; want the message and the end, the /model echo ignored", len(events), rep.Ignored)
	}
	if end := events[1]; end.Kind != governance.KindSessionEnd || end.ID != "cc:u3" || end.SessionID != "s-1" || end.Text != "exit" {
		t.Fatalf("end = %+v", end)
	}
}

// TestTurnsAcrossManySessions: a parse remembers the last turn of a
// bounded number of sessions, yet a session that thousands of others
// interrupt keeps counting its turns.
func TestTurnsAcrossManySessions(t *testing.T) {
	var b strings.Builder
	line := func(session, uuid string) {
		fmt.Fprintf(&b, `{"type":"user","sessionId":%q,"uuid":%q,"timestamp":"2025-11-03T09:00:00Z","message":{"role":"user","content":"hello"}}`+"\n", session, uuid)
	}
	line("a", "a1")
	for i := range 6000 {
		line(fmt.Sprintf("s%d", i), fmt.Sprintf("u%d", i))
	}
	line("a", "a2")
	var turns []int
	_, err := transcript.Parse(context.Background(), strings.NewReader(b.String()), transcript.Options{Format: transcript.FormatClaudeCode},
		func(e *governance.Event) error {
			if e.SessionID == "a" {
				turns = append(turns, e.Turn)
			}
			return nil
		})
	if err != nil || fmt.Sprint(turns) != "[1 2]" {
		t.Fatalf("turns of a = %v, %v; want [1 2]", turns, err)
	}
}

// TestLongLines: a line longer than the read buffer is read whole, a line
// over MaxLineBytes is reported malformed without being kept, and the
// lines around both are read as usual.
func TestLongLines(t *testing.T) {
	line := func(uuid, text string) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"s","uuid":%q,"timestamp":"2025-11-03T09:00:00Z","message":{"role":"user","content":%q}}`+"\n", uuid, text)
	}
	long := strings.Repeat("word ", 40_000) // 200 KB: several reads of the buffer
	in := line("u1", "first") + line("u2", long) + line("u3", strings.Repeat("x", transcript.MaxLineBytes)) + line("u4", "last")
	var texts []string
	rep, err := transcript.Parse(context.Background(), strings.NewReader(in), transcript.Options{Format: transcript.FormatClaudeCode, SkipMalformed: true},
		func(e *governance.Event) error { texts = append(texts, e.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 3 || texts[0] != "first" || !strings.HasPrefix(texts[1], "word word") || texts[2] != "last" {
		t.Fatalf("events = %d %.20q", len(texts), texts)
	}
	if got := malformedLines(rep); fmt.Sprint(got) != "[3]" {
		t.Fatalf("malformed = %v, want [3]", got)
	}
}
