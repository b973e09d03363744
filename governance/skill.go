package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
	"time"
)

// Skills are procedural memory: "how to do this kind of task", kept by the
// agents as a folder with a SKILL.md (the open Agent Skills format) plus
// scripts, references and assets. The console governs them like rules:
// each skill of a project has a version history, a status in one
// lifecycle (skillLifecycle), findings of the risk review, trigger
// examples with their eval result, evidence and usage. See docs/skills.md.

// SkillStatus is a skill's place in its lifecycle.
type SkillStatus string

const (
	// SkillProposed: no version was approved yet; agents never see it.
	SkillProposed SkillStatus = "proposed"
	// SkillActive: its active version is offered to agents and synced.
	SkillActive SkillStatus = "active"
	// SkillStale: marked unused; still readable, no longer offered or synced.
	SkillStale SkillStatus = "stale"
	// SkillArchived: kept with its history, never offered.
	SkillArchived SkillStatus = "archived"
	// SkillRejected: its only proposal was rejected.
	SkillRejected SkillStatus = "rejected"
)

// SkillStatuses lists every skill status in lifecycle order.
var SkillStatuses = []SkillStatus{SkillProposed, SkillActive, SkillStale, SkillArchived, SkillRejected}

// Valid reports whether s is a known skill status.
func (s SkillStatus) Valid() bool { return slices.Contains(SkillStatuses, s) }

// SkillVersionStatus is where one version of a skill stands.
type SkillVersionStatus string

const (
	// VersionProposed waits for a reviewer.
	VersionProposed SkillVersionStatus = "proposed"
	// VersionActive is the version agents get.
	VersionActive SkillVersionStatus = "active"
	// VersionSuperseded was active before a newer version was approved.
	VersionSuperseded SkillVersionStatus = "superseded"
	// VersionRejected was turned down by a reviewer.
	VersionRejected SkillVersionStatus = "rejected"
)

// SkillVersionStatuses lists every version status.
var SkillVersionStatuses = []SkillVersionStatus{VersionProposed, VersionActive, VersionSuperseded, VersionRejected}

// Valid reports whether s is a known version status.
func (s SkillVersionStatus) Valid() bool { return slices.Contains(SkillVersionStatuses, s) }

// SkillOrigin is where a version came from.
type SkillOrigin string

const (
	// OriginImport: read from an agent's skills directory or an upload.
	OriginImport SkillOrigin = "import"
	// OriginEvidence: drafted by the heartbeat from sessions.
	OriginEvidence SkillOrigin = "evidence"
	// OriginReviewer: written or edited by a reviewer.
	OriginReviewer SkillOrigin = "reviewer"
)

// SkillOrigins lists every origin.
var SkillOrigins = []SkillOrigin{OriginImport, OriginEvidence, OriginReviewer}

// Valid reports whether o is a known origin.
func (o SkillOrigin) Valid() bool { return slices.Contains(SkillOrigins, o) }

