package transcript

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// codexLine is one line of a Codex CLI rollout
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): {timestamp, type, payload}.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Role     string          `json:"role"`
	Content  json.RawMessage `json:"content"`
	Name     string          `json:"name"`
	CallID   string          `json:"call_id"`
	Args     string          `json:"arguments"`
	Input    string          `json:"input"`
	Output   json.RawMessage `json:"output"`
	Message  string          `json:"message"`
	ExitCode *int            `json:"exit_code"`
}

type codexPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexBoilerplate opens user-role text that Codex injects: the AGENTS.md
// instructions, the environment context and other harness blocks.
var codexBoilerplate = []string{
	"<user_instructions>", "<environment_context>", "# AGENTS.md instructions for", "<permissions instructions>",
	"<user_shell_command>", "<turn_aborted>", "<INSTRUCTIONS>",
}

var (
	exitCodeRe  = regexp.MustCompile(`(?m)^Exit code: (-?\d+)`)
	processExit = regexp.MustCompile(`Process exited with code (-?\d+)`)
)

// codexParser holds one rollout's state: its session, the names of recent
// tool calls, exit codes seen in exec_command_end before the output, tool
// outputs waiting for their exit code, and recent texts (a message appears
// both as a response_item and as an event_msg; the first one counts).
type codexParser struct {
	*parser
	session  string
	tools    map[string]string
	order    []string
	exits    map[string]int
	waiting  []*codexWaiting
	recent   [16]uint64
	recentAt int
}

type codexWaiting struct {
	e      *governance.Event
	callID string
	line   int
}

// parseCodex reads a Codex CLI rollout. User and assistant messages become
// events (developer messages, reasoning, the injected instructions and
// environment context are skipped); each function_call and custom_tool_call
// becomes a one-line assistant event, each output a tool event whose status
// comes from the exit code: in the output's metadata, in "Exit code: N" or
// "Process exited with code N", or in the exec_command_end of the same call.
// A call the person interrupted ("aborted") is interrupted, one the person
// or Codex's approval reviewer declined is rejected (codexDeclined), never
// failed: the tool did not run, so there is nothing to learn from its
// output. The session id is session_meta's id (else the uuid in the file name).
// Ids never depend on line numbers or the file name (see codexID).
//
// How a Codex session ends: it does not, in the rollout. Codex persists a
// fixed list of its events (codex-rs/core/src/rollout/policy.rs in the
// openai/codex repository); its shutdown event is not among them, so no
// line says a session was closed. What a rollout does record is the end of
// each turn: event_msg task_complete (the agent answered and waits) or
// turn_aborted (the person interrupted it). Neither ends the session, since
// `codex resume` reopens the same file for appending (no new session_meta)
// and the conversation goes on there, in the same session; a fork starts a
// new file with a session id of its own. So a Codex session ends by the
// heartbeat's idle time counted from its last line, and lines a resume
// appends later join the same session (TestFollowCodexResume). Turn
// boundaries are not events: task_started, task_complete and turn_aborted
// are skipped with the other bookkeeping.
// codexDeclined reports whether out is what Codex records for a call that
// never ran because approval was refused: the person's "no" to a command
// or a patch (exact texts), or a refusal by its automatic approval
// reviewer (a fixed sentence, then the reviewer's rationale).
func codexDeclined(out string) bool {
	out = strings.TrimSpace(out)
	return out == "exec command rejected by user" || out == "patch rejected by user" ||
		strings.HasPrefix(out, "This action was rejected due to unacceptable risk.")
}

func parseCodex(ctx context.Context, br *bufio.Reader, opts Options, rep *Report, emit Emit) error {
	c := &codexParser{parser: newAgentParser(opts, rep, emit), session: codexSessionFromName(opts.Name),
		tools: map[string]string{}, exits: map[string]int{}}
	err := lines(ctx, br, rep, opts.LineOffset, func(n int, line []byte) error {
		c.line = n
		var l codexLine
		if msg := decodeLine(line, &l); !msg.IsZero() {
			rep.bad(n, msg)
			return nil
		}
		if l.Type == "" || len(l.Payload) == 0 {
			rep.bad(n, governance.Say("line needs type and payload"))
			return nil
		}
		var p codexPayload
		if json.Unmarshal(l.Payload, &p) != nil {
			rep.bad(n, governance.Say("payload is not an object of the expected shape"))
			return nil
		}
		var at time.Time
		if l.Timestamp != "" {
			t, err := time.Parse(time.RFC3339Nano, l.Timestamp)
			if err != nil {
				rep.bad(n, governance.Say("timestamp is not an RFC 3339 time"))
				return nil
			}
			at = t.UTC()
		}
		return c.item(n, l.Type, &p, at)
	})
	if err != nil {
		return err
	}
	return c.release(true)
}

