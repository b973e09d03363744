package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/agentfile"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// ExportJSONL writes every layer of a project as JSON Lines (governance.ExportRecord), from one consistent read snapshot, streaming.
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
	if err := enc.Encode(governance.ExportRecord{Type: "project", Format: governance.ExportFormat, ExportedAt: &now, Project: &governance.ExportProject{
		Slug: p.Slug, Name: p.Name, Description: p.Description, AutoActivate: p.AutoActivate, SingleUser: p.SingleUser}}); err != nil {
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
			rec, err := governance.ExportEventRecord(ctx, e, gate.Patterns)
			if err != nil {
				return err
			}
			return enc.Encode(rec)
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
			ep               governance.ExportEpisode
			created, updated string
		)
		if err := r.Scan(&ep.SessionID, &ep.SubjectID, &ep.Summary, &ep.FirstEventID, &ep.LastEventID, &ep.EventCount,
			&ep.Extractor, &created, &updated); err != nil {
			return err
		}
		ep.CreatedAt, ep.UpdatedAt = parseTime(created), parseTime(updated)
		stats.Episodes++
		return enc.Encode(governance.ExportRecord{Type: "episode", Episode: &ep})
	}); err != nil {
		return nil, fmt.Errorf("store: export episodes: %w", err)
	}

	cond, args = subj("r.subject_id")
	var rules []*governance.ExportRule
	if err := each(`SELECT `+ruleColumns+`, r.checks FROM rules r WHERE r.project_id = ? AND r.status <> 'forgotten'`+cond+` ORDER BY r.id`,
		append([]any{projectID}, args...), func(r scanner) error {
			var checks string
			rule, err := scanRule(r, &checks)
			if err != nil {
				return err
			}
			rules = append(rules, governance.NewExportRule(rule, checks))
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
		if err := enc.Encode(governance.ExportRecord{Type: "rule", Rule: r}); err != nil {
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
			c                                 governance.ExportCandidate
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
		return enc.Encode(governance.ExportRecord{Type: "candidate", Candidate: &c})
	}); err != nil {
		return nil, fmt.Errorf("store: export candidates: %w", err)
	}

	cond, args = subj("subject_id")
	if err := each(`SELECT fingerprint, subject_id FROM suppressions WHERE project_id = ?`+cond+` ORDER BY fingerprint`,
		append([]any{projectID}, args...), func(r scanner) error {
			var rec = governance.ExportRecord{Type: "suppression"}
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
			if err := enc.Encode(governance.ExportRecord{Type: "checkpoint", AfterEventID: after}); err != nil {
				return nil, err
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return stats, nil
}

// ImportExport reads an export (ExportJSONL) into a new project, all in one
// transaction: the same events (new seqs, same ids and order), episodes,
// rules with versions, candidates with evidence, suppressions and
// checkpoint. A project with the slug must not exist yet (ECONFLICT). A bad
// line rejects the whole file with an *governance.ImportError naming it.
func (s *Store) ImportExport(ctx context.Context, r io.Reader, opts governance.ImportOptions) (*governance.Project, *governance.ExportStats, error) {
	x, err := governance.ParseExport(ctx, r, gate.Patterns)
	if err != nil {
		return nil, nil, err
	}
	p, err := x.ImportProject(opts)
	if err != nil {
		return nil, nil, err
	}
	records, events := x.Records, x.Events

	tx, err := s.begin(ctx, "ImportExport")
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	now := formatTime(tx.now)
	res, err := tx.ExecContext(ctx, `INSERT INTO projects (slug, name, description, auto_activate, single_user, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		p.Slug, p.Name, p.Description, p.AutoActivate, p.SingleUser, now)
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
	var rules []*governance.ExportRule
	var cands []*governance.ExportCandidate
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
				formatTimePtr(r.LastUsedAt), r.UseCount, governance.JSONOr(r.Findings, "[]"), r.Fingerprint, governance.JSONOr(r.Checks, "[]"),
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
				nullInt(ruleIDs[c.RuleRef]), c.Fingerprint, governance.JSONOr(c.Findings, "[]"), formatTime(c.CreatedAt), formatTime(c.UpdatedAt))
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
		Memory: agentfile.BuildHermesFile(governance.HermesMemoryName, governance.HermesMemoryLimit, project, now, w),
		User:   agentfile.BuildHermesFile(governance.HermesUserName, governance.HermesUserLimit, user, now, w),
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
		AND (r.subject_id = '' OR r.subject_id = ?) ORDER BY r.id`, []any{projectID, subjectID}, rowscan.AppendV[scanner](scanRule, &rules))
	if err != nil {
		return nil, nil, fmt.Errorf("store: export agent files: %w", err)
	}
	h, err := s.ExportHermes(ctx, projectID, subjectID)
	if err != nil {
		return nil, nil, err
	}
	return agentfile.BuildAgentFiles(p.Slug, rules, s.Now().UTC(), governance.DefaultRecallWeights()), h, nil
}
