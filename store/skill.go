package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/skillrows"
)

// Skills: a project's governed skill folders, their versions with files,
// evidence and the procedures the heartbeat saw (migration 0060). The
// lifecycle is the domain's ((*governance.Skill).Decide, NextVersion);
// the shape of rows and audit details is shared with PostgreSQL in
// store/internal/skillrows.

const skillColumns = `s.id, s.project_id, p.slug, s.name, s.category, s.description, s.status, s.pinned, s.version, s.latest,
	s.pending, s.findings, s.examples, s.signature, s.uses, s.last_used_at, s.status_at, s.created_at, s.updated_at`

func scanSkill(r scanner) (*governance.Skill, error) {
	s := &governance.Skill{}
	var examples, statusAt, created, updated string
	var used NullTime
	if err := r.Scan(&s.ID, &s.ProjectID, &s.Project, &s.Name, &s.Category, &s.Description, &s.Status, &s.Pinned, &s.Version,
		&s.Latest, &s.Pending, &s.Findings, &examples, &s.Signature, &s.Uses, &used, &statusAt, &created, &updated); err != nil {
		return nil, err
	}
	s.Examples = skillrows.Examples(examples)
	s.LastUsedAt, s.StatusAt, s.CreatedAt, s.UpdatedAt = used.Time, parseTime(statusAt), parseTime(created), parseTime(updated)
	return s, nil
}

func findSkill(ctx context.Context, q querier, where string, args ...any) (*governance.Skill, error) {
	s, err := scanSkill(q.QueryRowContext(ctx, `SELECT `+skillColumns+` FROM skills s JOIN projects p ON p.id = s.project_id WHERE `+where, args...))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Skill not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("store: find skill: %w", err)
	}
	return s, nil
}

// FindSkill returns a project's skill by name.
func (s *Store) FindSkill(ctx context.Context, projectID int64, name string) (*governance.Skill, error) {
	return findSkill(ctx, s.read, `s.project_id = ? AND s.name = ?`, projectID, name)
}

// FindSkills lists skills by name (a page, and the count of all that match).
func (s *Store) FindSkills(ctx context.Context, f governance.SkillFilter) ([]*governance.Skill, int, error) {
	where, args := []string{"s.project_id = ?"}, []any{f.ProjectID}
	if len(f.Statuses) > 0 {
		statuses := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			statuses[i] = string(st)
		}
		where = append(where, `s.status IN (SELECT value FROM json_each(?))`)
		args = append(args, listArg(statuses))
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		where = append(where, `(s.name LIKE ? ESCAPE '\' OR s.description LIKE ? ESCAPE '\')`)
		like := "%" + likeEscape(q) + "%"
		args = append(args, like, like)
	}
	if f.Signature != "" {
		where, args = append(where, `s.signature = ?`), append(args, f.Signature)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM skills s WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count skills: %w", err)
	}
	var out []*governance.Skill
	err := queryAll(ctx, s.read, `SELECT `+skillColumns+` FROM skills s JOIN projects p ON p.id = s.project_id WHERE `+cond+
		` ORDER BY s.name`+pageSQL, pageArgs(args, skillrows.PageLimit(f), f.Offset), rowscan.Append[scanner](scanSkill, &out))
	if err != nil {
		return nil, 0, fmt.Errorf("store: find skills: %w", err)
	}
	return nonNil(out), total, nil
}