// Skill is one governed skill of a project, with the summary of its
// current version (the active one, else the latest).
type Skill struct {
	ID        int64  `json:"id"`
	ProjectID int64  `json:"project_id"`
	Project   string `json:"project,omitempty"`
	// Name is the skill's folder name and SKILL.md name, unique in the project.
	Name string `json:"name"`
	// Category is the Hermes category folder it was imported from ("" none).
	Category    string      `json:"category,omitempty"`
	Description string      `json:"description"`
	Status      SkillStatus `json:"status"`
	// Pinned protects the skill from the curator's proposals.
	Pinned bool `json:"pinned"`
	// Version is the active version (0: none yet); Latest the newest one.
	Version int `json:"version"`
	Latest  int `json:"latest"`
	// Pending is the newest version waiting for a reviewer (0: none).
	Pending int `json:"pending,omitempty"`
	// Findings counts the risk review's findings of the current version.
	Findings int `json:"findings"`
	// Examples are the current version's trigger examples.
	Examples SkillExamples `json:"examples"`
	// Signature names the procedure an evidence draft was learned from.
	Signature  string     `json:"-"`
	Uses       int        `json:"uses"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	// StatusAt is when the skill entered its status (the curator's clock).
	StatusAt  time.Time `json:"status_at"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Agent reports whether agents may read the skill: active ones only.
func (s *Skill) Agent() bool { return s.Status == SkillActive && s.Version > 0 }

// SkillFile is one file of a skill folder besides SKILL.md, by its
// slash-separated path inside the folder.
type SkillFile struct {
	Path    string `json:"path"`
	Content []byte `json:"-"`
}

// Text reports whether the file reads as UTF-8 text (scripts and
// references do; images and other assets do not).
func (f SkillFile) Text() bool { return isText(f.Content) }

// SkillContent is what one version of a skill holds: the SKILL.md as it
// was read (byte for byte), the fields of its front matter, and its other
// files.
type SkillContent struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// SkillMD is the whole SKILL.md, front matter included.
	SkillMD string `json:"skill_md"`
	// Body is the Markdown after the front matter.
	Body          string            `json:"body"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	AllowedTools  []string          `json:"allowed_tools,omitempty"`
	Files         []SkillFile       `json:"files,omitempty"`
}

// Digest is a hash of the content (SKILL.md and every file, with paths),
// which tells a changed re-import from an unchanged one.
func (c *SkillContent) Digest() string {
	h := sha256.New()
	h.Write([]byte("SKILL.md\x00"))
	h.Write([]byte(c.SkillMD))
	files := slices.Clone(c.Files)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		h.Write([]byte("\x00" + f.Path + "\x00"))
		h.Write(f.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Size is the bytes of every file, SKILL.md included.
func (c *SkillContent) Size() int {
	n := len(c.SkillMD)
	for _, f := range c.Files {
		n += len(f.Content)
	}
	return n
}

// File returns the file at path ("SKILL.md" included, as text).
func (c *SkillContent) File(path string) (SkillFile, bool) {
	if path == SkillFileName {
		return SkillFile{Path: SkillFileName, Content: []byte(c.SkillMD)}, true
	}
	for _, f := range c.Files {
		if f.Path == path {
			return f, true
		}
	}
	return SkillFile{}, false
}

// AllFiles is SKILL.md and then the other files in path order.
func (c *SkillContent) AllFiles() []SkillFile {
	out := []SkillFile{{Path: SkillFileName, Content: []byte(c.SkillMD)}}
	files := slices.Clone(c.Files)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return append(out, files...)
}

// SkillExamples are a skill's trigger tests: tasks it should be offered
// for, and tasks it should not.
type SkillExamples struct {
	Should    []string `json:"should,omitempty"`
	ShouldNot []string `json:"should_not,omitempty"`
}

// Empty reports whether there are no examples.
func (e SkillExamples) Empty() bool { return len(e.Should) == 0 && len(e.ShouldNot) == 0 }

// Limits of trigger examples.
const (
	MaxSkillExamples     = 20
	MaxSkillExampleBytes = 500
)

// ParseSkillExamples reads examples written one task a line; blank lines
// are dropped. Problems name the list and the line.
func ParseSkillExamples(should, shouldNot string) (SkillExamples, []Text) {
	var ex SkillExamples
	var problems []Text
	read := func(text, list string) []string {
		var out []string
		for i, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if len(line) > MaxSkillExampleBytes {
				problems = append(problems, Say("Examples (%s), line %d: longer than %d bytes.", list, i+1, MaxSkillExampleBytes))
				continue
			}
			out = append(out, line)
		}
		if len(out) > MaxSkillExamples {
			problems = append(problems, Say("Examples (%s): more than %d.", list, MaxSkillExamples))
			out = out[:MaxSkillExamples]
		}
		return out
	}
	ex.Should = read(should, "should")
	ex.ShouldNot = read(shouldNot, "should_not")
	return ex, problems
}

// SkillEval is the trigger evaluation of one version: each example task
// run through the offline skill selection with this version in place.
type SkillEval struct {
	// Should and ShouldNot count the examples; Hits the should-trigger
	// tasks the skill was offered for, FalseHits the should-not tasks it
	// was offered for.
	Should    int `json:"should"`
	ShouldNot int `json:"should_not"`
	Hits      int `json:"hits"`
	FalseHits int `json:"false_hits"`
	// Misses and Wrong name the failing tasks.
	Misses []string `json:"misses,omitempty"`
	Wrong  []string `json:"wrong,omitempty"`
}

// Passed reports whether every example behaved as it should.
func (e *SkillEval) Passed() bool {
	return e != nil && e.Hits == e.Should && e.FalseHits == 0
}

// SkillVersion is one version of a skill.
type SkillVersion struct {
	SkillID int64              `json:"skill_id"`
	Version int                `json:"version"`
	Status  SkillVersionStatus `json:"status"`
	Content SkillContent       `json:"content"`
	Digest  string             `json:"digest"`
	// Findings are the risk review's findings, by file.
	Findings []SkillFinding `json:"findings,omitempty"`
	Examples SkillExamples  `json:"examples"`
	Eval     *SkillEval     `json:"eval,omitempty"`
	Origin   SkillOrigin    `json:"origin"`
	// Source is where an imported version was read from (a directory, an
	// archive's name); "" otherwise.
	Source string `json:"source,omitempty"`
	// Actor proposed the version; Reason says why (a reviewer's words, or
	// the sentence of the import or the heartbeat).
	Actor     string     `json:"actor"`
	Reason    string     `json:"reason,omitempty"`
	DecidedBy string     `json:"decided_by,omitempty"`
	DecidedAt *time.Time `json:"decided_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	// Redacted: a forget took the text of this version, drafted from
	// what it forgot (skill_forget.go).
	Redacted bool `json:"redacted,omitempty"`
}

