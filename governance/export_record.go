package governance

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// An export (format ExportFormat) is JSON Lines, one ExportRecord per line,
// each with a "type":
//
//	project     the header: format, project slug, name, description, policy
//	event       one raw event, in seq order; its "event" object is exactly what
//	            POST /api/v1/events and the import page accept
//	episode     an episode summary, its range given by event ids
//	rule        a rule (not forgotten ones) with its versions; "ref" is its id
//	            in the exporting console, used only to link records
//	candidate   a candidate with its evidence as event ids and rule/group refs
//	suppression a fingerprint of a forgotten statement (never the statement)
//	checkpoint  the heartbeat checkpoint, as the id of the last event it covers
//
// Importing one into a fresh project reproduces the same rules,
// candidates, evidence and checkpoint, so recall gives the same package.
// Every store backend writes and reads this one format.
type ExportRecord struct {
	Type string `json:"type"`

	// project
	Format     string         `json:"format,omitempty"`
	Project    *ExportProject `json:"project,omitempty"`
	ExportedAt *time.Time     `json:"exported_at,omitempty"`
	Event      *Event         `json:"event,omitempty"`
	// GateFindings, on an event record, are what the write gate finds in
	// an event it blocks. The export keeps raw events verbatim (it is the
	// backup of the raw layer); the mark says the text must not be trusted,
	// and an import gates every rule and candidate again (checkExportRecord).
	GateFindings []Finding        `json:"gate_findings,omitempty"`
	Episode      *ExportEpisode   `json:"episode,omitempty"`
	Rule         *ExportRule      `json:"rule,omitempty"`
	Candidate    *ExportCandidate `json:"candidate,omitempty"`
	// suppression
	Fingerprint string `json:"fingerprint,omitempty"`
	SubjectID   string `json:"subject_id,omitempty"`
	// checkpoint
	AfterEventID string `json:"after_event_id,omitempty"`
}

// ExportProject is an export's header.
type ExportProject struct {
	Slug         string `json:"slug"`
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	AutoActivate bool   `json:"auto_activate,omitempty"`
	SingleUser   bool   `json:"single_user,omitempty"`
}

// ExportEpisode is an exported episode summary.
type ExportEpisode struct {
	SessionID    string    `json:"session_id"`
	SubjectID    string    `json:"subject_id,omitempty"`
	Summary      string    `json:"summary"`
	FirstEventID string    `json:"first_event_id"`
	LastEventID  string    `json:"last_event_id"`
	EventCount   int       `json:"event_count"`
	Extractor    string    `json:"extractor"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// ExportRule is an exported rule with its versions.
type ExportRule struct {
	Ref             int64           `json:"ref"`
	SubjectID       string          `json:"subject_id,omitempty"`
	Kind            MemoryType      `json:"kind"`
	Text            string          `json:"text"`
	PromotionReason PromotionReason `json:"promotion_reason"`
	Status          RuleStatus      `json:"status"`
	Version         int             `json:"version"`
	Trust           float64         `json:"trust"`
	ExpiresAt       *time.Time      `json:"expires_at,omitempty"`
	Paused          bool            `json:"paused,omitempty"`
	LastUsedAt      *time.Time      `json:"last_used_at,omitempty"`
	UseCount        int             `json:"use_count,omitempty"`
	Supersedes      int64           `json:"supersedes_ref,omitempty"`
	SupersededBy    int64           `json:"superseded_by_ref,omitempty"`
	Findings        json.RawMessage `json:"findings,omitempty"`
	Fingerprint     string          `json:"fingerprint"`
	Checks          json.RawMessage `json:"checks,omitempty"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
	Versions        []*RuleVersion  `json:"versions"`
}

// NewExportRule is the export record of rule r, without its versions
// (an empty list to fill) and with checks, the rule's stored JSON list.
func NewExportRule(r *Rule, checks string) *ExportRule {
	return &ExportRule{
		Ref: r.ID, SubjectID: r.SubjectID, Kind: r.Kind, Text: r.Text, PromotionReason: r.PromotionReason,
		Status: r.Status, Version: r.Version, Trust: r.Trust, ExpiresAt: r.ExpiresAt, Paused: r.Paused,
		LastUsedAt: r.LastUsedAt, UseCount: r.UseCount, Supersedes: r.Supersedes, SupersededBy: r.SupersededBy,
		Findings: jsonListOf(r.Findings), Fingerprint: r.Fingerprint, Checks: json.RawMessage(checks),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Versions: []*RuleVersion{},
	}
}

