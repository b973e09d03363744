package governance

import "time"

// ForgetReport says what a forget removed: ids, counts and a SHA-256 of the
// removed content, never the content.
type ForgetReport struct {
	ProjectID    int64   `json:"project_id,omitempty"`
	SubjectID    string  `json:"subject_id,omitempty"`
	RuleIDs      []int64 `json:"rule_ids"`
	CandidateIDs []int64 `json:"candidate_ids"`
	EpisodeIDs   []int64 `json:"episode_ids"`
	Versions     int     `json:"versions"`
	Events       int     `json:"events_redacted"`
	RecallTraces int     `json:"recall_traces_deleted,omitempty"`
	// SkillsDeleted are the draft skills that went; SkillsRedacted the
	// kept skills whose versions drafted from the forgotten events lost
	// their text (skill_forget.go).
	SkillsDeleted  []int64 `json:"skills_deleted,omitempty"`
	SkillsRedacted []int64 `json:"skills_redacted,omitempty"`
	Suppressions   int     `json:"suppressions"`
	ContentHash    string  `json:"content_hash"`
	AuditIDs       []int64 `json:"audit_ids"`
}

// PreviewEventLimit caps how many events a preview lists (it counts them all).
const PreviewEventLimit = 100

// ForgetPreview is exactly what a forget will remove, with the content, for
// the confirmation page. It is computed, shown and dropped; never stored.
type ForgetPreview struct {
	ProjectID  int64
	SubjectID  string
	WithEvents bool
	Rules      []*Rule
	// SharedRuleIDs are the project-wide rules among Rules that go with a
	// subject because only that subject's events support them.
	SharedRuleIDs []int64
	Versions      []*RuleVersion
	Candidates    []*Candidate
	Episodes      []*EpisodeRewrite
	// Events are the first PreviewEventLimit events to redact; EventCount counts all.
	Events       []*Event
	EventCount   int
	Fingerprints int
	// RecallTraces counts the stored recall traces of the subject that go.
	RecallTraces int
	// Skills are the skills drafted from what the forget removes.
	Skills []*SkillForget
}

// Empty reports whether there is nothing to forget.
func (p *ForgetPreview) Empty() bool {
	return len(p.Rules) == 0 && len(p.Candidates) == 0 && p.EventCount == 0 && len(p.Episodes) == 0 && len(p.Skills) == 0
}

// EpisodeRewrite is an episode summary and what it becomes after a forget.
type EpisodeRewrite struct {
	Episode *Episode
	Summary string
}

// Suppression is one forget fingerprint (never the text) of a project: the
// heartbeat does not learn a statement with this fingerprint again, for
// SubjectID or, when it is empty, for anyone. A restore carries them over
// from the database a backup came from.
type Suppression struct {
	ProjectID   int64
	Fingerprint string
	SubjectID   string
	CreatedAt   time.Time
}
