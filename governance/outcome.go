package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// OutcomeVerdict is what an agent says a recalled item (or the whole
// package) did for its task.
type OutcomeVerdict string

const (
	OutcomeHelped     OutcomeVerdict = "helped"
	OutcomeNotUsed    OutcomeVerdict = "not_used"
	OutcomeMisled     OutcomeVerdict = "misled"
	OutcomeConflicted OutcomeVerdict = "conflicted_with_current"
)

// OutcomeVerdicts lists every verdict, helpful first.
var OutcomeVerdicts = []OutcomeVerdict{OutcomeHelped, OutcomeNotUsed, OutcomeMisled, OutcomeConflicted}

// Valid reports whether v is a known verdict.
func (v OutcomeVerdict) Valid() bool { return slices.Contains(OutcomeVerdicts, v) }

// Harmful reports whether v says the memory did damage: it misled the
// agent or contradicted what is current. Harmful reports are what sends
// a rule to review.
func (v OutcomeVerdict) Harmful() bool { return v == OutcomeMisled || v == OutcomeConflicted }

// Limits of an outcome report.
const (
	MaxOutcomeNoteBytes = 2000
	// DefaultOutcomeThreshold is how many harmful reports from different
	// sessions send a rule to review when the project sets nothing else.
	DefaultOutcomeThreshold = 2
	MaxOutcomeThreshold     = 100
)

// OutcomeInput is an agent's report about one recall, as sent.
type OutcomeInput struct {
	// ItemID is a recalled item's id ("rule:7"); "" is the whole package.
	ItemID  string         `json:"item_id,omitempty"`
	Verdict OutcomeVerdict `json:"verdict"`
	Note    string         `json:"note,omitempty"`
	// Task, when given, must be the task the recall was for (its SHA-256
	// is the trace's); a regression case drafted from the report asks
	// recall the same task again.
	Task string `json:"task,omitempty"`
	// SessionID is the agent's session; reports from one session count
	// once towards the review threshold ("" = the recall is its own).
	SessionID string `json:"session_id,omitempty"`
}

// Normalize trims the text fields.
func (in *OutcomeInput) Normalize() {
	in.ItemID = strings.TrimSpace(in.ItemID)
	in.Verdict = OutcomeVerdict(strings.ToLower(strings.TrimSpace(string(in.Verdict))))
	in.Note = strings.TrimSpace(in.Note)
	in.Task = strings.TrimSpace(in.Task)
	in.SessionID = strings.TrimSpace(in.SessionID)
}

// Validate returns an EINVALID error naming the first problem of the
// report's shape (what the trace allows is CheckOutcome's).
func (in *OutcomeInput) Validate() error {
	switch {
	case !in.Verdict.Valid():
		return Errorf(EINVALID, "verdict must be one of helped, not_used, misled, conflicted_with_current.")
	case !utf8.ValidString(in.Note) || !utf8.ValidString(in.Task) || !utf8.ValidString(in.SessionID) || !utf8.ValidString(in.ItemID):
		return Errorf(EINVALID, "item_id, note, task and session_id must be valid UTF-8.")
	case len(in.Note) > MaxOutcomeNoteBytes:
		return Errorf(EINVALID, "note is longer than %d bytes.", MaxOutcomeNoteBytes)
	case len(in.Task) > MaxRecallTaskBytes:
		return Errorf(EINVALID, "task is longer than %d bytes.", MaxRecallTaskBytes)
	case len(in.SessionID) > MaxIDBytes:
		return Errorf(EINVALID, "session_id is longer than %d bytes.", MaxIDBytes)
	}
	if in.ItemID != "" {
		if _, _, ok := ParseRecallID(in.ItemID); !ok {
			return Errorf(EINVALID, "item_id %q is not an item id (rule:N, episode:N or event:N).", in.ItemID)
		}
	}
	return nil
}

// TaskHash is the hex SHA-256 a recall trace keeps of its task.
func TaskHash(task string) string {
	sum := sha256.Sum256([]byte(task))
	return hex.EncodeToString(sum[:])
}

// OutcomeTarget is what a report is checked against: a stored recall's
// scope, its task hash and the items its package included.
type OutcomeTarget struct {
	TraceID   int64
	ProjectID int64
	SubjectID string
	TaskHash  string
	Included  []string
}

