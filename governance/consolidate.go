package governance

import (
	"time"
)

// SessionWork is one ended session handed to consolidation, with every event.
type SessionWork struct {
	Session *SessionInfo
	Events  []*Event
	// Known holds the fingerprints of candidates already drawn from this
	// session, so a re-run never duplicates them.
	Known map[string]bool
	// Consolidated is the last event the session's episode covered when it
	// was consolidated before (0: never). A session that goes on after that
	// (a resumed Codex rollout, a late event) is extracted whole again, for
	// context, but yields only items supported by a later event: the
	// earlier ones were drawn then, and a model or a newer extractor that
	// words them differently would draw them again.
	Consolidated int64
}

// ConsolidateInput is everything one beat needs to know about a project.
type ConsolidateInput struct {
	Project *Project
	// ForgetGeneration is the project's forget generation read before
	// anything else; the plan carries it to the write.
	ForgetGeneration int64
	// BeatVersion names the project's consolidated state the input was
	// read from (the checkpoint row's version: a counter on SQLite, xmin
	// on PostgreSQL); the plan carries it to the write, which refuses a plan read
	// before another beat of the project committed (ErrBeatMeanwhile), so
	// two instances beating at once never write the same work twice.
	BeatVersion string
	// Checkpoint is the current checkpoint; NewCheckpoint the one to write.
	Checkpoint    int64
	NewCheckpoint int64
	NewEvents     int
	Sessions      []*SessionWork
	// Held are the project's held candidates, with EvidenceSeqs.
	Held []*Candidate
	// Rules are the project's proposed and active rules.
	Rules []*Rule
	// Events supporting held candidates (by seq).
	Evidence   map[int64]*Event
	Suppressed Suppressions
	// RejectedClasses are the project's standing class rejections: a group
	// of such a class is held, not proposed.
	RejectedClasses RejectedClasses
	Now             time.Time
}

// Suppressions are the fingerprints of forgotten statements by the subject
// they were forgotten for; subject "" holds for every subject.
type Suppressions map[string]map[string]bool

// Add suppresses fingerprint fp for subject ("" for everyone).
func (s Suppressions) Add(subject, fp string) {
	if s[subject] == nil {
		s[subject] = map[string]bool{}
	}
	s[subject][fp] = true
}

// Has reports whether fp is suppressed in sessions of subject.
func (s Suppressions) Has(subject, fp string) bool {
	return s[""][fp] || (subject != "" && s[subject][fp])
}

// BeatPlan is what one beat writes for one project, all in one transaction
// together with the checkpoint. New rows carry negative temporary ids that
// the store maps to real ones; references to existing rows are positive.
type BeatPlan struct {
	ProjectID  int64
	Checkpoint int64
	// ForgetGeneration is the forget generation the input was read at: the
	// plan is written only if no forget committed since (ErrForgotMeanwhile).
	ForgetGeneration int64
	// BeatVersion is the input's (ConsolidateInput.BeatVersion).
	BeatVersion string
	Episodes    []*Episode
	// Candidates are new candidates (negative ids).
	Candidates []*Candidate
	// Updates are existing candidates whose status, group or rule changes.
	Updates []*Candidate
	// Rules are new proposals (negative ids).
	Rules []*Rule
	// Attach lists evidence added to existing rules: candidate id → rule id.
	Attach map[int64]int64
	Stats  BeatStats
}

// BeatStats counts what a beat did.
type BeatStats struct {
	NewEvents  int `json:"new_events"`
	Episodes   int `json:"episodes"`
	Candidates int `json:"candidates"`
	Proposals  int `json:"proposals"`
	Held       int `json:"held"`
	Blocked    int `json:"blocked"`
	Tokens     int `json:"tokens"`
	Dropped    int `json:"dropped"`
}

// Add sums b into s.
func (s *BeatStats) Add(b BeatStats) {
	s.NewEvents += b.NewEvents
	s.Episodes += b.Episodes
	s.Candidates += b.Candidates
	s.Proposals += b.Proposals
	s.Held += b.Held
	s.Blocked += b.Blocked
	s.Tokens += b.Tokens
	s.Dropped += b.Dropped
}
