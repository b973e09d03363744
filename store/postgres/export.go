package postgres

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/agentfile"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// Exports in the format governance.ExportRecord defines (the SQLite
// store writes and reads the same), the Hermes memory files and the
// coding agents' files.

// ExportJSONL writes every layer of a project as JSON Lines
// (governance.ExportRecord), from one consistent snapshot (a read-only
// repeatable-read transaction), streaming.
func (s *Store) ExportJSONL(ctx context.Context, projectID int64, w io.Writer, opts governance.ExportOptions) (*governance.ExportStats, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("postgres: export: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	stats := &governance.ExportStats{}
	now := utc(s.Now())
	if err := enc.Encode(governance.ExportRecord{Type: "project", Format: governance.ExportFormat, ExportedAt: &now,
		Project: &governance.ExportProject{Slug: p.Slug, Name: p.Name, Description: p.Description, AutoActivate: p.AutoActivate, SingleUser: p.SingleUser}}); err != nil {
		return nil, err
	}
	// subj narrows a query to the subject of opts ($2) when one is set.
	subj := func(col string) (string, []any) {
		if opts.SubjectID == nil {
			return "", []any{projectID}
		}
		return " AND " + col + " = $2", []any{projectID, *opts.SubjectID}
	}

	cond, args := subj("e.subject_id")
	if err := queryAll(ctx, tx, `SELECT `+eventColumns+` FROM events e WHERE e.project_id = $1`+cond+` ORDER BY e.seq`,
		args, func(r pgx.Row) error {
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
		return nil, fmt.Errorf("postgres: export events: %w", err)
	}

	cond, args = subj("ep.subject_id")
	if err := queryAll(ctx, tx, `
		SELECT ep.session_id, ep.subject_id, ep.summary, COALESCE(f.id, ''), COALESCE(l.id, ''), ep.event_count, ep.extractor,
			ep.created_at, ep.updated_at
		FROM episodes ep LEFT JOIN events f ON f.seq = ep.first_seq LEFT JOIN events l ON l.seq = ep.last_seq
		WHERE ep.project_id = $1`+cond+` ORDER BY ep.id`, args, func(r pgx.Row) error {
		var ep governance.ExportEpisode
		if err := r.Scan(&ep.SessionID, &ep.SubjectID, &ep.Summary, &ep.FirstEventID, &ep.LastEventID, &ep.EventCount,
			&ep.Extractor, &ep.CreatedAt, &ep.UpdatedAt); err != nil {
			return err
		}
		ep.CreatedAt, ep.UpdatedAt = ep.CreatedAt.UTC(), ep.UpdatedAt.UTC()
		stats.Episodes++
		return enc.Encode(governance.ExportRecord{Type: "episode", Episode: &ep})
	}); err != nil {
		return nil, fmt.Errorf("postgres: export episodes: %w", err)
	}

	cond, args = subj("r.subject_id")
	var rules []*governance.ExportRule
	byRef := map[int64]*governance.ExportRule{}
	if err := queryAll(ctx, tx, `SELECT `+ruleColumns+`, r.checks FROM rules r WHERE r.project_id = $1 AND r.status <> 'forgotten'`+cond+` ORDER BY r.id`,
		args, func(r pgx.Row) error {
			var checks string
			rule, err := scanRule(r, &checks)
			if err != nil {
				return err
			}
			er := governance.NewExportRule(rule, checks)
			rules = append(rules, er)
			byRef[er.Ref] = er
			return nil
		}); err != nil {
		return nil, fmt.Errorf("postgres: export rules: %w", err)
	}
	refs := make([]int64, 0, len(rules))
	for _, r := range rules {
		refs = append(refs, r.Ref)
		if byRef[r.Supersedes] == nil {
			r.Supersedes = 0
		}
		if byRef[r.SupersededBy] == nil {
			r.SupersededBy = 0
		}
	}
	if err := queryAll(ctx, tx, `SELECT rule_id, version, text, kind, actor, reason, created_at FROM rule_versions
		WHERE rule_id = ANY($1) ORDER BY rule_id, version`, []any{refs}, func(row pgx.Row) error {
		var v governance.RuleVersion
		if err := row.Scan(&v.RuleID, &v.Version, &v.Text, &v.Kind, &v.Actor, &v.Reason, &v.CreatedAt); err != nil {
			return err
		}
		r := byRef[v.RuleID]
		v.RuleID, v.CreatedAt = 0, v.CreatedAt.UTC()
		r.Versions = append(r.Versions, &v)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: export rule versions: %w", err)
	}
	for _, r := range rules {
		stats.Rules++
		if err := enc.Encode(governance.ExportRecord{Type: "rule", Rule: r}); err != nil {
			return nil, err
		}
	}

	cond, args = subj("c.subject_id")
	if err := queryAll(ctx, tx, `
		SELECT c.id, c.session_id, c.subject_id, c.type, c.statement, c.durable, c.extractor, c.status, c.status_reason,
			c.group_id, COALESCE(c.rule_id, 0), c.fingerprint, c.findings, c.created_at, c.updated_at,
			ARRAY(SELECT e.id FROM evidence v JOIN events e ON e.seq = v.event_seq WHERE v.candidate_id = c.id ORDER BY e.seq)
		FROM candidates c WHERE c.project_id = $1`+cond+` ORDER BY c.id`, args, func(r pgx.Row) error {
		var (
			c        governance.ExportCandidate
			findings string
		)
		if err := r.Scan(&c.Ref, &c.SessionID, &c.SubjectID, &c.Type, &c.Statement, &c.Durable, &c.Extractor, &c.Status,
			&c.StatusReason, &c.GroupRef, &c.RuleRef, &c.Fingerprint, &findings, &c.CreatedAt, &c.UpdatedAt, &c.EvidenceIDs); err != nil {
			return err
		}
		if byRef[c.RuleRef] == nil {
			c.RuleRef = 0
		}
		if c.EvidenceIDs == nil {
			c.EvidenceIDs = []string{}
		}
		c.Findings = json.RawMessage(findings)
		c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
		stats.Candidates++
		return enc.Encode(governance.ExportRecord{Type: "candidate", Candidate: &c})
	}); err != nil {
		return nil, fmt.Errorf("postgres: export candidates: %w", err)
	}

	cond, args = subj("subject_id")
	if err := queryAll(ctx, tx, `SELECT fingerprint, subject_id FROM suppressions WHERE project_id = $1`+cond+` ORDER BY fingerprint COLLATE "C"`,
		args, func(r pgx.Row) error {
			rec := governance.ExportRecord{Type: "suppression"}
			if err := r.Scan(&rec.Fingerprint, &rec.SubjectID); err != nil {
				return err
			}
			stats.Suppressions++
			return enc.Encode(rec)
		}); err != nil {
		return nil, fmt.Errorf("postgres: export suppressions: %w", err)
	}

	if opts.SubjectID == nil {
		var after string
		err := tx.QueryRow(ctx, `
			SELECT e.id FROM checkpoints c JOIN events e ON e.project_id = c.project_id AND e.seq <= c.seq
			WHERE c.project_id = $1 ORDER BY e.seq DESC LIMIT 1`, projectID).Scan(&after)
		if err != nil && !isNoRows(err) {
			return nil, fmt.Errorf("postgres: export checkpoint: %w", err)
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
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.rollback()
	err = tx.QueryRow(ctx, `INSERT INTO projects (slug, name, description, auto_activate, single_user, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		p.Slug, p.Name, p.Description, p.AutoActivate, p.SingleUser, tx.now).Scan(&p.ID)
	if err != nil {
		return nil, nil, mapError(err, "Project "+p.Slug)
	}
	p.CreatedAt = tx.now
	if err := tx.lockProjectIngest(ctx, p.ID); err != nil {
		return nil, nil, err
	}
	if _, err := insertEvents(ctx, tx, p.ID, x.Events); err != nil {
		return nil, nil, err
	}
	stats := &governance.ExportStats{Events: len(x.Events)}
	seqOf := make(map[string]int64, len(x.Events))
	var redacted []int64
	for _, e := range x.Events {
		seqOf[e.ID] = e.Seq
		if e.Redacted {
			redacted = append(redacted, e.Seq)
		}
	}
	if len(redacted) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE events SET redacted = true, words = ''::tsvector WHERE seq = ANY($1)`, redacted); err != nil {
			return nil, nil, fmt.Errorf("postgres: import redaction: %w", err)
		}
	}
	ruleIDs := map[int64]int64{}
	candIDs := map[int64]int64{}
	var (
		rules []*governance.ExportRule
		cands []*governance.ExportCandidate
	)
	for _, rec := range x.Records {
		switch rec.Type {
		case "episode":
			ep := rec.Episode
			if _, err := tx.Exec(ctx, `
				INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor,
					created_at, updated_at, words)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::tsvector)`,
				p.ID, ep.SessionID, ep.SubjectID, ep.Summary, seqOf[ep.FirstEventID], seqOf[ep.LastEventID], ep.EventCount,
				ep.Extractor, utc(ep.CreatedAt), utc(ep.UpdatedAt), tsvectorOf(ep.Summary)); err != nil {
				return nil, nil, mapError(err, "Episode "+ep.SessionID)
			}
			stats.Episodes++
		case "rule":
			r := rec.Rule
			var id int64
			err := tx.QueryRow(ctx, `
				INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, version, trust, expires_at, paused,
					last_used_at, use_count, findings, fingerprint, checks, created_at, updated_at, words)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::tsvector) RETURNING id`,
				p.ID, r.SubjectID, string(r.Kind), r.Text, string(r.PromotionReason), string(r.Status), r.Version, r.Trust,
				utcPtr(r.ExpiresAt), r.Paused, utcPtr(r.LastUsedAt), r.UseCount, governance.JSONOr(r.Findings, "[]"), r.Fingerprint,
				governance.JSONOr(r.Checks, "[]"), utc(r.CreatedAt), utc(r.UpdatedAt), tsvectorOf(r.Text)).Scan(&id)
			if err != nil {
				return nil, nil, mapError(err, fmt.Sprintf("Rule %d", r.Ref))
			}
			ruleIDs[r.Ref] = id
			for _, v := range r.Versions {
				if _, err := tx.Exec(ctx, `INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
					id, v.Version, v.Text, string(v.Kind), v.Actor, v.Reason, utc(v.CreatedAt)); err != nil {
					return nil, nil, mapError(err, fmt.Sprintf("Rule %d version %d", r.Ref, v.Version))
				}
			}
			rules = append(rules, r)
			stats.Rules++
		case "candidate":
			c := rec.Candidate
			var id int64
			err := tx.QueryRow(ctx, `
				INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, status_reason,
					group_id, rule_id, fingerprint, findings, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, $11, $12, $13, $14) RETURNING id`,
				p.ID, c.SessionID, c.SubjectID, string(c.Type), c.Statement, c.Durable, c.Extractor, string(c.Status), c.StatusReason,
				nullInt(ruleIDs[c.RuleRef]), c.Fingerprint, governance.JSONOr(c.Findings, "[]"), utc(c.CreatedAt), utc(c.UpdatedAt)).Scan(&id)
			if err != nil {
				return nil, nil, mapError(err, fmt.Sprintf("Candidate %d", c.Ref))
			}
			candIDs[c.Ref] = id
			seqs := make([]int64, 0, len(c.EvidenceIDs))
			for _, eid := range c.EvidenceIDs {
				seq, ok := seqOf[eid]
				if !ok {
					return nil, nil, governance.Errorf(governance.EINVALID, "Candidate %d cites event %q, which the export does not hold.", c.Ref, eid)
				}
				seqs = append(seqs, seq)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO evidence (candidate_id, event_seq) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`,
				id, seqs); err != nil {
				return nil, nil, fmt.Errorf("postgres: import evidence: %w", err)
			}
			cands = append(cands, c)
			stats.Candidates++
		case "suppression":
			if _, err := tx.Exec(ctx, `INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES ($1, $2, $3, $4)
				ON CONFLICT DO NOTHING`, p.ID, rec.Fingerprint, rec.SubjectID, tx.now); err != nil {
				return nil, nil, fmt.Errorf("postgres: import suppression: %w", err)
			}
			stats.Suppressions++
		case "checkpoint":
			seq, ok := seqOf[rec.AfterEventID]
			if !ok {
				return nil, nil, governance.Errorf(governance.EINVALID, "The checkpoint names event %q, which the export does not hold.", rec.AfterEventID)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO checkpoints (project_id, seq, updated_at) VALUES ($1, $2, $3)`, p.ID, seq, tx.now); err != nil {
				return nil, nil, mapError(err, "Checkpoint")
			}
		}
	}
	for _, r := range rules {
		if r.Supersedes == 0 && r.SupersededBy == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE rules SET supersedes = $1, superseded_by = $2 WHERE id = $3`,
			nullInt(ruleIDs[r.Supersedes]), nullInt(ruleIDs[r.SupersededBy]), ruleIDs[r.Ref]); err != nil {
			return nil, nil, fmt.Errorf("postgres: import rule links: %w", err)
		}
	}
	for _, c := range cands {
		if _, err := tx.Exec(ctx, `UPDATE candidates SET group_id = $1 WHERE id = $2`, candIDs[c.GroupRef], candIDs[c.Ref]); err != nil {
			return nil, nil, fmt.Errorf("postgres: import candidate groups: %w", err)
		}
	}
	details, _ := json.Marshal(stats)
	if err := appendAudit(ctx, tx, &governance.AuditEntry{
		Actor: opts.Actor, Action: "project.import", ObjectType: "project", ObjectID: fmt.Sprint(p.ID), ProjectID: p.ID,
		Details: string(details),
	}); err != nil {
		return nil, nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, nil, err
	}
	return p, stats, nil
}

// usableRules reads the active rules of a project that apply to subjectID
// (project-wide ones and the subject's own), by id.
func (s *Store) usableRules(ctx context.Context, projectID int64, subjectID string) ([]*governance.Rule, error) {
	var out []*governance.Rule
	err := queryAll(ctx, s.pool, `SELECT `+ruleColumns+` FROM rules r WHERE r.project_id = $1 AND r.status = 'active'
		AND (r.subject_id = '' OR r.subject_id = $2) ORDER BY r.id`, []any{projectID, subjectID}, rowscan.AppendV[pgx.Row](scanRule, &out))
	return out, err
}

// ExportHermes builds MEMORY.md from the project's usable project-wide rules
// and USER.md from the usable rules about subjectID ("" leaves USER.md empty).
func (s *Store) ExportHermes(ctx context.Context, projectID int64, subjectID string) (*governance.HermesExport, error) {
	rules, err := s.usableRules(ctx, projectID, subjectID)
	if err != nil {
		return nil, fmt.Errorf("postgres: export hermes: %w", err)
	}
	return hermesOf(rules, s.Now().UTC()), nil
}

func hermesOf(rules []*governance.Rule, now time.Time) *governance.HermesExport {
	var project, user []*governance.Rule
	for _, r := range rules {
		if r.SubjectID == "" {
			project = append(project, r)
		} else {
			user = append(user, r)
		}
	}
	w := governance.DefaultRecallWeights()
	return &governance.HermesExport{
		Memory: agentfile.BuildHermesFile(governance.HermesMemoryName, governance.HermesMemoryLimit, project, now, w),
		User:   agentfile.BuildHermesFile(governance.HermesUserName, governance.HermesUserLimit, user, now, w),
	}
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
	rules, err := s.usableRules(ctx, projectID, subjectID)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: export agent files: %w", err)
	}
	now := s.Now().UTC()
	return agentfile.BuildAgentFiles(p.Slug, rules, now, governance.DefaultRecallWeights()), hermesOf(rules, now), nil
}