// SkillFinding is one finding of a skill's risk review: the write gate's
// or a structural check's, in one file (its span is in that file's text).
type SkillFinding struct {
	File string `json:"file"`
	Finding
}

// SkillEvidence links a skill to a session it was learned from.
type SkillEvidence struct {
	SessionID string `json:"session_id"`
	SubjectID string `json:"subject_id,omitempty"`
	// Seqs are the events of the procedure, in order.
	Seqs []int64 `json:"seqs,omitempty"`
	// Check is the step that proved the procedure worked.
	Check string `json:"check,omitempty"`
}

// SkillProposal is a version to store: a new skill, or a new version of
// the skill of the same name.
type SkillProposal struct {
	ProjectID int64
	Category  string
	Content   SkillContent
	Findings  []SkillFinding
	Examples  SkillExamples
	// KeepExamples keeps the latest version's examples when Examples is
	// empty (a re-import carries none).
	KeepExamples bool
	Eval         *SkillEval
	Origin       SkillOrigin
	Source       string
	Reason       string
	Signature    string
	Evidence     []SkillEvidence
	// Activate makes the version active at once (a clean import into a
	// project that auto-activates); the store refuses it for a version
	// with findings.
	Activate bool
	// ForgetGeneration, when set, is the project's forget generation the
	// evidence was read at (a heartbeat's draft): the store writes nothing
	// and returns ErrForgotMeanwhile when a forget committed since, so a
	// draft never brings back what a forget took.
	ForgetGeneration *int64
}

// SkillSaved says what storing a proposal did.
type SkillSaved struct {
	Skill *Skill
	// Version is the stored version, or the latest one when Unchanged.
	Version int
	// Created: the skill is new. Unchanged: its latest version already
	// holds this content and examples, nothing was written.
	Created   bool
	Unchanged bool
	Activated bool
}

// SkillFilter selects skills.
type SkillFilter struct {
	ProjectID int64
	Statuses  []SkillStatus
	// Query matches the name or the description (case-insensitive substring).
	Query string
	// Signature, when set, selects the draft learned from that procedure.
	Signature string
	Limit     int
	Offset    int
}

