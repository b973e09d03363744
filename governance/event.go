package governance

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Role of the speaker of a raw event.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Source says where an event's text came from. External content (web pages,
// mail, feeds) is untrusted: it can never alone promote a memory.
type Source string

const (
	SourceConversation Source = "conversation"
	SourceTool         Source = "tool"
	SourceExternal     Source = "external"
)

// EventKind distinguishes ordinary messages from the explicit end of a session.
type EventKind string

const (
	KindMessage    EventKind = "message"
	KindSessionEnd EventKind = "session_end"
)

// Tool statuses that code (never the model) interprets. A tool call the
// person turned down or interrupted (an agent's permission prompt, Esc)
// did not run: it neither passed nor failed a check.
const (
	StatusPassed      = "passed"
	StatusFailed      = "failed"
	StatusRejected    = "rejected"
	StatusInterrupted = "interrupted"
)

// Limits on a single event.
const (
	MaxEventTextBytes = 32 << 10
	MaxIDBytes        = 128
	MaxToolBytes      = 64
	MaxStatusBytes    = 32
)

// RedactedText replaces the text of an event removed by a forget.
const RedactedText = "[forgotten]"

// Event is one raw, append-only record sent by an agent.
type Event struct {
	Seq        int64     `json:"seq,omitempty"`
	ID         string    `json:"id"`
	ProjectID  int64     `json:"-"`
	Project    string    `json:"project,omitempty"`
	SessionID  string    `json:"session_id"`
	SubjectID  string    `json:"subject_id,omitempty"`
	Turn       int       `json:"turn"`
	Kind       EventKind `json:"kind,omitempty"`
	Role       Role      `json:"role,omitempty"`
	Text       string    `json:"text"`
	Tool       string    `json:"tool,omitempty"`
	Status     string    `json:"status,omitempty"`
	Source     Source    `json:"source,omitempty"`
	OccurredAt time.Time `json:"occurred_at"`
	IngestedAt time.Time `json:"ingested_at,omitzero"`
	Redacted   bool      `json:"redacted,omitempty"`
}

// Normalize fills defaults (kind message, source conversation, or tool for tool
// events) before validation.
func (e *Event) Normalize() {
	if e.Kind == "" {
		e.Kind = KindMessage
	}
	if e.Source == "" {
		if e.Role == RoleTool {
			e.Source = SourceTool
		} else {
			e.Source = SourceConversation
		}
	}
}

// Validate returns every problem with the event, in field order; nil means valid.
func (e *Event) Validate() []string {
	var out []string
	for _, t := range e.ValidateTexts() {
		out = append(out, t.String())
	}
	return out
}

// ValidateTexts is Validate's problems as their formats and values.
func (e *Event) ValidateTexts() []Text {
	var errs []Text
	add := func(format string, args ...any) { errs = append(errs, Say(format, args...)) }
	check := func(name, v string, max int, required bool, clean func(string) string) {
		switch {
		case required && strings.TrimSpace(v) == "":
			add("%s is required", name)
		case len(v) > max:
			add("%s is longer than %d bytes", name, max)
		default:
			if p := clean(v); p != "" {
				add("%s %s", name, p)
			}
		}
	}
	checkString := func(name, v string, max int, required bool) { check(name, v, max, required, CheckText) }
	checkID := func(name, v string, max int, required bool) { check(name, v, max, required, CheckIdentifier) }
	checkID("id", e.ID, MaxIDBytes, true)
	checkID("session_id", e.SessionID, MaxIDBytes, true)
	checkID("subject_id", e.SubjectID, MaxIDBytes, false)
	checkID("tool", e.Tool, MaxToolBytes, false)
	checkID("status", e.Status, MaxStatusBytes, false)
	if e.Turn < 0 {
		add("turn must be zero or more")
	}
	switch e.Kind {
	case KindMessage:
		checkString("text", e.Text, MaxEventTextBytes, true)
		switch e.Role {
		case RoleUser, RoleAssistant, RoleTool:
		case "":
			add("role is required")
		default:
			add("role %q is not one of user, assistant, tool", string(e.Role))
		}
	case KindSessionEnd:
		checkString("text", e.Text, MaxEventTextBytes, false)
	default:
		add("kind %q is not one of message, session_end", string(e.Kind))
	}
	switch e.Source {
	case SourceConversation, SourceTool, SourceExternal:
	default:
		add("source %q is not one of conversation, tool, external", string(e.Source))
	}
	if e.Status != "" && e.Role != RoleTool {
		add("status is only allowed on tool events")
	}
	if e.OccurredAt.IsZero() {
		add("occurred_at is required (RFC 3339)")
	}
	return errs
}

