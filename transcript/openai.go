package transcript

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// chatMessage is one OpenAI chat-completions message.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// chatToolCall is a tool call in either stored shape: OpenAI's
// {"id", "type": "function", "function": {"name", "arguments"}} or the flat
// {"id", "name", "arguments"}.
type chatToolCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"arguments"`
	Function *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// chatParser turns chat messages into events; it is shared by the OpenAI
// format and Hermes (whose messages are stored in the same shape).
type chatParser struct {
	*parser
	tools map[string]string
	order []string
	// conv derives the session of a conversation that names none.
	conv *convKey
}

// convKey derives a conversation's session id from its opening: the role
// and text of every message up to and including the first one that becomes
// an event (the system prompt and the first thing said). The file's name
// plays no part, so the same conversation imported from a moved or renamed
// file, or from a longer log of it, gets the same ids and is skipped.
type convKey struct {
	h  hash.Hash
	id string
}

func newConvKey() *convKey { return &convKey{h: sha256.New()} }

func (k *convKey) add(role, text string) {
	if k.id != "" {
		return
	}
	k.h.Write([]byte(role))
	k.h.Write([]byte{0})
	k.h.Write([]byte(text))
	k.h.Write([]byte{0})
}

func (k *convKey) session() string {
	if k.id == "" {
		k.id = "chat-" + hex.EncodeToString(k.h.Sum(nil)[:10])
	}
	return k.id
}

func newChatParser(opts Options, rep *Report, emit Emit) *chatParser {
	return &chatParser{parser: newAgentParser(opts, rep, emit), tools: map[string]string{}}
}

// parseOpenAI reads chat-completions messages: a JSON array of messages, an
// object with a "messages" array, or JSON Lines with one such object per
// line (each line a conversation). Messages are numbered from 1 (the
// report's "line" is the message number, or the line of a JSON Lines file).
// A conversation object's "id", "conversation_id" or "session_id" is its
// session; otherwise the session is derived from the conversation's opening
// (convKey), never from the file name or the line. Ids are the session and
// the message's number in the conversation. There are no timestamps: each
// message gets the import time plus its number in milliseconds.
func parseOpenAI(ctx context.Context, br *bufio.Reader, opts Options, rep *Report, emit Emit) error {
	c := newChatParser(opts, rep, emit)
	head, _ := br.Peek(64 << 10)
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return c.stream(ctx, br, false)
	}
	firstLine, _, _ := bytes.Cut(trimmed, []byte("\n"))
	if len(trimmed) > 0 && trimmed[0] == '{' && !json.Valid(bytes.TrimSpace(firstLine)) {
		return c.stream(ctx, br, true) // one pretty-printed object
	}
	return lines(ctx, br, rep, opts.LineOffset, func(n int, line []byte) error {
		c.line = n
		var conv struct {
			ID             string            `json:"id"`
			ConversationID string            `json:"conversation_id"`
			SessionID      string            `json:"session_id"`
			Messages       []json.RawMessage `json:"messages"`
		}
		if msg := decodeLine(line, &conv); !msg.IsZero() {
			rep.bad(n, msg)
			return nil
		}
		if conv.Messages == nil {
			rep.bad(n, governance.Say("the object has no \"messages\" array"))
			return nil
		}
		session := cmp.Or(conv.SessionID, conv.ConversationID, conv.ID)
		c.conv = nil
		if session == "" {
			c.conv = newConvKey()
		}
		for i, raw := range conv.Messages {
			if err := c.message(n, session, strconv.Itoa(i+1), raw, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// stream walks a top-level array of messages (or, when inObject, finds the
// "messages" key of a top-level object first) one message at a time.
func (c *chatParser) stream(ctx context.Context, r io.Reader, inObject bool) error {
	c.conv = newConvKey()
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil {
		c.rep.bad(1, governance.Say("invalid JSON: %s", err.Error()))
		return nil
	}
	if inObject && !seekKey(dec, "messages") {
		c.rep.bad(1, governance.Say("the object has no \"messages\" array"))
		return nil
	}
	for n := 1; dec.More(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			c.rep.Lines++
			c.rep.bad(n, governance.Say("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: ")))
			return nil // the rest of the stream cannot be read
		}
		c.rep.Lines++
		c.line = n
		if err := c.message(n, "", strconv.Itoa(n), raw, nil); err != nil {
			return err
		}
	}
	return nil
}

// message turns one chat message into events; fill sets what the chat
// format lacks (Hermes gives ids, timestamps and session ends). The event
// id is the session and number; an empty session is derived (c.conv).
func (c *chatParser) message(n int, session, number string, raw json.RawMessage, fill func(*governance.Event)) error {
	var m chatMessage
	if msg := decodeLine(raw, &m); !msg.IsZero() {
		c.rep.bad(n, msg)
		return nil
	}
	text, ok := chatText(m.Content)
	if !ok {
		c.rep.bad(n, governance.Say("content must be a string or an array of parts"))
		return nil
	}
	calls, ok := chatCalls(m.ToolCalls)
	if !ok {
		c.rep.bad(n, governance.Say("tool_calls must be an array of tool calls"))
		return nil
	}
	if session == "" && c.conv != nil {
		c.conv.add(m.Role, text)
	}
	e := &governance.Event{}
	switch m.Role {
	case "user":
		e.Role = governance.RoleUser
	case "assistant":
		e.Role = governance.RoleAssistant
		var parts []string
		if text != "" {
			parts = append(parts, text)
		}
		for _, tc := range calls {
			name, args := tc.Name, tc.Args
			if tc.Function != nil {
				name, args = tc.Function.Name, tc.Function.Args
			}
			c.remember(tc.ID, name)
			parts = append(parts, renderCall(name, argsObject(args)))
		}
		text = strings.Join(parts, "\n")
	case "tool", "function":
		e.Role = governance.RoleTool
		e.Tool = m.Name
		if e.Tool == "" {
			e.Tool = c.tools[m.ToolCallID]
		}
		if e.Tool == "" {
			e.Tool = "tool"
		}
		e.Tool = clipTool(e.Tool)
		e.Status = toolStatus(text)
		text = toolOutput(text)
		if strings.TrimSpace(text) == "" {
			text = "(no output)"
		}
	case "system", "developer":
		c.rep.Ignored++ // the harness's instructions, not the conversation
		return nil
	case "":
		c.rep.bad(n, governance.Say("role is required"))
		return nil
	default:
		c.rep.bad(n, governance.Say("role %q is not one of system, developer, user, assistant, tool", m.Role))
		return nil
	}
	if strings.TrimSpace(text) == "" {
		c.rep.Ignored++
		return nil
	}
	e.Text = text
	if session == "" && c.conv != nil {
		session = c.conv.session()
	}
	e.ID, e.SessionID = shortID("oa:", session+":"+number), session
	if fill != nil {
		fill(e)
	}
	return c.send(e)
}

func (c *chatParser) remember(id, name string) {
	if id == "" {
		return
	}
	if len(c.order) >= maxToolNames {
		delete(c.tools, c.order[0])
		c.order = c.order[1:]
	}
	c.tools[id] = name
	c.order = append(c.order, id)
}

// chatText reads content: null, a string, or parts of which text is kept.
func chatText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s), true
	}
	var parts []codexPart
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" || p.Type == "input_text" || p.Type == "output_text" {
			out = append(out, p.Text)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n")), true
}

// chatCalls reads tool_calls: absent, an array, or an array stored as a
// JSON string.
func chatCalls(raw json.RawMessage) ([]chatToolCall, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil, true
		}
		raw = json.RawMessage(s)
	}
	var calls []chatToolCall
	if json.Unmarshal(raw, &calls) != nil {
		return nil, false
	}
	return calls, true
}

// argsObject turns arguments (an object, or an object encoded as a JSON
// string, as OpenAI sends them) into an object for renderCall.
func argsObject(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
		b, _ := json.Marshal(map[string]string{"input": s})
		return b
	}
	return raw
}

// toolStatus reads the status of a tool result from what it carries: JSON
// with exit_code, error or is_error, or "Exit code: N" / "Process exited
// with code N" in text. Without any of these the status is unknown ("").
func toolStatus(text string) string {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") {
		var r struct {
			ExitCode *int           `json:"exit_code"`
			Error    any            `json:"error"`
			IsError  *bool          `json:"is_error"`
			Success  *bool          `json:"success"`
			Metadata map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(t), &r); err == nil {
			switch {
			case r.ExitCode != nil:
				return exitStatus(*r.ExitCode)
			case r.IsError != nil:
				if *r.IsError {
					return governance.StatusFailed
				}
				return governance.StatusPassed
			case hasError(r.Error):
				return governance.StatusFailed
			case r.Success != nil:
				if *r.Success {
					return governance.StatusPassed
				}
				return governance.StatusFailed
			}
			if code, ok := r.Metadata["exit_code"].(float64); ok {
				return exitStatus(int(code))
			}
			if r.Error != nil || strings.Contains(t, `"error"`) {
				return governance.StatusPassed // an explicit null or empty error
			}
			return ""
		}
	}
	_, code, _ := codexOutput(mustJSONString(t))
	if code != nil {
		return exitStatus(*code)
	}
	return ""
}

// toolOutput is what a tool printed, when its result is the JSON wrapper
// Hermes and other harnesses store ({"output": "…", "exit_code": 1,
// "error": "…"}): the output, decoded (its escaped terminal codes become
// the codes cleanText reads), then the error. Any other text is kept.
func toolOutput(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, `"output"`) {
		return text
	}
	var r struct {
		Output *string `json:"output"`
		Error  any     `json:"error"`
	}
	if json.Unmarshal([]byte(t), &r) != nil || r.Output == nil {
		return text
	}
	out := *r.Output
	if msg, ok := r.Error.(string); ok && strings.TrimSpace(msg) != "" {
		out = strings.TrimRight(out, "\n") + "\nerror: " + msg
	}
	return out
}

func hasError(v any) bool {
	switch e := v.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(e) != ""
	case bool:
		return e
	case map[string]any:
		return len(e) > 0
	}
	return true
}

func mustJSONString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// seekKey advances dec, inside an object, to the opening of key's array
// value, skipping the values of other keys.
func seekKey(dec *json.Decoder, key string) bool {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if k, ok := tok.(string); ok && k == key {
			open, err := dec.Token()
			return err == nil && open == json.Delim('[')
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