// MaxSkillPage bounds one page of skills.
const MaxSkillPage = 1000

// MaxSkillReasonBytes bounds a reviewer's reason for a skill decision.
const MaxSkillReasonBytes = 2000

// SkillAction is something a reviewer (or the curator's accepted
// proposal) does to a skill. Which status allows which action is decided
// by skillLifecycle: the store checks it before every change and the skill
// page offers exactly the actions it allows.
type SkillAction string

const (
	SkillApprove SkillAction = "approve"
	SkillReject  SkillAction = "reject"
	SkillEdit    SkillAction = "edit"
	SkillStaleA  SkillAction = "stale"
	SkillArchive SkillAction = "archive"
	SkillRestore SkillAction = "restore"
	SkillPin     SkillAction = "pin"
	SkillUnpin   SkillAction = "unpin"
)

// SkillActions lists every skill action.
var SkillActions = []SkillAction{SkillApprove, SkillReject, SkillEdit, SkillStaleA, SkillArchive, SkillRestore, SkillPin, SkillUnpin}

type skillTransition struct {
	from []SkillStatus
	verb string
}

var skillsKept = []SkillStatus{SkillProposed, SkillActive, SkillStale, SkillArchived}

// skillLifecycle is the skill lifecycle: which status allows which action.
// Approving and rejecting also need a proposed version (Pending).
var skillLifecycle = map[SkillAction]skillTransition{
	SkillApprove: {[]SkillStatus{SkillProposed, SkillActive, SkillStale}, "approved"},
	SkillReject:  {[]SkillStatus{SkillProposed, SkillActive, SkillStale}, "rejected"},
	SkillEdit:    {skillsKept, "edited"},
	SkillStaleA:  {[]SkillStatus{SkillActive}, "marked stale"},
	SkillArchive: {[]SkillStatus{SkillActive, SkillStale}, "archived"},
	SkillRestore: {[]SkillStatus{SkillStale, SkillArchived, SkillRejected}, "restored"},
	SkillPin:     {skillsKept, "pinned"},
	SkillUnpin:   {skillsKept, "unpinned"},
}

// Valid reports whether a is a known skill action.
func (a SkillAction) Valid() bool { _, ok := skillLifecycle[a]; return ok }

// SkillAllows reports whether a skill in status may undergo action.
func SkillAllows(status SkillStatus, action SkillAction) bool {
	return slices.Contains(skillLifecycle[action].from, status)
}

// Allow returns nil when the skill's status (and, to approve or reject,
// a waiting version; to pin or unpin, its pin) allows action, else
// ECONFLICT naming why not.
func (s *Skill) Allow(action SkillAction) error {
	t, ok := skillLifecycle[action]
	if !ok {
		return Errorf(EINTERNAL, "Unknown skill action %q.", action)
	}
	if !slices.Contains(t.from, s.Status) {
		names := make([]string, len(t.from))
		for i, st := range t.from {
			names[i] = string(st)
		}
		return Errorf(ECONFLICT, "Skill %s is %s; only a %s skill can be %s.", s.Name, s.Status, strings.Join(names, " or "), t.verb)
	}
	switch {
	case (action == SkillApprove || action == SkillReject) && s.Pending == 0:
		return Errorf(ECONFLICT, "Skill %s has no version waiting for review.", s.Name)
	case action == SkillPin && s.Pinned:
		return Errorf(ECONFLICT, "Skill %s is pinned already.", s.Name)
	case action == SkillUnpin && !s.Pinned:
		return Errorf(ECONFLICT, "Skill %s is not pinned.", s.Name)
	}
	return nil
}

// SkillActionSet is, for one skill, whether each action is allowed: what
// the skill page offers.
type SkillActionSet map[SkillAction]bool