// EventFilter selects events; nil pointer fields are ignored.
type EventFilter struct {
	ProjectID *int64
	// ProjectIDs restricts to these projects when not nil (an empty slice matches nothing).
	ProjectIDs []int64
	SessionID  *string
	SubjectID  *string
	Role       *Role
	Status     *string
	Source     *Source
	Seq        *int64
	AfterSeq   *int64
	// Query is a full-text query (Chinese substrings and English words).
	Query string
	// Order of search results: SearchRelevance (default) or SearchNewest.
	Order SearchOrder

	Offset int
	Limit  int
}

// SearchOrder orders search results.
type SearchOrder string

const (
	// SearchRelevance puts the events matching the most (and rarest) of the
	// query's words first, newest first among equals.
	SearchRelevance SearchOrder = ""
	// SearchNewest puts the newest matching events first.
	SearchNewest SearchOrder = "newest"
)

// EventHit is an event found by a full-text search, with the matched text
// split into plain and highlighted fragments (never HTML).
type EventHit struct {
	Event     *Event
	Fragments []Fragment
}

// Fragment is a piece of text; Match marks the highlighted pieces.
type Fragment struct {
	Text  string
	Match bool
}

// SessionInfo summarises one session of a project.
type SessionInfo struct {
	ProjectID int64
	SessionID string
	SubjectID string
	Events    int
	Failed    int
	External  int
	FirstAt   time.Time
	LastAt    time.Time
	Ended     bool
	LastSeq   int64
}

// SessionFilter selects sessions of one project.
type SessionFilter struct {
	ProjectID int64
	SubjectID *string
	SessionID *string
	Offset    int
	Limit     int
}

// ImportResult reports what an import or ingest did.
type ImportResult struct {
	Inserted int `json:"inserted"`
	// Replaced counts stored events whose text was completed by a later
	// read (follow mode: a message whose last lines came after its first).
	Replaced   int      `json:"replaced,omitempty"`
	Skipped    int      `json:"skipped"`
	SkippedIDs []string `json:"skipped_ids,omitempty"`
}

// LineError names one invalid line (or item) of an import.
type LineError struct {
	Line     int      `json:"line"`
	Problems []string `json:"problems"`
	// Texts, when it holds one for each problem, are the same sentences
	// as their formats and values, which pages translate.
	Texts []Text `json:"problem_texts,omitempty"`
}

// NewLineError is line's error of problems, kept in English and as Texts.
func NewLineError(line int, problems ...Text) LineError {
	e := LineError{Line: line, Texts: problems}
	for _, p := range problems {
		e.Problems = append(e.Problems, p.String())
	}
	return e
}

// Sentences are the problems as Texts (a problem not kept as one is its
// English, shown as it is).
func (e LineError) Sentences() []Text {
	if len(e.Texts) == len(e.Problems) {
		return e.Texts
	}
	out := make([]Text, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = Text{ID: p}
	}
	return out
}

// MaxReportedErrors bounds how many invalid lines (or items) an import or
// ingest error lists; the rest are only counted, so a huge bad batch cannot
// produce a huge answer.
const MaxReportedErrors = 100

// ImportError rejects a whole batch; nothing was written. Lines holds the
// first MaxReportedErrors problems by line number; Total counts them all.
type ImportError struct {
	Lines []LineError
	Total int
}

// Count is the number of invalid lines, listed or not.
func (e *ImportError) Count() int { return max(e.Total, len(e.Lines)) }

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "import rejected: %d invalid line(s), nothing written", e.Count())
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\nline %d: %s", l.Line, strings.Join(l.Problems, "; "))
	}
	if more := e.Count() - len(e.Lines); more > 0 {
		fmt.Fprintf(&b, "\n… and %d more", more)
	}
	return b.String()
}

// LineErrors collects the problems of a batch, keeping only the first
// MaxReportedErrors by line number and counting the rest. The zero value is
// ready to use.
type LineErrors struct {
	lines []LineError
	total int
}

// Add records the problems of one line (or item).
func (l *LineErrors) Add(line int, problems ...string) {
	l.total++
	if len(l.lines) == MaxReportedErrors {
		if line >= l.lines[len(l.lines)-1].Line {
			return
		}
		l.lines = l.lines[:len(l.lines)-1]
	}
	i, _ := slices.BinarySearchFunc(l.lines, line, func(e LineError, n int) int { return cmp.Compare(e.Line, n+1) })
	l.lines = slices.Insert(l.lines, i, LineError{Line: line, Problems: problems})
}

// Len is the number of lines added.
func (l *LineErrors) Len() int { return l.total }

// Err returns nil when nothing was added, else the *ImportError.
func (l *LineErrors) Err() error {
	if l.total == 0 {
		return nil
	}
	return &ImportError{Lines: l.lines, Total: l.total}
}