// codexID names an event of the rollout by what it is, never by its line
// number: a tool call and its output by their call_id, a message by its
// role, time and text. A session resumed or copied into another file, or a
// file with lines added before, gives the same ids, so a re-import skips.
func (c *codexParser) codexID(kind, key string) string {
	return shortID("cx:", c.session+":"+kind+":"+key)
}

// messageKey is a message's role, timestamp and text, hashed.
func messageKey(role governance.Role, at time.Time, text string) string {
	h := sha256.New()
	h.Write([]byte(role))
	h.Write([]byte{0})
	h.Write([]byte(at.UTC().Format(time.RFC3339Nano)))
	h.Write([]byte{0})
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func (c *codexParser) item(n int, typ string, p *codexPayload, at time.Time) error {
	callID := func(kind string, role governance.Role, text string) string {
		if p.CallID != "" {
			return c.codexID(kind, p.CallID)
		}
		return c.codexID(kind, messageKey(role, at, text))
	}
	switch typ {
	case "session_meta":
		if p.ID != "" {
			c.session = p.ID
		}
		c.rep.Ignored++
		return nil
	case "response_item":
		switch p.Type {
		case "message":
			if err := c.release(true); err != nil {
				return err
			}
			role := governance.Role(p.Role)
			if role != governance.RoleUser && role != governance.RoleAssistant {
				c.rep.Ignored++ // developer and system messages are the harness's
				return nil
			}
			text := codexText(p.Content)
			if text == "" || hasAnyPrefix(text, codexBoilerplate) || c.repeated(role, text) {
				c.rep.Ignored++
				return nil
			}
			return c.send(&governance.Event{ID: c.codexID(string(role), messageKey(role, at, text)), SessionID: c.session, Role: role, Text: text, OccurredAt: at})
		case "function_call", "custom_tool_call", "local_shell_call":
			if err := c.release(true); err != nil {
				return err
			}
			c.remember(p.CallID, p.Name)
			args := json.RawMessage(p.Args)
			if p.Type == "custom_tool_call" {
				args, _ = json.Marshal(map[string]string{"input": p.Input})
			}
			if !json.Valid(args) {
				args = nil
			}
			name := p.Name
			if name == "" {
				name = "shell"
			}
			text := renderCall(name, args)
			return c.send(&governance.Event{ID: callID("call", governance.RoleAssistant, text), SessionID: c.session, Role: governance.RoleAssistant, Text: text, OccurredAt: at})
		case "function_call_output", "custom_tool_call_output":
			out, code, ok := codexOutput(p.Output)
			if !ok {
				c.rep.bad(n, governance.Say("output must be a string"))
				return nil
			}
			if strings.TrimSpace(out) == "" {
				out = "(no output)"
			}
			aborted := strings.TrimSpace(out) == "aborted" // what Codex records for a call the person interrupted
			declined := codexDeclined(out)
			tool := c.tools[p.CallID]
			if tool == "" {
				tool = "tool"
			}
			e := &governance.Event{ID: callID("out", governance.RoleTool, out), SessionID: c.session, Role: governance.RoleTool, Tool: clipTool(tool), Text: out, OccurredAt: at}
			if aborted && code == nil {
				e.Status = governance.StatusInterrupted
				return c.send(e)
			}
			if declined {
				e.Status = governance.StatusRejected
				return c.send(e)
			}
			if code == nil {
				if x, ok := c.exits[p.CallID]; ok {
					code = &x
				}
			}
			if code != nil {
				e.Status = exitStatus(*code)
				return c.send(e)
			}
			if p.Type == "custom_tool_call_output" || p.CallID == "" {
				return c.send(e) // no exit code will come: status unknown
			}
			c.waiting = append(c.waiting, &codexWaiting{e: e, callID: p.CallID, line: n})
			return nil
		}
		c.rep.Ignored++ // reasoning and other items: not something said
		return nil
	case "event_msg":
		switch p.Type {
		case "user_message", "agent_message":
			role := governance.RoleUser
			if p.Type == "agent_message" {
				role = governance.RoleAssistant
			}
			text := strings.TrimSpace(p.Message)
			if text == "" || hasAnyPrefix(text, codexBoilerplate) || c.repeated(role, text) {
				c.rep.Ignored++
				return nil
			}
			if err := c.release(true); err != nil {
				return err
			}
			return c.send(&governance.Event{ID: c.codexID(string(role), messageKey(role, at, text)), SessionID: c.session, Role: role, Text: text, OccurredAt: at})
		case "task_started", "task_complete", "turn_aborted":
			c.rep.Ignored++ // turn boundaries, not the session's end (see parseCodex)
			return nil
		case "exec_command_end":
			if p.ExitCode != nil && p.CallID != "" {
				c.setExit(p.CallID, *p.ExitCode)
			}
			c.rep.Ignored++
			return c.release(false)
		}
		c.rep.Ignored++
		return nil
	}
	// turn_context, compacted (a model-written summary of earlier turns,
	// whose turns were recorded when they happened) and anything newer.
	c.rep.Ignored++
	return nil
}

// release sends the tool outputs waiting for an exit code: those whose code
// is now known, or all of them when the conversation has moved on.
func (c *codexParser) release(all bool) error {
	keep := c.waiting[:0]
	for _, w := range c.waiting {
		code, ok := c.exits[w.callID]
		if !ok && !all {
			keep = append(keep, w)
			continue
		}
		if ok {
			w.e.Status = exitStatus(code)
		}
		line := c.line
		c.line = w.line
		err := c.send(w.e)
		c.line = line
		if err != nil {
			return err
		}
	}
	c.waiting = keep
	return nil
}

func (c *codexParser) remember(id, name string) {
	if id == "" {
		return
	}
	if len(c.order) >= maxToolNames {
		delete(c.tools, c.order[0])
		delete(c.exits, c.order[0])
		c.order = c.order[1:]
	}
	c.tools[id] = name
	c.order = append(c.order, id)
}

func (c *codexParser) setExit(id string, code int) {
	if _, known := c.tools[id]; !known {
		c.remember(id, "shell")
	}
	c.exits[id] = code
}

// repeated reports whether role said text recently (and remembers it).
func (c *codexParser) repeated(role governance.Role, text string) bool {
	h := fnv.New64a()
	h.Write([]byte(role))
	h.Write([]byte{0})
	h.Write([]byte(strings.TrimSpace(text)))
	k := h.Sum64()
	for _, r := range c.recent {
		if r == k {
			return true
		}
	}
	c.recent[c.recentAt%len(c.recent)] = k
	c.recentAt++
	return false
}

func exitStatus(code int) string {
	if code == 0 {
		return governance.StatusPassed
	}
	return governance.StatusFailed
}

// codexText joins the text parts of a message's content.
func codexText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []codexPart
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, p.Text)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// codexOutput reads a tool output and its exit code when it carries one:
// a JSON string {"output", "metadata": {"exit_code"}}, or text with
// "Exit code: N" or "Process exited with code N".
func codexOutput(raw json.RawMessage) (string, *int, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var obj struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &obj) != nil {
			return "", nil, false
		}
		s = obj.Content
	}
	var wrapped struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &wrapped) == nil && wrapped.Output != nil {
		return *wrapped.Output, wrapped.Metadata.ExitCode, true
	}
	for _, re := range []*regexp.Regexp{exitCodeRe, processExit} {
		if m := re.FindStringSubmatch(s); m != nil {
			if code, err := strconv.Atoi(m[1]); err == nil {
				return s, &code, true
			}
		}
	}
	return s, nil, true
}

// codexSessionFromName takes the uuid at the end of rollout-<time>-<uuid>.
func codexSessionFromName(name string) string {
	st := stem(name)
	if len(st) >= 36 {
		tail := st[len(st)-36:]
		if strings.Count(tail, "-") == 4 {
			return tail
		}
	}
	return st
}