// AllowedActions is the set of actions the skill allows.
func (s *Skill) AllowedActions() SkillActionSet {
	set := SkillActionSet{}
	for _, a := range SkillActions {
		set[a] = s.Allow(a) == nil
	}
	return set
}

// SkillDecision is one reviewer decision on a skill.
type SkillDecision struct {
	Action SkillAction
	// Version is the version approved or rejected (0: the pending one).
	Version int
	Reason  string
	// Acknowledged says the reviewer saw the version's findings: a version
	// with findings is approved only then.
	Acknowledged bool
}

// Decide applies d to s in memory, for both stores: the new status, the
// pin, and which version becomes active (approve) or rejected (reject).
// It returns the version whose status changes and its new status (0, ""
// when none does). The store writes the result and the audit row.
func (s *Skill) Decide(d SkillDecision, pending *SkillVersion, now time.Time) (int, SkillVersionStatus, error) {
	if err := s.Allow(d.Action); err != nil {
		return 0, "", err
	}
	move := func(st SkillStatus) {
		if s.Status != st {
			s.Status, s.StatusAt = st, now
		}
	}
	switch d.Action {
	case SkillApprove, SkillReject:
		if pending == nil || pending.Status != VersionProposed || (d.Version != 0 && d.Version != pending.Version) {
			return 0, "", Errorf(ECONFLICT, "Skill %s has no version waiting for review.", s.Name)
		}
		if d.Action == SkillReject {
			if s.Version == 0 {
				move(SkillRejected)
			}
			s.Pending = 0
			return pending.Version, VersionRejected, nil
		}
		if len(pending.Findings) > 0 && !d.Acknowledged {
			return 0, "", Errorf(EINVALID, "This version has findings; confirm that you reviewed them.")
		}
		s.Version, s.Pending = pending.Version, 0
		s.Description = pending.Content.Description
		s.Findings = len(pending.Findings)
		s.Examples = pending.Examples
		move(SkillActive)
		return pending.Version, VersionActive, nil
	case SkillStaleA:
		move(SkillStale)
	case SkillArchive:
		move(SkillArchived)
	case SkillRestore:
		if s.Version > 0 {
			move(SkillActive)
		} else {
			move(SkillProposed)
		}
	case SkillPin:
		s.Pinned = true
	case SkillUnpin:
		s.Pinned = false
	case SkillEdit:
		return 0, "", Errorf(EINTERNAL, "An edit is a new version, not a decision.")
	}
	return 0, "", nil
}

// NextVersion applies a stored proposal to s: the numbers of a new
// version, and what the skill shows while it waits (a skill that never
// had an active version shows its newest proposal). It returns the new
// version's status.
func (s *Skill) NextVersion(p *SkillProposal, now time.Time) SkillVersionStatus {
	s.Latest++
	if p.Signature != "" && s.Signature == "" {
		s.Signature = p.Signature
	}
	if p.Activate && len(p.Findings) == 0 {
		s.Version, s.Pending = s.Latest, 0
		s.Description, s.Findings, s.Examples = p.Content.Description, 0, p.Examples
		if s.Status != SkillActive {
			s.Status, s.StatusAt = SkillActive, now
		}
		return VersionActive
	}
	s.Pending = s.Latest
	if s.Version == 0 {
		s.Description, s.Findings, s.Examples = p.Content.Description, len(p.Findings), p.Examples
		if s.Status == SkillRejected {
			s.Status, s.StatusAt = SkillProposed, now
		}
	}
	return VersionProposed
}

// SkillNameOK reports whether name follows the Agent Skills rules: 1 to 64
// lower-case letters, digits and hyphens, no hyphen first, last or twice
// in a row.
func SkillNameOK(name string) bool {
	if name == "" || len(name) > MaxSkillNameLen || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// SkillMatch is a skill a context package lists for a task: its name and
// description (the trigger) and why it applies; an agent fetches the body
// on demand.
type SkillMatch struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Why         string  `json:"why"`
	Score       float64 `json:"score"`
}
