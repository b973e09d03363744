package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// An export is JSON Lines, one record per line, each with a "type":
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
// ImportExport reads it into a fresh project and reproduces the same rules,
// candidates, evidence and checkpoint, so recall gives the same package.
type exportRecord struct {
	Type string `json:"type"`

	// project
	Format     string            `json:"format,omitempty"`
	Project    *exportProject    `json:"project,omitempty"`
	ExportedAt *time.Time        `json:"exported_at,omitempty"`
	Event      *governance.Event `json:"event,omitempty"`
	Episode    *exportEpisode    `json:"episode,omitempty"`
	Rule       *exportRule       `json:"rule,omitempty"`
	Candidate  *exportCandidate  `json:"candidate,omitempty"`
	// suppression
	Fingerprint string `json:"fingerprint,omitempty"`
	SubjectID   string `json:"subject_id,omitempty"`
	// checkpoint
	AfterEventID string `json:"after_event_id,omitempty"`
}

type exportProject struct {
	Slug         string `json:"slug"`
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	AutoActivate bool   `json:"auto_activate,omitempty"`
}

type exportEpisode struct {
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

type exportRule struct {
	Ref             int64                      `json:"ref"`
	SubjectID       string                     `json:"subject_id,omitempty"`
	Kind            governance.MemoryType      `json:"kind"`
	Text            string                     `json:"text"`
	PromotionReason governance.PromotionReason `json:"promotion_reason"`
	Status          governance.RuleStatus      `json:"status"`
	Version         int                        `json:"version"`
	Trust           float64                    `json:"trust"`
	ExpiresAt       *time.Time                 `json:"expires_at,omitempty"`
	Paused          bool                       `json:"paused,omitempty"`
	LastUsedAt      *time.Time                 `json:"last_used_at,omitempty"`
	UseCount        int                        `json:"use_count,omitempty"`
	Supersedes      int64                      `json:"supersedes_ref,omitempty"`
	SupersededBy    int64                      `json:"superseded_by_ref,omitempty"`
	Findings        json.RawMessage            `json:"findings,omitempty"`
	Fingerprint     string                     `json:"fingerprint"`
	Checks          json.RawMessage            `json:"checks,omitempty"`
	CreatedAt       time.Time                  `json:"created_at"`
	UpdatedAt       time.Time                  `json:"updated_at"`
	Versions        []*governance.RuleVersion  `json:"versions"`
}

type exportCandidate struct {
	Ref          int64                      `json:"ref"`
	SessionID    string                     `json:"session_id"`
	SubjectID    string                     `json:"subject_id,omitempty"`
	Type         governance.MemoryType      `json:"type"`
	Statement    string                     `json:"statement"`
	Durable      bool                       `json:"durable,omitempty"`
	Extractor    string                     `json:"extractor"`
	Status       governance.CandidateStatus `json:"status"`
	StatusReason string                     `json:"status_reason,omitempty"`
	GroupRef     int64                      `json:"group_ref,omitempty"`
	RuleRef      int64                      `json:"rule_ref,omitempty"`
	Fingerprint  string                     `json:"fingerprint"`
	Findings     json.RawMessage            `json:"findings,omitempty"`
	EvidenceIDs  []string                   `json:"evidence_event_ids"`
	CreatedAt    time.Time                  `json:"created_at"`
	UpdatedAt    time.Time                  `json:"updated_at"`
}

// ExportJSONL writes every layer of a project as JSON Lines (see
// exportRecord), from one consistent read snapshot, streaming.
func (s *Store) ExportJSONL(ctx context.Context, projectID int64, w io.Writer, opts governance.ExportOptions) (*governance.ExportStats, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: export: begin: %w", err)
	}
	defer tx.Rollback()
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	stats := &governance.ExportStats{}
	now := s.Now().UTC().Truncate(time.Second)
	if err := enc.Encode(exportRecord{Type: "project", Format: governance.ExportFormat, ExportedAt: &now, Project: &exportProject{
		Slug: p.Slug, Name: p.Name, Description: p.Description, AutoActivate: p.AutoActivate}}); err != nil {
		return nil, err
	}
	subj := func(col string) (string, []any) {
		if opts.SubjectID == nil {
			return "", nil
		}
		return " AND " + col + " = ?", []any{*opts.SubjectID}
	}
	each := func(query string, args []any, fn func(scanner) error) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}

	cond, args := subj("e.subject_id")
	if err := each(`SELECT `+eventColumns+` FROM events e WHERE e.project_id = ?`+cond+` ORDER BY e.seq`,
		append([]any{projectID}, args...), func(r scanner) error {
			e, err := scanEvent(r)
			if err != nil {
				return err
			}
			e.Seq, e.Project, e.IngestedAt = 0, "", time.Time{}
			stats.Events++
			return enc.Encode(exportRecord{Type: "event", Event: e})
		}); err != nil {
		return nil, fmt.Errorf("store: export events: %w", err)
	}

	cond, args = subj("ep.subject_id")
	if err := each(`
		SELECT ep.session_id, ep.subject_id, ep.summary, COALESCE(f.id, ''), COALESCE(l.id, ''), ep.event_count, ep.extractor,
			ep.created_at, ep.updated_at
		FROM episodes ep LEFT JOIN events f ON f.seq = ep.first_seq LEFT JOIN events l ON l.seq = ep.last_seq
		WHERE ep.project_id = ?`+cond+` ORDER BY ep.id`, append([]any{projectID}, args...), func(r scanner) error {
		var (
			ep               exportEpisode
			created, updated string
		)
		if err := r.Scan(&ep.SessionID, &ep.SubjectID, &ep.Summary, &ep.FirstEventID, &ep.LastEventID, &ep.EventCount,
			&ep.Extractor, &created, &updated); err != nil {
			return err
		}
		ep.CreatedAt, ep.UpdatedAt = parseTime(created), parseTime(updated)
		stats.Episodes++
		return enc.Encode(exportRecord{Type: "episode", Episode: &ep})
	}); err != nil {
		return nil, fmt.Errorf("store: export episodes: %w", err)
	}

	cond, args = subj("r.subject_id")
	var rules []*exportRule
	if err := each(`SELECT `+ruleColumns+`, r.checks FROM rules r WHERE r.project_id = ? AND r.status <> 'forgotten'`+cond+` ORDER BY r.id`,
		append([]any{projectID}, args...), func(r scanner) error {
			var checks string
			rule, err := scanRule(r, &checks)
			if err != nil {
				return err
			}
			rules = append(rules, &exportRule{
				Ref: rule.ID, SubjectID: rule.SubjectID, Kind: rule.Kind, Text: rule.Text, PromotionReason: rule.PromotionReason,
				Status: rule.Status, Version: rule.Version, Trust: rule.Trust, ExpiresAt: rule.ExpiresAt, Paused: rule.Paused,
				LastUsedAt: rule.LastUsedAt, UseCount: rule.UseCount, Supersedes: rule.Supersedes, SupersededBy: rule.SupersededBy,
				Findings: rawJSON(rule.Findings), Fingerprint: rule.Fingerprint, Checks: json.RawMessage(checks),
				CreatedAt: rule.CreatedAt, UpdatedAt: rule.UpdatedAt, Versions: []*governance.RuleVersion{},
			})
			return nil
		}); err != nil {
		return nil, fmt.Errorf("store: export rules: %w", err)
	}
	exported := map[int64]bool{}
	for _, r := range rules {
		exported[r.Ref] = true
	}
	for _, r := range rules {
		if !exported[r.Supersedes] {
			r.Supersedes = 0
		}
		if !exported[r.SupersededBy] {
			r.SupersededBy = 0
		}
		if err := each(`SELECT rule_id, version, text, kind, actor, reason, created_at FROM rule_versions WHERE rule_id = ? ORDER BY version`,
			[]any{r.Ref}, func(row scanner) error {
				var (
					v       governance.RuleVersion
					created string
				)
				if err := row.Scan(&v.RuleID, &v.Version, &v.Text, &v.Kind, &v.Actor, &v.Reason, &created); err != nil {
					return err
				}
				v.RuleID, v.CreatedAt = 0, parseTime(created)
				r.Versions = append(r.Versions, &v)
				return nil
			}); err != nil {
			return nil, fmt.Errorf("store: export rule versions: %w", err)
		}
		stats.Rules++
		if err := enc.Encode(exportRecord{Type: "rule", Rule: r}); err != nil {
			return nil, err
		}
	}

	cond, args = subj("c.subject_id")
	if err := each(`
		SELECT c.id, c.session_id, c.subject_id, c.type, c.statement, c.durable, c.extractor, c.status, c.status_reason,
			c.group_id, COALESCE(c.rule_id, 0), c.fingerprint, c.findings, c.created_at, c.updated_at,
			(SELECT json_group_array(e.id) FROM (SELECT e.id FROM evidence v JOIN events e ON e.seq = v.event_seq
				WHERE v.candidate_id = c.id ORDER BY e.seq) e)
		FROM candidates c WHERE c.project_id = ?`+cond+` ORDER BY c.id`, append([]any{projectID}, args...), func(r scanner) error {
		var (
			c                                 exportCandidate
			findings, created, updated, evids string
		)
		if err := r.Scan(&c.Ref, &c.SessionID, &c.SubjectID, &c.Type, &c.Statement, &c.Durable, &c.Extractor, &c.Status,
			&c.StatusReason, &c.GroupRef, &c.RuleRef, &c.Fingerprint, &findings, &created, &updated, &evids); err != nil {
			return err
		}
		if !exported[c.RuleRef] {
			c.RuleRef = 0
		}
		c.Findings = json.RawMessage(findings)
		c.CreatedAt, c.UpdatedAt = parseTime(created), parseTime(updated)
		if err := json.Unmarshal([]byte(evids), &c.EvidenceIDs); err != nil {
			return err
		}
		stats.Candidates++
		return enc.Encode(exportRecord{Type: "candidate", Candidate: &c})
	}); err != nil {
		return nil, fmt.Errorf("store: export candidates: %w", err)
	}

	cond, args = subj("subject_id")
	if err := each(`SELECT fingerprint, subject_id FROM suppressions WHERE project_id = ?`+cond+` ORDER BY fingerprint`,
		append([]any{projectID}, args...), func(r scanner) error {
			var rec = exportRecord{Type: "suppression"}
			if err := r.Scan(&rec.Fingerprint, &rec.SubjectID); err != nil {
				return err
			}
			stats.Suppressions++
			return enc.Encode(rec)
		}); err != nil {
		return nil, fmt.Errorf("store: export suppressions: %w", err)
	}

	if opts.SubjectID == nil {
		var after string
		err := tx.QueryRowContext(ctx, `
			SELECT e.id FROM checkpoints c JOIN events e ON e.project_id = c.project_id AND e.seq <= c.seq
			WHERE c.project_id = ? ORDER BY e.seq DESC LIMIT 1`, projectID).Scan(&after)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("store: export checkpoint: %w", err)
		}
		if after != "" {
			if err := enc.Encode(exportRecord{Type: "checkpoint", AfterEventID: after}); err != nil {
				return nil, err
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return stats, nil
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return json.RawMessage("[]")
	}
	return b
}

