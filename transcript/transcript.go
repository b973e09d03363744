// Package transcript turns the session files of the agents people already
// run into Mnemo's raw events: Claude Code transcripts, Codex CLI rollouts,
// Hermes Agent's state.db, OpenAI chat-completions message arrays, the seed
// pipeline's event JSON Lines and Mnemo's own JSON Lines.
//
// Every parser streams: it reads one line (or one message, or one row) at a
// time and hands each event to a callback, so memory stays bounded whatever
// the size of the file. Event ids are derived from the source (a line's
// uuid, an API message's id, a tool call's id, a row id, a hash of a
// message's role, time and text), never from a line number or a file name,
// so importing the same session twice, from wherever, skips what is
// already present.
//
// Malformed lines are reported by number. By default a file with any
// malformed line is rejected whole (the parser reads to the end so that every
// bad line is listed, and the caller rolls back what it had written);
// Options.SkipMalformed skips and reports them instead.
package transcript

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// Format names a source format.
type Format string

const (
	FormatAuto       Format = ""
	FormatMnemo      Format = "mnemo"
	FormatSeed       Format = "seed"
	FormatClaudeCode Format = "claude-code"
	FormatCodex      Format = "codex"
	FormatHermes     Format = "hermes"
	FormatOpenAI     Format = "openai"
)

// Formats lists the formats in the order they are documented.
var Formats = []Format{FormatMnemo, FormatSeed, FormatClaudeCode, FormatCodex, FormatHermes, FormatOpenAI}

// ParseFormat checks a format name given by a user ("" and "auto" detect).
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "auto":
		return FormatAuto, nil
	case "claude", "claudecode", "claude_code":
		return FormatClaudeCode, nil
	case "jsonl":
		return FormatMnemo, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", governance.Errorf(governance.EINVALID, "Unknown format %q: want auto, %s.", s, formatList())
}