// SkillGeneration names the state of a project's skills a context package
// could see: it changes whenever one of them does (usage aside).
func (s *Store) SkillGeneration(ctx context.Context, projectID int64) (int64, error) {
	var rev int64
	if err := s.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(rev), 0) FROM skills WHERE project_id = ?`, projectID).Scan(&rev); err != nil {
		return 0, fmt.Errorf("store: skill generation: %w", err)
	}
	return rev, nil
}

// FindSkillVersions returns every version of a skill, newest first, with
// its files.
func (s *Store) FindSkillVersions(ctx context.Context, skillID int64) ([]*governance.SkillVersion, error) {
	return findSkillVersions(ctx, s.read, skillID, 0)
}

func findSkillVersions(ctx context.Context, q querier, skillID int64, only int) ([]*governance.SkillVersion, error) {
	vs := skillrows.NewVersions()
	cond, args := `skill_id = ?`, []any{skillID}
	if only > 0 {
		cond, args = cond+` AND version = ?`, append(args, only)
	}
	if err := queryAll(ctx, q, `SELECT `+skillrows.VersionColumns+` FROM skill_versions WHERE `+cond+` ORDER BY version DESC`, args,
		skillrows.Read(vs, scanSkillVersion)); err != nil {
		return nil, fmt.Errorf("store: find skill versions: %w", err)
	}
	if err := queryAll(ctx, q, `SELECT version, path, content FROM skill_files WHERE `+cond+` ORDER BY version, path`, args,
		skillrows.Files[scanner](vs)); err != nil {
		return nil, fmt.Errorf("store: find skill files: %w", err)
	}
	return vs.List, nil
}

func scanSkillVersion(r scanner, row *skillrows.Version) error {
	var decided NullTime
	var created string
	if err := r.Scan(row.Dest(&decided, &created)...); err != nil {
		return err
	}
	row.DecidedAt, row.CreatedAt = decided.Time, parseTime(created)
	return nil
}

// FindSkillEvidence returns the sessions a skill was learned from.
func (s *Store) FindSkillEvidence(ctx context.Context, skillID int64) ([]governance.SkillEvidence, error) {
	var out []governance.SkillEvidence
	if err := queryAll(ctx, s.read, `SELECT session_id, subject_id, seqs, check_step FROM skill_evidence WHERE skill_id = ? ORDER BY session_id`,
		[]any{skillID}, skillrows.Evidence[scanner](&out)); err != nil {
		return nil, fmt.Errorf("store: find skill evidence: %w", err)
	}
	return out, nil
}

// nextSkillRev draws the next rev of the skills table.
func nextSkillRev(ctx context.Context, tx *Tx) (int64, error) {
	var rev int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(rev), 0) + 1 FROM skills`).Scan(&rev); err != nil {
		return 0, fmt.Errorf("store: skill rev: %w", err)
	}
	return rev, nil
}

func writeSkill(ctx context.Context, tx *Tx, sk *governance.Skill) error {
	rev, err := nextSkillRev(ctx, tx)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE skills SET category = ?, description = ?, status = ?, pinned = ?, version = ?, latest = ?,
		pending = ?, findings = ?, examples = ?, signature = ?, rev = ?, status_at = ?, updated_at = ? WHERE id = ?`,
		sk.Category, sk.Description, sk.Status, sk.Pinned, sk.Version, sk.Latest, sk.Pending, sk.Findings,
		skillrows.ExamplesJSON(sk.Examples), sk.Signature, rev, formatTime(sk.StatusAt), formatTime(tx.now), sk.ID)
	if err != nil {
		return fmt.Errorf("store: update skill: %w", err)
	}
	sk.UpdatedAt = tx.now
	return nil
}

// SaveSkill stores a proposal as the next version of the project's skill
// of that name (skillrows.Save).
func (s *Store) SaveSkill(ctx context.Context, actor string, p *governance.SkillProposal) (*governance.SkillSaved, error) {
	tx, err := s.begin(ctx, "SaveSkill")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := forgotSince(ctx, tx, p.ProjectID, p.ForgetGeneration); err != nil {
		return nil, err
	}
	saved, err := skillrows.Save(ctx, skillTx{tx}, actor, p)
	if err != nil {
		return nil, err
	}
	return saved, tx.Commit()
}

// DecideSkill applies a reviewer's decision and audits it
// (skillrows.Decide).
func (s *Store) DecideSkill(ctx context.Context, actor string, skillID int64, d governance.SkillDecision) (*governance.Skill, error) {
	tx, err := s.begin(ctx, "DecideSkill")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	sk, err := skillrows.Decide(ctx, skillTx{tx}, actor, skillID, d)
	if err != nil {
		return nil, err
	}
	return sk, tx.Commit()
}

// skillTx is the SQL of each step of a skill's save and decision
// (skillrows.Tx).
type skillTx struct{ *Tx }

func (tx skillTx) Now() time.Time { return tx.now }

func (tx skillTx) SkillByName(ctx context.Context, projectID int64, name string) (*governance.Skill, error) {
	return findSkill(ctx, tx.Tx, `s.project_id = ? AND s.name = ?`, projectID, name)
}

func (tx skillTx) SkillByID(ctx context.Context, id int64) (*governance.Skill, error) {
	return findSkill(ctx, tx.Tx, `s.id = ?`, id)
}

func (tx skillTx) CreateSkill(ctx context.Context, sk *governance.Skill) error {
	now := formatTime(tx.now)
	err := tx.QueryRowContext(ctx, `INSERT INTO skills (project_id, name, category, status, status_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, sk.ProjectID, sk.Name, sk.Category, sk.Status, now, now, now).Scan(&sk.ID)
	if err != nil {
		return fmt.Errorf("store: create skill: %w", mapError(err, "Skill"))
	}
	return nil
}