// ImportExport reads an export (ExportJSONL) into a new project, all in one
// transaction: the same events (new seqs, same ids and order), episodes,
// rules with versions, candidates with evidence, suppressions and
// checkpoint. A project with the slug must not exist yet (ECONFLICT). A bad
// line rejects the whole file with an *governance.ImportError naming it.
func (s *Store) ImportExport(ctx context.Context, r io.Reader, opts governance.ImportOptions) (*governance.Project, *governance.ExportStats, error) {
	records, err := parseExport(r)
	if err != nil {
		return nil, nil, err
	}
	hdr := records[0].Project
	p := &governance.Project{Slug: hdr.Slug, Name: hdr.Name, Description: hdr.Description, AutoActivate: hdr.AutoActivate}
	if opts.Slug != "" {
		p.Slug = opts.Slug
	}
	if opts.Name != "" {
		p.Name = opts.Name
	}
	if p.Slug == "" || p.Name == "" {
		return nil, nil, governance.Errorf(governance.EINVALID, "The export names no project slug and name.")
	}
	if err := governance.ValidateSlug(p.Slug); err != nil {
		return nil, nil, err
	}
	var events []*governance.Event
	for _, rec := range records {
		if rec.Type == "event" {
			events = append(events, rec.Event)
		}
	}
	if err := governance.ValidateBatch(events); err != nil {
		return nil, nil, err
	}

	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	now := formatTime(tx.now)
	res, err := tx.ExecContext(ctx, `INSERT INTO projects (slug, name, description, auto_activate, created_at) VALUES (?, ?, ?, ?, ?)`,
		p.Slug, p.Name, p.Description, p.AutoActivate, now)
	if err != nil {
		return nil, nil, mapError(err, "Project "+p.Slug)
	}
	p.ID, _ = res.LastInsertId()
	p.CreatedAt = tx.now
	stats := &governance.ExportStats{}
	if _, err := ingestEvents(ctx, tx, p.ID, events); err != nil {
		return nil, nil, err
	}
	seqOf := make(map[string]int64, len(events))
	for _, e := range events {
		seqOf[e.ID] = e.Seq
		if e.Redacted {
			if _, err := tx.ExecContext(ctx, `UPDATE events SET redacted = 1 WHERE seq = ?`, e.Seq); err != nil {
				return nil, nil, fmt.Errorf("store: import redaction: %w", err)
			}
		}
	}
	stats.Events = len(events)
	ruleIDs := map[int64]int64{}
	candIDs := map[int64]int64{}
	var rules []*exportRule
	var cands []*exportCandidate
	for _, rec := range records {
		switch rec.Type {
		case "episode":
			ep := rec.Episode
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				p.ID, ep.SessionID, ep.SubjectID, ep.Summary, seqOf[ep.FirstEventID], seqOf[ep.LastEventID], ep.EventCount,
				ep.Extractor, formatTime(ep.CreatedAt), formatTime(ep.UpdatedAt)); err != nil {
				return nil, nil, mapError(err, "Episode "+ep.SessionID)
			}
			stats.Episodes++
		case "rule":
			r := rec.Rule
			res, err := tx.ExecContext(ctx, `
				INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, version, trust, expires_at, paused,
					last_used_at, use_count, findings, fingerprint, checks, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				p.ID, r.SubjectID, r.Kind, r.Text, r.PromotionReason, r.Status, r.Version, r.Trust, formatTimePtr(r.ExpiresAt), r.Paused,
				formatTimePtr(r.LastUsedAt), r.UseCount, jsonOr(r.Findings, "[]"), r.Fingerprint, jsonOr(r.Checks, "[]"),
				formatTime(r.CreatedAt), formatTime(r.UpdatedAt))
			if err != nil {
				return nil, nil, mapError(err, fmt.Sprintf("Rule %d", r.Ref))
			}
			id, _ := res.LastInsertId()
			ruleIDs[r.Ref] = id
			for _, v := range r.Versions {
				if _, err := tx.ExecContext(ctx, `INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					id, v.Version, v.Text, v.Kind, v.Actor, v.Reason, formatTime(v.CreatedAt)); err != nil {
					return nil, nil, mapError(err, fmt.Sprintf("Rule %d version %d", r.Ref, v.Version))
				}
			}
			rules = append(rules, r)
			stats.Rules++
		case "candidate":
			c := rec.Candidate
			res, err := tx.ExecContext(ctx, `
				INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, status_reason,
					group_id, rule_id, fingerprint, findings, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
				p.ID, c.SessionID, c.SubjectID, c.Type, c.Statement, c.Durable, c.Extractor, c.Status, c.StatusReason,
				nullInt(ruleIDs[c.RuleRef]), c.Fingerprint, jsonOr(c.Findings, "[]"), formatTime(c.CreatedAt), formatTime(c.UpdatedAt))
			if err != nil {
				return nil, nil, mapError(err, fmt.Sprintf("Candidate %d", c.Ref))
			}
			id, _ := res.LastInsertId()
			candIDs[c.Ref] = id
			for _, eid := range c.EvidenceIDs {
				seq, ok := seqOf[eid]
				if !ok {
					return nil, nil, governance.Errorf(governance.EINVALID, "Candidate %d cites event %q, which the export does not hold.", c.Ref, eid)
				}
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO evidence (candidate_id, event_seq) VALUES (?, ?)`, id, seq); err != nil {
					return nil, nil, fmt.Errorf("store: import evidence: %w", err)
				}
			}
			cands = append(cands, c)
			stats.Candidates++
		case "suppression":
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES (?, ?, ?, ?)`,
				p.ID, rec.Fingerprint, rec.SubjectID, now); err != nil {
				return nil, nil, fmt.Errorf("store: import suppression: %w", err)
			}
			stats.Suppressions++
		case "checkpoint":
			seq, ok := seqOf[rec.AfterEventID]
			if !ok {
				return nil, nil, governance.Errorf(governance.EINVALID, "The checkpoint names event %q, which the export does not hold.", rec.AfterEventID)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (project_id, seq, updated_at) VALUES (?, ?, ?)`, p.ID, seq, now); err != nil {
				return nil, nil, fmt.Errorf("store: import checkpoint: %w", err)
			}
		}
	}
	for _, r := range rules {
		if r.Supersedes == 0 && r.SupersededBy == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET supersedes = ?, superseded_by = ? WHERE id = ?`,
			nullInt(ruleIDs[r.Supersedes]), nullInt(ruleIDs[r.SupersededBy]), ruleIDs[r.Ref]); err != nil {
			return nil, nil, fmt.Errorf("store: import rule links: %w", err)
		}
	}
	for _, c := range cands {
		if _, err := tx.ExecContext(ctx, `UPDATE candidates SET group_id = ? WHERE id = ?`, candIDs[c.GroupRef], candIDs[c.Ref]); err != nil {
			return nil, nil, fmt.Errorf("store: import candidate groups: %w", err)
		}
	}
	details, _ := json.Marshal(stats)
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: opts.Actor, Action: "project.import", ObjectType: "project", ObjectID: fmt.Sprint(p.ID), ProjectID: p.ID,
		Details: string(details),
	}); err != nil {
		return nil, nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, err
	}
	return p, stats, nil
}

func jsonOr(v json.RawMessage, def string) string {
	if len(v) == 0 || string(v) == "null" {
		return def
	}
	return string(v)
}

// parseExport reads and checks every line; problems are reported together
// by line number, and nothing is returned then.
func parseExport(r io.Reader) ([]*exportRecord, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var (
		out []*exportRecord
		bad governance.LineErrors
	)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec exportRecord
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		problem := ""
		if err := dec.Decode(&rec); err != nil {
			problem = "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
		} else {
			problem = checkExportRecord(&rec, len(out) == 0)
		}
		if problem != "" {
			bad.Add(n, problem)
			continue
		}
		out = append(out, &rec)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, governance.Errorf(governance.EINVALID, "Line %d is too long.", n+1)
		}
		return nil, fmt.Errorf("store: read export: %w", err)
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "The export is empty.")
	}
	return out, nil
}

func checkExportRecord(rec *exportRecord, first bool) string {
	if first != (rec.Type == "project") {
		return "the first record, and only it, must be of type project"
	}
	switch rec.Type {
	case "project":
		if rec.Format != governance.ExportFormat || rec.Project == nil {
			return fmt.Sprintf("format must be %q with a project", governance.ExportFormat)
		}
	case "event":
		if rec.Event == nil {
			return "event record without event"
		}
	case "episode":
		if rec.Episode == nil {
			return "episode record without episode"
		}
	case "rule":
		if rec.Rule == nil || rec.Rule.Ref == 0 {
			return "rule record without rule or ref"
		}
	case "candidate":
		if rec.Candidate == nil || rec.Candidate.Ref == 0 {
			return "candidate record without candidate or ref"
		}
	case "suppression":
		if rec.Fingerprint == "" {
			return "suppression without fingerprint"
		}
	case "checkpoint":
		if rec.AfterEventID == "" {
			return "checkpoint without after_event_id"
		}
	default:
		return fmt.Sprintf("unknown record type %q", rec.Type)
	}
	return ""
}

// ExportHermes builds MEMORY.md from the project's usable project-wide rules
// and USER.md from the usable rules about subjectID ("" leaves USER.md empty).
func (s *Store) ExportHermes(ctx context.Context, projectID int64, subjectID string) (*governance.HermesExport, error) {
	var project, user []*governance.Rule
	err := queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM rules r WHERE r.project_id = ? AND r.status = 'active'
		AND (r.subject_id = '' OR r.subject_id = ?) ORDER BY r.id`, []any{projectID, subjectID}, func(r scanner) error {
		rule, err := scanRule(r)
		if err != nil {
			return err
		}
		if rule.SubjectID == "" {
			project = append(project, rule)
		} else {
			user = append(user, rule)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: export hermes: %w", err)
	}
	now, w := s.Now().UTC(), governance.DefaultRecallWeights()
	return &governance.HermesExport{
		Memory: governance.BuildHermesFile(governance.HermesMemoryName, governance.HermesMemoryLimit, project, now, w),
		User:   governance.BuildHermesFile(governance.HermesUserName, governance.HermesUserLimit, user, now, w),
	}, nil
}

// ExportAgentFiles builds the managed blocks of the files coding agents
// read (AGENTS.md, CLAUDE.md, .claude/rules/<topic>.md) from the project's
// usable rules, plus the subject's when subjectID is not empty, and the
// Hermes MEMORY.md and USER.md.
func (s *Store) ExportAgentFiles(ctx context.Context, projectID int64, subjectID string) ([]governance.AgentFile, *governance.HermesExport, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var rules []*governance.Rule
	err = queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM rules r WHERE r.project_id = ? AND r.status = 'active'
		AND (r.subject_id = '' OR r.subject_id = ?) ORDER BY r.id`, []any{projectID, subjectID}, func(r scanner) error {
		rule, err := scanRule(r)
		if err != nil {
			return err
		}
		rules = append(rules, rule)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: export agent files: %w", err)
	}
	h, err := s.ExportHermes(ctx, projectID, subjectID)
	if err != nil {
		return nil, nil, err
	}
	return governance.BuildAgentFiles(p.Slug, rules, s.Now().UTC(), governance.DefaultRecallWeights()), h, nil
}