func formatList() string {
	var names []string
	for _, f := range Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Limits that keep an import bounded.
const (
	// MaxLineBytes bounds one line of a JSON Lines file; a longer line is
	// malformed (reported, never buffered whole).
	MaxLineBytes = 4 << 20
	// maxReportedLines bounds the malformed lines listed in a report; the
	// count goes on.
	maxReportedLines = governance.MaxReportedErrors
	// maxToolNames bounds the tool-call ids remembered to name a later result.
	maxToolNames = 4096
)

// Options control one parse.
type Options struct {
	// Format forces a format; FormatAuto detects it.
	Format Format
	// Name is the file name, used for a session id when the source has none.
	Name string
	// Project is the target project's slug. The seed format checks each
	// line's project_id against it.
	Project string
	// Subject is the subject id given to events whose source names none.
	Subject string
	// SkipMalformed skips and reports malformed lines instead of rejecting
	// the whole file (the default).
	SkipMalformed bool
	// Now is the import time; events without a timestamp get Now plus their
	// position in the file in milliseconds, so file order is kept.
	Now time.Time
	// LineOffset is the number of lines before the input (follow mode
	// reads a file from a checkpoint): the line numbers of a report
	// continue from it.
	LineOffset int
	// LastTurn, when set, gives the last turn a session already has
	// (follow mode reads a session over many polls), so that the turns of
	// the events read now continue after it instead of starting at 1.
	LastTurn func(sessionID string) int
}

// Report says what a parse read.
type Report struct {
	Format Format `json:"format"`
	// Lines read (rows for Hermes, messages for OpenAI arrays).
	Lines int `json:"lines"`
	// Events handed to the callback.
	Events int `json:"events"`
	// Ignored counts lines skipped on purpose (metadata, reasoning,
	// boilerplate, summaries, progress).
	Ignored int `json:"ignored"`
	// Cleaned counts the events of an agent's transcript whose text held
	// terminal control sequences or control characters, read on import
	// (cleanText).
	Cleaned int `json:"cleaned"`
	// Malformed lists bad lines (at most 200; MalformedCount has them all).
	Malformed      []governance.LineError `json:"malformed,omitempty"`
	MalformedCount int                    `json:"malformed_count"`
	// Project is the project named by the file (seed format), if any.
	Project string `json:"project,omitempty"`
	// OpenID is the id of the message the input ended in when more of it
	// may follow (a Claude Code assistant message: its lines share
	// message.id), and OpenLine the number of its first line. Follow mode
	// reads again from there at its next poll; a whole-file import ignores
	// them.
	OpenID   string `json:"-"`
	OpenLine int    `json:"-"`
	// Clipped counts the events whose text was longer than an event holds
	// (governance.MaxEventTextBytes) and was cut to it; ClippedLines are
	// their lines (at most 200).
	Clipped      int   `json:"clipped,omitempty"`
	ClippedLines []int `json:"clipped_lines,omitempty"`
}

// clipped records that the text of line's event was cut.
func (r *Report) clipped(line int) {
	if n := len(r.ClippedLines); n > 0 && r.ClippedLines[n-1] == line {
		return
	}
	r.Clipped++
	if len(r.ClippedLines) < maxReportedLines {
		r.ClippedLines = append(r.ClippedLines, line)
	}
}

func (r *Report) bad(line int, problems ...governance.Text) {
	r.MalformedCount++
	if len(r.Malformed) < maxReportedLines {
		r.Malformed = append(r.Malformed, governance.NewLineError(line, problems...))
	}
}

// Emit receives each event in file order.
type Emit func(*governance.Event) error

// parser is the common state of the line-oriented parsers.
type parser struct {
	opts  Options
	rep   *Report
	emit  Emit
	turns turnCounter
	line  int
	// agent: the source is an agent's transcript (Claude Code, Codex,
	// Hermes, OpenAI messages), whose text is cleaned of terminal control
	// sequences and control characters (see cleanText); Mnemo's own
	// formats are checked as the API checks them.
	agent bool
	term  *terminal
}

func newParser(opts Options, rep *Report, emit Emit) *parser {
	return &parser{opts: opts, rep: rep, emit: emit, turns: turnCounter{cur: map[string]int{}}}
}

// newAgentParser is newParser for an agent's transcript (parser.agent).
func newAgentParser(opts Options, rep *Report, emit Emit) *parser {
	p := newParser(opts, rep, emit)
	p.agent = true
	return p
}

// turnGeneration bounds the sessions whose last turn a parse remembers:
// two generations of it (see turnCounter).
const turnGeneration = 4096

// turnCounter is the last turn of each session a parse has seen, in two
// generations, so that a file of any number of sessions costs bounded
// memory: a session is looked up in the current generation, then in the
// previous one (and carried forward); when the current generation holds
// turnGeneration sessions it becomes the previous one and the old previous
// is dropped. A session is forgotten only after at least turnGeneration
// other sessions were seen since its last event; the sources write a
// session's events together (a Claude Code or Codex file is one session
// and its subagents, Hermes is read session by session), so a forgotten
// session does not come back in practice. If one did, its turns would
// start again at 1 (or after Options.LastTurn).
type turnCounter struct {
	cur, prev map[string]int
}

// last returns the last turn of session and whether it is known.
func (t *turnCounter) last(session string) (int, bool) {
	if n, ok := t.cur[session]; ok {
		return n, true
	}
	n, ok := t.prev[session]
	return n, ok
}

func (t *turnCounter) set(session string, turn int) {
	if _, ok := t.cur[session]; !ok && len(t.cur) >= turnGeneration {
		t.prev, t.cur = t.cur, make(map[string]int, turnGeneration)
	}
	t.cur[session] = turn
}

// send fills the turn, subject and defaults of e, validates it and passes it
// on; an invalid event makes its line malformed.
func (p *parser) send(e *governance.Event) error {
	if e.SubjectID == "" {
		e.SubjectID = p.opts.Subject
	}
	if e.Turn == 0 {
		last, seen := p.turns.last(e.SessionID)
		if !seen && p.opts.LastTurn != nil {
			last = p.opts.LastTurn(e.SessionID)
		}
		p.turns.set(e.SessionID, last+1)
		e.Turn = last + 1
	}
	if e.OccurredAt.IsZero() {
		e.OccurredAt = p.derivedTime()
	}
	if p.agent && !p.cleanText(e) {
		p.rep.Ignored++
		return nil
	}
	e.Text = p.clip(e.Text)
	e.Normalize()
	if problems := e.ValidateTexts(); len(problems) > 0 {
		p.rep.bad(p.line, problems...)
		return nil
	}
	p.rep.Events++
	return p.emit(e)
}

// cleanText reads the terminal control sequences and control characters
// of an agent's event text: a tool's output is rendered as the terminal
// showed it (colours dropped, carriage-return progress lines and
// backspace overstrikes applied, cursor movement followed); message text
// only loses them. It counts the events it changed, and reports false for
// a message that held nothing else (it is then skipped, as an empty
// message is).
func (p *parser) cleanText(e *governance.Event) bool {
	if !needsCleaning(e.Text) {
		return true
	}
	if p.term == nil {
		p.term = newTerminal()
	}
	if e.Role == governance.RoleTool {
		e.Text = p.term.render(e.Text)
		if strings.TrimSpace(e.Text) == "" {
			e.Text = "(no output)"
		}
	} else {
		e.Text = p.term.plainText(e.Text)
	}
	p.rep.Cleaned++
	return e.Kind == governance.KindSessionEnd || strings.TrimSpace(e.Text) != ""
}

// derivedTime is the import time plus the current position in milliseconds.
func (p *parser) derivedTime() time.Time {
	now := p.opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	return now.UTC().Truncate(time.Second).Add(time.Duration(p.line) * time.Millisecond)
}

// clip is clipText, recorded in the report when it cuts.
func (p *parser) clip(s string) string {
	if len(s) > governance.MaxEventTextBytes {
		p.clipped()
	}
	return clipText(s)
}

// clipped records that the current line's text was cut.
func (p *parser) clipped() { p.rep.clipped(p.line) }

// clipText cuts text to the event limit at a rune boundary, saying so in
// the text.
func clipText(s string) string {
	const mark = "\n…[truncated]"
	if len(s) <= governance.MaxEventTextBytes {
		return s
	}
	cut := governance.MaxEventTextBytes - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// shortID keeps an id inside the event limit: a long one is replaced by a
// hash of itself, which is just as stable.
func shortID(prefix, id string) string {
	full := prefix + id
	if len(full) <= governance.MaxIDBytes && utf8.ValidString(full) {
		return full
	}
	sum := sha256.Sum256([]byte(id))
	return prefix + hex.EncodeToString(sum[:16])
}

// stem is a file name without directory and extension, for session ids.
func stem(name string) string {
	base := filepath.Base(name)
	if base == "." || base == "/" || base == "" {
		return "import"
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// lines calls fn for every non-blank line of r, numbered from 1. A line
// longer than MaxLineBytes is reported malformed without being buffered.
func lines(ctx context.Context, r io.Reader, rep *Report, offset int, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := offset + 1; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		// A line that fits the reader's buffer is read in place; a longer
		// one is gathered into buf, up to the limit. Either way fn must not
		// keep it.
		long := false
		chunk, err := br.ReadSlice('\n')
		line := chunk
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf[:0], chunk...)
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = br.ReadSlice('\n')
				if long {
					continue
				}
				if len(buf)+len(chunk) > MaxLineBytes+1 {
					long = true
					buf = buf[:0]
				} else {
					buf = append(buf, chunk...)
				}
			}
			line = buf
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read line %d: %w", n, err)
		}
		if long {
			rep.Lines++
			rep.bad(n, governance.Say("line is longer than %d bytes", MaxLineBytes))
		} else if line := bytes.TrimSpace(line); len(line) > 0 {
			rep.Lines++
			if !utf8.Valid(line) {
				rep.bad(n, governance.Say("line is not valid UTF-8"))
			} else if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// decodeLine decodes one JSON object; a problem makes the line malformed.
func decodeLine(line []byte, v any) governance.Text {
	if len(line) == 0 || line[0] != '{' {
		return governance.Say("invalid JSON: not an object")
	}
	if err := json.Unmarshal(line, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return governance.Say("invalid JSON: field %s must be %s", te.Field, te.Type.String())
		}
		return governance.Say("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return governance.Text{}
}

// finish turns the report into the parse result: the rejection of the whole
// file when it has malformed lines and skipping was not asked for.
func finish(rep *Report, opts Options) error {
	if rep.MalformedCount > 0 && !opts.SkipMalformed {
		return &governance.ImportError{Lines: rep.Malformed, Total: rep.MalformedCount}
	}
	return nil
}

// Parse reads r in opts.Format (detected when FormatAuto) and passes each
// event to emit. It returns a *governance.ImportError when a line is
// malformed and opts.SkipMalformed is false; emit has then been called for
// the good lines read so far, and the caller must discard them (the store's
// ImportStream rolls its transaction back). Hermes databases need a file:
// use ParseFile.
func Parse(ctx context.Context, r io.Reader, opts Options, emit Emit) (*Report, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	format := opts.Format
	if format == FormatAuto {
		var err error
		if format, err = Detect(br); err != nil {
			return &Report{}, err
		}
	}
	rep := &Report{Format: format}
	var err error
	switch format {
	case FormatMnemo:
		err = parseMnemo(ctx, br, opts, rep, emit)
	case FormatSeed:
		err = parseSeed(ctx, br, opts, rep, emit)
	case FormatClaudeCode:
		err = parseClaude(ctx, br, opts, rep, emit)
	case FormatCodex:
		err = parseCodex(ctx, br, opts, rep, emit)
	case FormatOpenAI:
		err = parseOpenAI(ctx, br, opts, rep, emit)
	case FormatHermes:
		return rep, governance.Errorf(governance.EINVALID, "A Hermes state.db is a database file: import it by path.")
	default:
		return rep, governance.Errorf(governance.EINVALID, "Unknown format %q.", format)
	}
	if err != nil {
		return rep, err
	}
	return rep, finish(rep, opts)
}

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// Detect guesses the format from the start of the input without consuming
// it. Input that matches no agent's format is read as Mnemo JSON Lines.
func Detect(br *bufio.Reader) (Format, error) {
	head, _ := br.Peek(64 << 10)
	if bytes.HasPrefix(head, []byte(sqliteMagic)) {
		return FormatHermes, nil
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 {
		return "", governance.Errorf(governance.EINVALID, "The file is empty.")
	}
	if trimmed[0] == '[' {
		return FormatOpenAI, nil
	}
	// Look at the first few complete lines: the first may be malformed.
	for i, line := range bytes.SplitN(trimmed, []byte("\n"), 9) {
		if i == 8 {
			break
		}
		if f := detectLine(bytes.TrimSpace(line)); f != FormatAuto {
			return f, nil
		}
	}
	// Nothing else matched: Mnemo's own format, whose per-line errors say
	// what each line lacks.
	return FormatMnemo, nil
}

func detectLine(line []byte) Format {
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		return FormatAuto
	}
	has := func(k string) bool { _, ok := probe[k]; return ok }
	var typ string
	_ = json.Unmarshal(probe["type"], &typ)
	switch {
	case has("payload") && has("type") && has("timestamp"):
		return FormatCodex
	case has("sessionId") || has("leafUuid") || has("uuid") && has("parentUuid"):
		return FormatClaudeCode
	case typ == "summary" || typ == "file-history-snapshot":
		return FormatClaudeCode
	case has("event_id"):
		return FormatSeed
	case has("messages"):
		return FormatOpenAI
	case has("session_id") && has("id"):
		return FormatMnemo
	}
	return FormatAuto
}
