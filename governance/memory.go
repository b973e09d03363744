package governance

import "time"

// Episode is the consolidated summary of one session.
type Episode struct {
	ID         int64     `json:"id"`
	ProjectID  int64     `json:"project_id"`
	SessionID  string    `json:"session_id"`
	SubjectID  string    `json:"subject_id,omitempty"`
	Summary    string    `json:"summary"`
	FirstSeq   int64     `json:"first_seq"`
	LastSeq    int64     `json:"last_seq"`
	EventCount int       `json:"event_count"`
	Extractor  string    `json:"extractor"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// MemoryType is the type of a candidate memory and of the rule it becomes.
type MemoryType string

const (
	TypePreference MemoryType = "user_preference"
	TypeFact       MemoryType = "fact"
	TypeLesson     MemoryType = "lesson"
)

// Valid reports whether t is a known memory type.
func (t MemoryType) Valid() bool {
	return t == TypePreference || t == TypeFact || t == TypeLesson
}

// CandidateStatus is where a candidate stands in consolidation.
type CandidateStatus string

const (
	CandidatePending  CandidateStatus = "pending"
	CandidateHeld     CandidateStatus = "held"
	CandidateProposed CandidateStatus = "proposed"
	CandidatePromoted CandidateStatus = "promoted"
	CandidateRejected CandidateStatus = "rejected"
	CandidateBlocked  CandidateStatus = "blocked"
)

// CandidateStatuses lists every candidate status.
var CandidateStatuses = []CandidateStatus{CandidatePending, CandidateHeld, CandidateProposed, CandidatePromoted, CandidateRejected, CandidateBlocked}

// Candidate is a memory the heartbeat extracted from one session, linked to
// the events that support it.
type Candidate struct {
	ID        int64           `json:"id"`
	ProjectID int64           `json:"project_id"`
	SessionID string          `json:"session_id"`
	SubjectID string          `json:"subject_id,omitempty"`
	Type      MemoryType      `json:"type"`
	Statement string          `json:"statement"`
	Durable   bool            `json:"durable"`
	Extractor string          `json:"extractor"`
	Status    CandidateStatus `json:"status"`
	// StatusReason says in plain words why the candidate is held or blocked.
	StatusReason string `json:"status_reason,omitempty"`
	// WhyNotPlaced is the clause StatusReason ends with when it says the
	// statement is outside the low-risk set (Decision.NotPlaced), stored so
	// a page says it in its own words.
	WhyNotPlaced *NotPlaced `json:"why_not_placed,omitempty"`
	// GroupID is the id of the first candidate of its merge group.
	GroupID int64 `json:"group_id"`
	// RuleID is the rule (proposed or active) the candidate supports, if any.
	RuleID       int64     `json:"rule_id,omitempty"`
	Fingerprint  string    `json:"-"`
	Findings     []Finding `json:"findings,omitempty"`
	EvidenceSeqs []int64   `json:"evidence_seqs"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// LowRisk is the class of the low-risk set the consolidator's
	// classifier placed the statement in, "" outside it. It is read again
	// at every beat and never stored: a candidate read from the store is
	// outside the set until it is classified (default-deny).
	LowRisk string `json:"-"`
	// NotPlaced, outside the low-risk set without a finding, is the
	// clause that kept the statement out and why (GateResult.NotPlaced);
	// read with LowRisk, never stored.
	NotPlaced *NotPlaced `json:"-"`
	// ReplacesOnly is the extractor's ExtractedItem.ReplacesOnly: a new
	// candidate that only a rule it corrects keeps; never stored.
	ReplacesOnly bool `json:"-"`
}

// Finding is one hit of the write gate: its risk class (Category), the
// pattern that matched, the span [Start, End) in the text as written (bytes),
// a short excerpt around it and a sentence saying why it matters.
type Finding struct {
	Category string `json:"category"`
	Pattern  string `json:"pattern"`
	Excerpt  string `json:"excerpt"`
	Start    int    `json:"start,omitempty"`
	End      int    `json:"end,omitempty"`
	Why      string `json:"why,omitempty"`
	// WhyText is Why as the sentence's message id and values, which a
	// page translates; a finding stored before it was kept has only Why
	// (WhyOf).
	WhyText Text `json:"why_text,omitzero"`
	// Redacted: a credential the gate replaced instead of blocking the text.
	Redacted bool `json:"redacted,omitempty"`
}

