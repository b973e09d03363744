package governance

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
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

// Tool statuses that code (never the model) interprets.
const (
	StatusPassed = "passed"
	StatusFailed = "failed"
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
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	checkString := func(name, v string, max int, required bool) {
		switch {
		case required && strings.TrimSpace(v) == "":
			add("%s is required", name)
		case !utf8.ValidString(v):
			add("%s is not valid UTF-8", name)
		case len(v) > max:
			add("%s is longer than %d bytes", name, max)
		}
	}
	checkString("id", e.ID, MaxIDBytes, true)
	checkString("session_id", e.SessionID, MaxIDBytes, true)
	checkString("subject_id", e.SubjectID, MaxIDBytes, false)
	checkString("tool", e.Tool, MaxToolBytes, false)
	checkString("status", e.Status, MaxStatusBytes, false)
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
	Inserted   int      `json:"inserted"`
	Skipped    int      `json:"skipped"`
	SkippedIDs []string `json:"skipped_ids,omitempty"`
}

// LineError names one invalid line (or item) of an import.
type LineError struct {
	Line     int      `json:"line"`
	Problems []string `json:"problems"`
}

// ImportError rejects a whole batch; nothing was written.
type ImportError struct {
	Lines []LineError
}

func (e *ImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "import rejected: %d invalid line(s), nothing written", len(e.Lines))
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\nline %d: %s", l.Line, strings.Join(l.Problems, "; "))
	}
	return b.String()
}

// EventService is the raw layer.
type EventService interface {
	// IngestEvents validates and stores a batch all-or-nothing; events whose
	// id already exists in the project are skipped and counted.
	IngestEvents(ctx context.Context, projectID int64, events []*Event) (*ImportResult, error)
	FindEventBySeq(ctx context.Context, seq int64) (*Event, error)
	FindEvents(ctx context.Context, filter EventFilter) ([]*Event, int, error)
	SearchEvents(ctx context.Context, filter EventFilter) ([]*EventHit, int, error)
	FindSessions(ctx context.Context, filter SessionFilter) ([]*SessionInfo, int, error)
}