// CheckOutcome checks report in against its recall t: the task, when
// given, is the recall's, and the item was in the package. It returns the
// rule the report is about (0 for the whole package or another kind of
// item).
func CheckOutcome(t *OutcomeTarget, in OutcomeInput) (int64, error) {
	if in.Task != "" && TaskHash(in.Task) != t.TaskHash {
		return 0, Errorf(EINVALID, "task is not the task of recall %d.", t.TraceID)
	}
	if in.ItemID == "" {
		return 0, nil
	}
	if !slices.Contains(t.Included, in.ItemID) {
		return 0, Errorf(EINVALID, "%s was not in the package of recall %d.", in.ItemID, t.TraceID)
	}
	if kind, n, _ := ParseRecallID(in.ItemID); kind == RecallKindRule {
		return n, nil
	}
	return 0, nil
}

// OutcomeReport is one stored report: evidence about a memory, never a
// memory itself. Note and Task passed the write gate.
type OutcomeReport struct {
	ID        int64          `json:"id"`
	ProjectID int64          `json:"project_id"`
	TraceID   int64          `json:"trace_id"`
	SubjectID string         `json:"subject_id,omitempty"`
	ItemID    string         `json:"item_id,omitempty"`
	RuleID    int64          `json:"rule_id,omitempty"`
	Verdict   OutcomeVerdict `json:"verdict"`
	Note      string         `json:"note,omitempty"`
	Task      string         `json:"-"`
	SessionID string         `json:"session_id,omitempty"`
	Actor     string         `json:"actor"`
	// ReviewID is the review (demotion or replacement) the report is
	// evidence of, once the heartbeat drafted one.
	ReviewID  int64     `json:"review_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// SessionKey is what counts as one session towards the review threshold:
// the agent's session, else the recall itself.
func (r *OutcomeReport) SessionKey() string {
	if r.SessionID != "" {
		return "session:" + r.SessionID
	}
	return "trace:" + strconv.FormatInt(r.TraceID, 10)
}

// OutcomeFilter selects reports; zero fields are ignored.
type OutcomeFilter struct {
	ProjectID int64
	TraceID   int64
	RuleID    int64
	ReviewID  int64
	SubjectID *string
	Offset    int
	Limit     int
}

// OutcomeCounts are the reports about one memory, by verdict.
type OutcomeCounts struct {
	Helped     int `json:"helped"`
	NotUsed    int `json:"not_used"`
	Misled     int `json:"misled"`
	Conflicted int `json:"conflicted_with_current"`
}

// Add counts one report of verdict v.
func (c *OutcomeCounts) Add(v OutcomeVerdict, n int) {
	switch v {
	case OutcomeHelped:
		c.Helped += n
	case OutcomeNotUsed:
		c.NotUsed += n
	case OutcomeMisled:
		c.Misled += n
	case OutcomeConflicted:
		c.Conflicted += n
	}
}

// Total counts every report.
func (c OutcomeCounts) Total() int { return c.Helped + c.NotUsed + c.Misled + c.Conflicted }

// Harmful counts the misled and conflicted reports.
func (c OutcomeCounts) Harmful() int { return c.Misled + c.Conflicted }

// Of returns the count of verdict v.
func (c OutcomeCounts) Of(v OutcomeVerdict) int {
	switch v {
	case OutcomeHelped:
		return c.Helped
	case OutcomeNotUsed:
		return c.NotUsed
	case OutcomeMisled:
		return c.Misled
	case OutcomeConflicted:
		return c.Conflicted
	}
	return 0
}

// OutcomePolicy is a project's settings for outcomes: how many harmful
// reports from different sessions send a rule to review, and whether an
// approval must not regress the project's offline eval suites.
type OutcomePolicy struct {
	ProjectID           int64 `json:"project_id"`
	Threshold           int   `json:"threshold"`
	RequireNoRegression bool  `json:"require_no_regression"`
}

// DefaultOutcomePolicy is the policy of a project that set none.
func DefaultOutcomePolicy(projectID int64) OutcomePolicy {
	return OutcomePolicy{ProjectID: projectID, Threshold: DefaultOutcomeThreshold}
}

// Validate checks the threshold's range.
func (p OutcomePolicy) Validate() error {
	if p.Threshold < 1 || p.Threshold > MaxOutcomeThreshold {
		return Errorf(EINVALID, "The threshold must be a whole number from 1 to %d.", MaxOutcomeThreshold)
	}
	return nil
}

// RuleOutcomes are the outcome figures of one rule.
type RuleOutcomes struct {
	RuleID int64
	OutcomeCounts
}