// ExportCandidate is an exported candidate with its evidence.
type ExportCandidate struct {
	Ref          int64           `json:"ref"`
	SessionID    string          `json:"session_id"`
	SubjectID    string          `json:"subject_id,omitempty"`
	Type         MemoryType      `json:"type"`
	Statement    string          `json:"statement"`
	Durable      bool            `json:"durable,omitempty"`
	Extractor    string          `json:"extractor"`
	Status       CandidateStatus `json:"status"`
	StatusReason string          `json:"status_reason,omitempty"`
	GroupRef     int64           `json:"group_ref,omitempty"`
	RuleRef      int64           `json:"rule_ref,omitempty"`
	Fingerprint  string          `json:"fingerprint"`
	Findings     json.RawMessage `json:"findings,omitempty"`
	EvidenceIDs  []string        `json:"evidence_event_ids"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
}

// jsonListOf is the JSON of a list, [] for none.
func jsonListOf(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return json.RawMessage("[]")
	}
	return b
}

// JSONOr is a stored JSON column's text: v, or def when v is empty.
func JSONOr(v json.RawMessage, def string) string {
	if len(v) == 0 || string(v) == "null" {
		return def
	}
	return string(v)
}

// ParsedExport is a checked export: its records in file order (the first
// is the project header) and its events.
type ParsedExport struct {
	Records []*ExportRecord
	Events  []*Event
}

// ParseExport reads and checks every line of an export; problems are
// reported together by line number (*LineErrors' error), and nothing is
// returned then. The events are checked as one ingest batch. Every rule
// and candidate text goes through the classifier; its error fails the
// whole import.
func ParseExport(ctx context.Context, r io.Reader, cl Classifier) (*ParsedExport, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var (
		out []*ExportRecord
		bad LineErrors
	)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec ExportRecord
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		problem := ""
		var err error
		if err = dec.Decode(&rec); err != nil {
			problem = "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
		} else if problem, err = checkExportRecord(ctx, &rec, len(out) == 0, cl); err != nil {
			return nil, fmt.Errorf("governance: classify export line %d: %w", n, err)
		}
		if problem != "" {
			bad.Add(n, problem)
			continue
		}
		out = append(out, &rec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, Errorf(EINVALID, "Line %d is too long.", n+1)
		}
		return nil, fmt.Errorf("governance: read export: %w", err)
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, Errorf(EINVALID, "The export is empty.")
	}
	x := &ParsedExport{Records: out}
	for _, rec := range out {
		if rec.Type == "event" {
			x.Events = append(x.Events, rec.Event)
		}
	}
	if err := ValidateBatch(x.Events); err != nil {
		return nil, err
	}
	return x, nil
}

// ExportEventRecord is the export record of a raw event: the event as
// stored, marked with the write gate's findings when the gate blocks it.
func ExportEventRecord(ctx context.Context, e *Event, cl Classifier) (ExportRecord, error) {
	rec := ExportRecord{Type: "event", Event: e}
	res, err := cl.Classify(ctx, e.Text)
	if err != nil {
		return rec, err
	}
	if res.Blocked() {
		rec.GateFindings = res.Findings
	}
	return rec, nil
}

// ImportProject is the project an export is imported into: its header,
// with the slug and name opts give, checked.
func (x *ParsedExport) ImportProject(opts ImportOptions) (*Project, error) {
	hdr := x.Records[0].Project
	p := &Project{Slug: hdr.Slug, Name: hdr.Name, Description: hdr.Description, AutoActivate: hdr.AutoActivate, SingleUser: hdr.SingleUser}
	if opts.Slug != "" {
		p.Slug = opts.Slug
	}
	if opts.Name != "" {
		p.Name = opts.Name
	}
	if p.Slug == "" || p.Name == "" {
		return nil, Errorf(EINVALID, "The export names no project slug and name.")
	}
	if err := ValidateSlug(p.Slug); err != nil {
		return nil, err
	}
	return p, nil
}

func checkExportRecord(ctx context.Context, rec *ExportRecord, first bool, cl Classifier) (string, error) {
	if first != (rec.Type == "project") {
		return "the first record, and only it, must be of type project", nil
	}
	switch rec.Type {
	case "project":
		if rec.Format != ExportFormat || rec.Project == nil {
			return fmt.Sprintf("format must be %q with a project", ExportFormat), nil
		}
	case "event":
		if rec.Event == nil {
			return "event record without event", nil
		}
	case "episode":
		if rec.Episode == nil {
			return "episode record without episode", nil
		}
	case "rule":
		if rec.Rule == nil || rec.Rule.Ref == 0 {
			return "rule record without rule or ref", nil
		}
		// An import never turns blocked text into a rule.
		texts := []string{rec.Rule.Text}
		for _, v := range rec.Rule.Versions {
			texts = append(texts, v.Text)
		}
		for _, t := range texts {
			res, err := cl.Classify(ctx, t)
			if err != nil {
				return "", err
			}
			if res.Blocked() {
				return "the write gate blocks this rule's text (" + strings.TrimPrefix(RiskLabel(res.Findings), "risk: ") + "); it cannot be imported as a rule", nil
			}
		}
	case "candidate":
		if rec.Candidate == nil || rec.Candidate.Ref == 0 {
			return "candidate record without candidate or ref", nil
		}
		// A statement the gate blocks comes in blocked, with the gate's
		// findings, whatever the file says.
		res, err := cl.Classify(ctx, rec.Candidate.Statement)
		if err != nil {
			return "", err
		}
		if res.Blocked() && rec.Candidate.Status != CandidateBlocked {
			c := rec.Candidate
			c.Status, c.StatusReason, c.RuleRef = CandidateBlocked, "Blocked by the write gate on import.", 0
			if b, err := json.Marshal(res.Findings); err == nil {
				c.Findings = b
			}
		}
	case "suppression":
		if rec.Fingerprint == "" {
			return "suppression without fingerprint", nil
		}
	case "checkpoint":
		if rec.AfterEventID == "" {
			return "checkpoint without after_event_id", nil
		}
	default:
		return fmt.Sprintf("unknown record type %q", rec.Type), nil
	}
	return "", nil
}