func (tx skillTx) Versions(ctx context.Context, skillID int64, only int) ([]*governance.SkillVersion, error) {
	return findSkillVersions(ctx, tx.Tx, skillID, only)
}

func (tx skillTx) Supersede(ctx context.Context, skillID int64, statuses ...governance.SkillVersionStatus) error {
	if _, err := tx.ExecContext(ctx, `UPDATE skill_versions SET status = 'superseded' WHERE skill_id = ? AND status IN (SELECT value FROM json_each(?))`,
		skillID, listArg(statuses)); err != nil {
		return fmt.Errorf("store: supersede skill versions: %w", err)
	}
	return nil
}

func (tx skillTx) InsertVersion(ctx context.Context, row skillrows.Version, files []governance.SkillFile, evidence []governance.SkillEvidence) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO skill_versions (skill_id, version, status, skill_md, fields, digest, findings, examples,
		eval, origin, source, actor, reason, decided_by, decided_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		row.SkillID, row.Version, row.Status, row.SkillMD, row.Fields, row.Digest, row.Findings, row.Examples, row.Eval, row.Origin,
		row.Source, row.Actor, row.Reason, row.DecidedBy, formatTimePtr(row.DecidedAt), formatTime(row.CreatedAt)); err != nil {
		return fmt.Errorf("store: insert skill version: %w", err)
	}
	for _, f := range files {
		if _, err := tx.ExecContext(ctx, `INSERT INTO skill_files (skill_id, version, path, content) VALUES (?, ?, ?, ?)`,
			row.SkillID, row.Version, f.Path, f.Content); err != nil {
			return fmt.Errorf("store: insert skill file: %w", mapError(err, "Skill file"))
		}
	}
	for _, e := range evidence {
		if _, err := tx.ExecContext(ctx, `INSERT INTO skill_evidence (skill_id, version, session_id, subject_id, seqs, check_step)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (skill_id, session_id) DO NOTHING`,
			row.SkillID, row.Version, e.SessionID, e.SubjectID, listArg(e.Seqs), e.Check); err != nil {
			return fmt.Errorf("store: insert skill evidence: %w", err)
		}
	}
	return nil
}

func (tx skillTx) DecideVersion(ctx context.Context, skillID int64, n int, status governance.SkillVersionStatus, actor string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE skill_versions SET status = ?, decided_by = ?, decided_at = ? WHERE skill_id = ? AND version = ?`,
		status, actor, formatTime(tx.now), skillID, n); err != nil {
		return fmt.Errorf("store: decide skill version: %w", err)
	}
	return nil
}

func (tx skillTx) WriteSkill(ctx context.Context, sk *governance.Skill) error {
	return writeSkill(ctx, tx.Tx, sk)
}

func (tx skillTx) AppendAudit(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, tx.Tx, e)
}

// CountSkillUse counts one use of a skill by an agent (its body fetched).
// Usage is not a change a context package sees: rev stays.
func (s *Store) CountSkillUse(ctx context.Context, skillID int64) error {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE skills SET uses = uses + 1, last_used_at = ? WHERE id = ?`, formatTime(tx.now), skillID); err != nil {
		return fmt.Errorf("store: count skill use: %w", err)
	}
	return tx.Commit()
}