// Because is f's why, English in Why and kept as a Text in WhyText.
func (f *Finding) Because(t Text) { f.Why, f.WhyText = t.String(), t }

// WhyOf is why the finding matters as a Text: WhyText, or for a finding
// stored before it was kept, Why as its own sentence.
func (f Finding) WhyOf() Text {
	if !f.WhyText.IsZero() {
		return f.WhyText
	}
	return Say(f.Why)
}

// PromotionReason names the channel that promoted a rule.
type PromotionReason string

const (
	ReasonRepeated    PromotionReason = "repeated_across_sessions"
	ReasonToolFailure PromotionReason = "tool_failure_evidence"
	ReasonExplicit    PromotionReason = "explicit_user_instruction"
	ReasonReviewer    PromotionReason = "reviewer_created"
)

// PromotionReasons lists every promotion channel (filters and validation
// read it: a new channel is added here and in Decide).
var PromotionReasons = []PromotionReason{ReasonRepeated, ReasonToolFailure, ReasonExplicit, ReasonReviewer}

// RuleStatus is a rule's place in its lifecycle.
type RuleStatus string

const (
	RuleProposed   RuleStatus = "proposed"
	RuleActive     RuleStatus = "active"
	RuleStale      RuleStatus = "stale"
	RuleArchived   RuleStatus = "archived"
	RuleSuperseded RuleStatus = "superseded"
	RuleRejected   RuleStatus = "rejected"
	RuleForgotten  RuleStatus = "forgotten"
)

// RuleStatuses lists every rule status in lifecycle order.
var RuleStatuses = []RuleStatus{RuleProposed, RuleActive, RuleStale, RuleArchived, RuleSuperseded, RuleRejected, RuleForgotten}

// Rule is a semantic memory: few, stable, each with its reason and evidence.
type Rule struct {
	ID              int64           `json:"id"`
	ProjectID       int64           `json:"project_id"`
	SubjectID       string          `json:"subject_id,omitempty"`
	Kind            MemoryType      `json:"kind"`
	Text            string          `json:"text"`
	PromotionReason PromotionReason `json:"promotion_reason"`
	Status          RuleStatus      `json:"status"`
	Version         int             `json:"version"`
	Trust           float64         `json:"trust"`
	ExpiresAt       *time.Time      `json:"expires_at,omitempty"`
	Paused          bool            `json:"paused"`
	LastUsedAt      *time.Time      `json:"last_used_at,omitempty"`
	UseCount        int             `json:"use_count"`
	// Supersedes is the active rule this proposal would replace.
	Supersedes int64 `json:"supersedes,omitempty"`
	// SupersededBy is the newer rule that replaced this one.
	SupersededBy int64     `json:"superseded_by,omitempty"`
	Findings     []Finding `json:"findings,omitempty"`
	Fingerprint  string    `json:"-"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// RuleVersion is one entry of a rule's history.
type RuleVersion struct {
	RuleID    int64      `json:"rule_id"`
	Version   int        `json:"version"`
	Text      string     `json:"text"`
	Kind      MemoryType `json:"kind"`
	Actor     string     `json:"actor"`
	Reason    string     `json:"reason"`
	CreatedAt time.Time  `json:"created_at"`
}

// AuditEntry is one append-only, hash-chained audit row. It never holds the
// content of a memory, only ids and hashes.
type AuditEntry struct {
	ID            int64     `json:"id"`
	At            time.Time `json:"at"`
	Actor         string    `json:"actor"`
	Action        string    `json:"action"`
	ObjectType    string    `json:"object_type"`
	ObjectID      string    `json:"object_id"`
	ProjectID     int64     `json:"project_id,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	PolicyVersion string    `json:"policy_version"`
	Details       string    `json:"details,omitempty"`
	PrevHash      string    `json:"prev_hash"`
	Hash          string    `json:"hash"`
	// Subject, on a row to append, is the subject the row concerns
	// (ProjectID's): the store writes the subject's keyed reference into
	// the details' "subject" field, never the id, which a forget of the
	// subject could not take back. It is not read back.
	Subject string `json:"-"`
}