// RecordProcedures keeps the procedures the heartbeat saw in ended
// sessions (their signature and event seqs; a session's procedure is kept
// once).
func (s *Store) RecordProcedures(ctx context.Context, projectID int64, gen *int64, ps []governance.Procedure) error {
	if len(ps) == 0 {
		return nil
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := forgotSince(ctx, tx, projectID, gen); err != nil {
		return err
	}
	for _, p := range ps {
		if _, err := tx.ExecContext(ctx, `INSERT INTO skill_procedures (project_id, signature, session_id, subject_id, seqs, at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, projectID, p.Signature, p.SessionID, p.SubjectID,
			listArg(p.Seqs()), formatTime(p.At)); err != nil {
			return fmt.Errorf("store: record procedure: %w", err)
		}
	}
	return tx.Commit()
}

// FindProcedureSessions returns the sessions that showed a procedure,
// oldest first.
func (s *Store) FindProcedureSessions(ctx context.Context, projectID int64, signature string) ([]governance.SkillEvidence, error) {
	var out []governance.SkillEvidence
	err := queryAll(ctx, s.read, `SELECT session_id, subject_id, seqs FROM skill_procedures WHERE project_id = ? AND signature = ?
		ORDER BY at, session_id`, []any{projectID, signature}, func(r scanner) error {
		var e governance.SkillEvidence
		var seqs string
		if err := r.Scan(&e.SessionID, &e.SubjectID, &seqs); err != nil {
			return err
		}
		_ = json.Unmarshal([]byte(seqs), &e.Seqs)
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: find procedures: %w", err)
	}
	return out, nil
}

// SkillEvidence answers the forget planner: the evidence links of skills
// resting on a subject's sessions or on any of a set of events.
func (r planReader) SkillEvidence(ctx context.Context, s forgetplan.SkillSelect) ([]forgetplan.SkillLink, error) {
	cond, args := `e.subject_id = ? AND e.skill_id IN (SELECT id FROM skills WHERE project_id = ?)`, []any{s.SubjectID, s.ProjectID}
	if s.SubjectID == "" {
		cond, args = `EXISTS (SELECT 1 FROM json_each(e.seqs) j WHERE j.value IN (SELECT value FROM json_each(?)))`, []any{listArg(s.Seqs)}
	}
	var out []forgetplan.SkillLink
	err := queryAll(ctx, r.q, `SELECT e.skill_id, e.session_id, e.version FROM skill_evidence e WHERE `+cond+` ORDER BY e.skill_id, e.session_id`,
		args, func(row scanner) error {
			var l forgetplan.SkillLink
			if err := row.Scan(&l.SkillID, &l.SessionID, &l.Version); err != nil {
				return err
			}
			out = append(out, l)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("store: skill evidence to forget: %w", err)
	}
	return out, nil
}

// SkillVersions answers the forget planner: a skill and its versions.
func (r planReader) SkillVersions(ctx context.Context, skillID int64) (*governance.Skill, []*governance.SkillVersion, error) {
	sk, err := findSkill(ctx, r.q, `s.id = ?`, skillID)
	if err != nil {
		return nil, nil, err
	}
	vs, err := findSkillVersions(ctx, r.q, skillID, 0)
	return sk, vs, err
}

// forgetSkills applies a forget plan to skills: the drafts it deletes go
// whole, the skills it keeps get their versions' new text and lose the
// links to the forgotten sessions, and the procedures the heartbeat saw in
// the forgotten events go (so no draft is learned from them again).
func forgetSkills(ctx context.Context, tx *Tx, p *forgetPlan) error {
	exec := func(q string, args ...any) error {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store: forget skills: %w", err)
		}
		return nil
	}
	switch {
	case p.SubjectID != "":
		if err := exec(`DELETE FROM skill_procedures WHERE project_id = ? AND subject_id = ?`, p.ProjectID, p.SubjectID); err != nil {
			return err
		}
	case len(p.Seqs) > 0:
		if err := exec(`DELETE FROM skill_procedures WHERE EXISTS (SELECT 1 FROM json_each(skill_procedures.seqs) j
			WHERE j.value IN (SELECT value FROM json_each(?)))`, listArg(p.Seqs)); err != nil {
			return err
		}
	}
	var touched []int64
	for _, f := range p.Skills {
		touched = append(touched, f.SkillID)
		if f.Delete {
			for _, q := range skillDeletes {
				if err := exec(q, f.SkillID); err != nil {
					return err
				}
			}
			continue
		}
		for _, v := range f.Versions {
			if err := exec(`UPDATE skill_versions SET skill_md = ?1, fields = ?2, redacted = redacted OR ?3,
				findings = CASE WHEN ?3 THEN '[]' ELSE findings END
				WHERE skill_id = ?4 AND version = ?5`, v.Content.SkillMD, skillrows.FieldsJSON(v.Content), v.Redacted, f.SkillID, v.Version); err != nil {
				return err
			}
			if v.Redacted {
				if err := exec(`DELETE FROM skill_files WHERE skill_id = ? AND version = ?`, f.SkillID, v.Version); err != nil {
					return err
				}
			}
		}
		// Reasons people gave on its versions may quote them (as on its audit rows).
		if err := exec(`UPDATE skill_versions SET reason = '' WHERE skill_id = ?`, f.SkillID); err != nil {
			return err
		}
		if err := exec(`DELETE FROM skill_evidence WHERE skill_id = ? AND session_id IN (SELECT value FROM json_each(?))`,
			f.SkillID, listArg(f.Sessions)); err != nil {
			return err
		}
		rev, err := nextSkillRev(ctx, tx)
		if err != nil {
			return err
		}
		if err := exec(`UPDATE skills SET description = ?, rev = ?, updated_at = ? WHERE id = ?`, f.Description, rev, formatTime(tx.now), f.SkillID); err != nil {
			return err
		}
	}
	return redactAuditReasons(ctx, tx, "skill", touched)
}

// skillDeletes delete one skill, in an order the foreign keys accept.
var skillDeletes = []string{
	`DELETE FROM skill_evidence WHERE skill_id = ?`,
	`DELETE FROM skill_files WHERE skill_id = ?`,
	`DELETE FROM skill_versions WHERE skill_id = ?`,
	`DELETE FROM skills WHERE id = ?`,
}

// skillProjectDeletes delete a project's skills, in an order the foreign
// keys accept (deleteProjectRows).
var skillProjectDeletes = []string{
	`DELETE FROM skill_procedures WHERE project_id = ?`,
	`DELETE FROM skill_evidence WHERE skill_id IN (SELECT id FROM skills WHERE project_id = ?)`,
	`DELETE FROM skill_files WHERE skill_id IN (SELECT id FROM skills WHERE project_id = ?)`,
	`DELETE FROM skill_versions WHERE skill_id IN (SELECT id FROM skills WHERE project_id = ?)`,
	`DELETE FROM skills WHERE project_id = ?`,
}

// MaskSkillVersions stores versions whose credentials were masked after
// they were stored (governance.MaskStoredVersion): each one's SKILL.md,
// fields, files, digest and findings, the skill's description when it is
// the skill's current version, and one skill.masked audit row, in one
// transaction. A version whose text changed since it was read is left as
// it is. It returns how many versions it rewrote; then, as after a
// forget, the WAL is checkpointed so the log keeps no copy of the
// credentials.
func (s *Store) MaskSkillVersions(ctx context.Context, actor string, masked []*governance.SkillMasked) (int, error) {
	if len(masked) == 0 {
		return 0, nil
	}
	tx, err := s.begin(ctx, "MaskSkillVersions")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n := 0
	for _, m := range masked {
		row := skillrows.EncodeMasked(m)
		res, err := tx.ExecContext(ctx, `UPDATE skill_versions SET skill_md = ?, fields = ?, digest = ?, findings = ?
			WHERE skill_id = ? AND version = ? AND skill_md = ? AND redacted = 0`,
			row.SkillMD, row.Fields, row.Digest, row.Findings, m.SkillID, m.Version, m.Old)
		if err != nil {
			return 0, fmt.Errorf("store: mask skill version: %w", err)
		}
		if k, err := res.RowsAffected(); err != nil || k == 0 {
			continue
		}
		for _, f := range m.Content.Files {
			if _, err := tx.ExecContext(ctx, `UPDATE skill_files SET content = ? WHERE skill_id = ? AND version = ? AND path = ?`,
				f.Content, m.SkillID, m.Version, f.Path); err != nil {
				return 0, fmt.Errorf("store: mask skill file: %w", err)
			}
		}
		rev, err := nextSkillRev(ctx, tx)
		if err != nil {
			return 0, err
		}
		// The version the skill shows: its active one, or its newest proposal.
		if _, err := tx.ExecContext(ctx, `UPDATE skills SET
				description = CASE WHEN version = ?1 OR (version = 0 AND pending = ?1) THEN ?2 ELSE description END,
				findings = CASE WHEN version = ?1 OR (version = 0 AND pending = ?1) THEN ?3 ELSE findings END,
				rev = ?4, updated_at = ?5 WHERE id = ?6`,
			m.Version, m.Content.Description, len(m.Findings), rev, formatTime(tx.now), m.SkillID); err != nil {
			return 0, fmt.Errorf("store: mask skill: %w", err)
		}
		sk, err := findSkill(ctx, tx, "s.id = ?", m.SkillID)
		if err != nil {
			return 0, err
		}
		if err := appendAudit(ctx, tx, skillrows.MaskedAudit(actor, sk, m)); err != nil {
			return 0, err
		}
		n++
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	if n > 0 {
		if err := s.checkpointAfterForget(ctx, "MaskSkillVersions"); err != nil {
			return n, err
		}
	}
	return n, nil
}
