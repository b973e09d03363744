package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/skillrows"
)

// Skills: a project's governed skill folders, their versions with files,
// evidence and the procedures the heartbeat saw (migration 0041); the
// SQLite store's store/skill.go in PostgreSQL's SQL, the row shapes and
// audit details shared in store/internal/skillrows.

const skillColumns = `s.id, s.project_id, p.slug, s.name, s.category, s.description, s.status, s.pinned, s.version, s.latest,
	s.pending, s.findings, s.examples, s.signature, s.uses, s.last_used_at, s.status_at, s.created_at, s.updated_at`

func scanSkill(r pgx.Row) (*governance.Skill, error) {
	s := &governance.Skill{}
	var examples string
	var used *time.Time
	if err := r.Scan(&s.ID, &s.ProjectID, &s.Project, &s.Name, &s.Category, &s.Description, &s.Status, &s.Pinned, &s.Version,
		&s.Latest, &s.Pending, &s.Findings, &examples, &s.Signature, &s.Uses, &used, &s.StatusAt, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return nil, err
	}
	s.Examples = skillrows.Examples(examples)
	if used != nil {
		u := used.UTC()
		s.LastUsedAt = &u
	}
	s.StatusAt, s.CreatedAt, s.UpdatedAt = s.StatusAt.UTC(), s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return s, nil
}

func findSkill(ctx context.Context, q dbtx, lock, where string, args ...any) (*governance.Skill, error) {
	s, err := scanSkill(q.QueryRow(ctx, `SELECT `+skillColumns+` FROM skills s JOIN projects p ON p.id = s.project_id WHERE `+where+lock, args...))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Skill not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find skill: %w", err)
	}
	return s, nil
}

// FindSkill returns a project's skill by name.
func (s *Store) FindSkill(ctx context.Context, projectID int64, name string) (*governance.Skill, error) {
	return findSkill(ctx, s.pool, "", `s.project_id = $1 AND s.name = $2`, projectID, name)
}

// FindSkills lists skills by name (a page, and the count of all that match).
func (s *Store) FindSkills(ctx context.Context, f governance.SkillFilter) ([]*governance.Skill, int, error) {
	where, args := []string{"s.project_id = $1"}, []any{f.ProjectID}
	if len(f.Statuses) > 0 {
		statuses := make([]string, len(f.Statuses))
		for i, st := range f.Statuses {
			statuses[i] = string(st)
		}
		args = append(args, statuses)
		where = append(where, fmt.Sprintf(`s.status = ANY($%d)`, len(args)))
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		args = append(args, "%"+likeEscape(q)+"%")
		where = append(where, fmt.Sprintf(`(s.name ILIKE $%d OR s.description ILIKE $%d)`, len(args), len(args)))
	}
	if f.Signature != "" {
		args = append(args, f.Signature)
		where = append(where, fmt.Sprintf(`s.signature = $%d`, len(args)))
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM skills s WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("postgres: count skills: %w", err)
	}
	clause, args := page(args, skillrows.PageLimit(f), f.Offset)
	out := []*governance.Skill{}
	err := queryAll(ctx, s.pool, `SELECT `+skillColumns+` FROM skills s JOIN projects p ON p.id = s.project_id WHERE `+cond+
		` ORDER BY s.name COLLATE "C"`+clause, args, rowscan.Append[pgx.Row](scanSkill, &out))
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find skills: %w", err)
	}
	return out, total, nil
}

// SkillGeneration names the state of a project's skills a context package
// could see: it changes whenever one of them does (usage aside).
func (s *Store) SkillGeneration(ctx context.Context, projectID int64) (int64, error) {
	var rev int64
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE(max(rev), 0) FROM skills WHERE project_id = $1`, projectID).Scan(&rev); err != nil {
		return 0, fmt.Errorf("postgres: skill generation: %w", err)
	}
	return rev, nil
}

// FindSkillVersions returns every version of a skill, newest first, with
// its files.
func (s *Store) FindSkillVersions(ctx context.Context, skillID int64) ([]*governance.SkillVersion, error) {
	return findSkillVersions(ctx, s.pool, skillID, 0)
}

func findSkillVersions(ctx context.Context, q dbtx, skillID int64, only int) ([]*governance.SkillVersion, error) {
	vs := skillrows.NewVersions()
	cond, args := `skill_id = $1`, []any{skillID}
	if only > 0 {
		cond, args = cond+` AND version = $2`, append(args, only)
	}
	if err := queryAll(ctx, q, `SELECT `+skillrows.VersionColumns+` FROM skill_versions WHERE `+cond+` ORDER BY version DESC`, args,
		skillrows.Read(vs, scanSkillVersion)); err != nil {
		return nil, fmt.Errorf("postgres: find skill versions: %w", err)
	}
	if err := queryAll(ctx, q, `SELECT version, path, content FROM skill_files WHERE `+cond+` ORDER BY version, path COLLATE "C"`, args,
		skillrows.Files[pgx.Row](vs)); err != nil {
		return nil, fmt.Errorf("postgres: find skill files: %w", err)
	}
	return vs.List, nil
}

func scanSkillVersion(r pgx.Row, row *skillrows.Version) error {
	if err := r.Scan(row.Dest(&row.DecidedAt, &row.CreatedAt)...); err != nil {
		return err
	}
	row.CreatedAt = row.CreatedAt.UTC()
	if row.DecidedAt != nil {
		d := row.DecidedAt.UTC()
		row.DecidedAt = &d
	}
	return nil
}

// FindSkillEvidence returns the sessions a skill was learned from.
func (s *Store) FindSkillEvidence(ctx context.Context, skillID int64) ([]governance.SkillEvidence, error) {
	var out []governance.SkillEvidence
	if err := queryAll(ctx, s.pool, `SELECT session_id, subject_id, seqs, check_step FROM skill_evidence WHERE skill_id = $1
		ORDER BY session_id COLLATE "C"`, []any{skillID}, skillrows.Evidence[pgx.Row](&out)); err != nil {
		return nil, fmt.Errorf("postgres: find skill evidence: %w", err)
	}
	return out, nil
}

func seqsJSON(seqs []int64) string {
	if seqs == nil {
		seqs = []int64{}
	}
	b, _ := json.Marshal(seqs)
	return string(b)
}

func writeSkill(ctx context.Context, tx *Tx, sk *governance.Skill) error {
	_, err := tx.Exec(ctx, `UPDATE skills SET category = $1, description = $2, status = $3, pinned = $4, version = $5, latest = $6,
		pending = $7, findings = $8, examples = $9, signature = $10, rev = nextval('skill_rev'), status_at = $11, updated_at = $12
		WHERE id = $13`,
		sk.Category, sk.Description, sk.Status, sk.Pinned, sk.Version, sk.Latest, sk.Pending, sk.Findings,
		skillrows.ExamplesJSON(sk.Examples), sk.Signature, utc(sk.StatusAt), tx.now, sk.ID)
	if err != nil {
		return fmt.Errorf("postgres: update skill: %w", err)
	}
	sk.UpdatedAt = tx.now
	return nil
}

// lockSkills serialises changes to one project's skills across instances
// (two imports of the same new skill, a decision during an import).
func (t *Tx) lockSkills(ctx context.Context, projectID int64) error {
	if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockSkillsNamespace, int32(projectID)); err != nil {
		return fmt.Errorf("postgres: skills lock: %w", err)
	}
	return nil
}

// SaveSkill stores a proposal as the next version of the project's skill
// of that name (skillrows.Save). The project's skill lock makes two saves
// of one name take turns.
func (s *Store) SaveSkill(ctx context.Context, actor string, p *governance.SkillProposal) (*governance.SkillSaved, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	if err := tx.lockSkills(ctx, p.ProjectID); err != nil {
		return nil, err
	}
	if err := forgotSince(ctx, tx, p.ProjectID, p.ForgetGeneration); err != nil {
		return nil, err
	}
	saved, err := skillrows.Save(ctx, skillTx{tx}, actor, p)
	if err != nil {
		return nil, err
	}
	return saved, tx.Commit(ctx)
}

// DecideSkill applies a reviewer's decision and audits it
// (skillrows.Decide), the skill's row locked.
func (s *Store) DecideSkill(ctx context.Context, actor string, skillID int64, d governance.SkillDecision) (*governance.Skill, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	sk, err := skillrows.Decide(ctx, skillTx{tx}, actor, skillID, d)
	if err != nil {
		return nil, err
	}
	return sk, tx.Commit(ctx)
}

// skillTx is the SQL of each step of a skill's save and decision
// (skillrows.Tx); it reads skills FOR UPDATE.
type skillTx struct{ *Tx }

func (tx skillTx) Now() time.Time { return tx.now }

func (tx skillTx) SkillByName(ctx context.Context, projectID int64, name string) (*governance.Skill, error) {
	return findSkill(ctx, tx.Tx, " FOR UPDATE OF s", `s.project_id = $1 AND s.name = $2`, projectID, name)
}

func (tx skillTx) SkillByID(ctx context.Context, id int64) (*governance.Skill, error) {
	return findSkill(ctx, tx.Tx, " FOR UPDATE OF s", `s.id = $1`, id)
}

func (tx skillTx) CreateSkill(ctx context.Context, sk *governance.Skill) error {
	err := tx.QueryRow(ctx, `INSERT INTO skills (project_id, name, category, status, status_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $5, $5) RETURNING id`, sk.ProjectID, sk.Name, sk.Category, sk.Status, tx.now).Scan(&sk.ID)
	if err != nil {
		return fmt.Errorf("postgres: create skill: %w", mapError(err, "Skill"))
	}
	return nil
}

func (tx skillTx) Versions(ctx context.Context, skillID int64, only int) ([]*governance.SkillVersion, error) {
	return findSkillVersions(ctx, tx.Tx, skillID, only)
}

func (tx skillTx) Supersede(ctx context.Context, skillID int64, statuses ...governance.SkillVersionStatus) error {
	in := make([]string, len(statuses))
	for i, st := range statuses {
		in[i] = string(st)
	}
	if _, err := tx.Exec(ctx, `UPDATE skill_versions SET status = 'superseded' WHERE skill_id = $1 AND status = ANY($2)`, skillID, in); err != nil {
		return fmt.Errorf("postgres: supersede skill versions: %w", err)
	}
	return nil
}

func (tx skillTx) InsertVersion(ctx context.Context, row skillrows.Version, files []governance.SkillFile, evidence []governance.SkillEvidence) error {
	if _, err := tx.Exec(ctx, `INSERT INTO skill_versions (skill_id, version, status, skill_md, fields, digest, findings, examples,
		eval, origin, source, actor, reason, decided_by, decided_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		row.SkillID, row.Version, row.Status, row.SkillMD, row.Fields, row.Digest, row.Findings, row.Examples, row.Eval, row.Origin,
		row.Source, row.Actor, row.Reason, row.DecidedBy, row.DecidedAt, row.CreatedAt); err != nil {
		return fmt.Errorf("postgres: insert skill version: %w", err)
	}
	for _, f := range files {
		if _, err := tx.Exec(ctx, `INSERT INTO skill_files (skill_id, version, path, content) VALUES ($1, $2, $3, $4)`,
			row.SkillID, row.Version, f.Path, f.Content); err != nil {
			return fmt.Errorf("postgres: insert skill file: %w", mapError(err, "Skill file"))
		}
	}
	for _, e := range evidence {
		if _, err := tx.Exec(ctx, `INSERT INTO skill_evidence (skill_id, version, session_id, subject_id, seqs, check_step)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (skill_id, session_id) DO NOTHING`,
			row.SkillID, row.Version, e.SessionID, e.SubjectID, seqsJSON(e.Seqs), e.Check); err != nil {
			return fmt.Errorf("postgres: insert skill evidence: %w", err)
		}
	}
	return nil
}

func (tx skillTx) DecideVersion(ctx context.Context, skillID int64, n int, status governance.SkillVersionStatus, actor string) error {
	if _, err := tx.Exec(ctx, `UPDATE skill_versions SET status = $1, decided_by = $2, decided_at = $3 WHERE skill_id = $4 AND version = $5`,
		status, actor, tx.now, skillID, n); err != nil {
		return fmt.Errorf("postgres: decide skill version: %w", err)
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
	if _, err := s.pool.Exec(ctx, `UPDATE skills SET uses = uses + 1, last_used_at = $1 WHERE id = $2`, utc(s.Now()), skillID); err != nil {
		return fmt.Errorf("postgres: count skill use: %w", err)
	}
	return nil
}

// RecordProcedures keeps the procedures the heartbeat saw in ended
// sessions (their signature and event seqs; a session's procedure is kept
// once).
func (s *Store) RecordProcedures(ctx context.Context, projectID int64, gen *int64, ps []governance.Procedure) error {
	if len(ps) == 0 {
		return nil
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := forgotSince(ctx, tx, projectID, gen); err != nil {
		return err
	}
	for _, p := range ps {
		if _, err := tx.Exec(ctx, `INSERT INTO skill_procedures (project_id, signature, session_id, subject_id, seqs, at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, projectID, p.Signature, p.SessionID, p.SubjectID,
			seqsJSON(p.Seqs()), utc(p.At)); err != nil {
			return fmt.Errorf("postgres: record procedure: %w", err)
		}
	}
	return tx.Commit(ctx)
}

// FindProcedureSessions returns the sessions that showed a procedure,
// oldest first.
func (s *Store) FindProcedureSessions(ctx context.Context, projectID int64, signature string) ([]governance.SkillEvidence, error) {
	var out []governance.SkillEvidence
	err := queryAll(ctx, s.pool, `SELECT session_id, subject_id, seqs FROM skill_procedures WHERE project_id = $1 AND signature = $2
		ORDER BY at, session_id COLLATE "C"`, []any{projectID, signature}, func(r pgx.Row) error {
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
		return nil, fmt.Errorf("postgres: find procedures: %w", err)
	}
	return out, nil
}

// SkillEvidence answers the forget planner: the evidence links of skills
// resting on a subject's sessions or on any of a set of events.
func (r planReader) SkillEvidence(ctx context.Context, s forgetplan.SkillSelect) ([]forgetplan.SkillLink, error) {
	cond, args := `e.subject_id = $1 AND e.skill_id IN (SELECT id FROM skills WHERE project_id = $2)`, []any{s.SubjectID, s.ProjectID}
	if s.SubjectID == "" {
		cond, args = seqsOverlap("e.seqs", 1), []any{s.Seqs}
	}
	var out []forgetplan.SkillLink
	err := queryAll(ctx, r.q, `SELECT e.skill_id, e.session_id, e.version FROM skill_evidence e WHERE `+cond+
		` ORDER BY e.skill_id, e.session_id COLLATE "C"`, args, func(row pgx.Row) error {
		var l forgetplan.SkillLink
		if err := row.Scan(&l.SkillID, &l.SessionID, &l.Version); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: skill evidence to forget: %w", err)
	}
	return out, nil
}

// seqsOverlap is the condition that a JSON list of event seqs (column)
// holds any of the bigint[] parameter $n.
func seqsOverlap(column string, n int) string {
	return fmt.Sprintf(`EXISTS (SELECT 1 FROM jsonb_array_elements_text(%s::jsonb) j WHERE j.value::bigint = ANY($%d))`, column, n)
}

// SkillVersions answers the forget planner: a skill and its versions.
func (r planReader) SkillVersions(ctx context.Context, skillID int64) (*governance.Skill, []*governance.SkillVersion, error) {
	lock := ""
	if r.lock != "" {
		lock = " FOR UPDATE OF s"
	}
	sk, err := findSkill(ctx, r.q, lock, `s.id = $1`, skillID)
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
	exec := func(table, q string, args ...any) error {
		if err := p.exec(ctx, tx, table, q, args...); err != nil {
			return fmt.Errorf("postgres: forget skills: %w", err)
		}
		return nil
	}
	switch {
	case p.SubjectID != "":
		if err := exec("skill_procedures", `DELETE FROM skill_procedures WHERE project_id = $1 AND subject_id = $2`, p.ProjectID, p.SubjectID); err != nil {
			return err
		}
	case len(p.Seqs) > 0:
		if err := exec("skill_procedures", `DELETE FROM skill_procedures WHERE `+seqsOverlap("seqs", 1), p.Seqs); err != nil {
			return err
		}
	}
	var touched []int64
	for _, f := range p.Skills {
		touched = append(touched, f.SkillID)
		if f.Delete {
			for _, d := range skillDeletes {
				if err := exec(d.table, d.sql, f.SkillID); err != nil {
					return err
				}
			}
			continue
		}
		for _, v := range f.Versions {
			if err := exec("skill_versions", `UPDATE skill_versions SET skill_md = $1, fields = $2, redacted = redacted OR $3,
				findings = CASE WHEN $3 THEN '[]' ELSE findings END WHERE skill_id = $4 AND version = $5`,
				v.Content.SkillMD, skillrows.FieldsJSON(v.Content), v.Redacted, f.SkillID, v.Version); err != nil {
				return err
			}
			if v.Redacted {
				if err := exec("skill_files", `DELETE FROM skill_files WHERE skill_id = $1 AND version = $2`, f.SkillID, v.Version); err != nil {
					return err
				}
			}
		}
		// Reasons people gave on its versions may quote them (as on its audit rows).
		if err := exec("skill_versions", `UPDATE skill_versions SET reason = '' WHERE skill_id = $1`, f.SkillID); err != nil {
			return err
		}
		if err := exec("skill_evidence", `DELETE FROM skill_evidence WHERE skill_id = $1 AND session_id = ANY($2)`, f.SkillID, f.Sessions); err != nil {
			return err
		}
		if err := exec("skills", `UPDATE skills SET description = $1, rev = nextval('skill_rev'), updated_at = $2 WHERE id = $3`,
			f.Description, tx.now, f.SkillID); err != nil {
			return err
		}
	}
	n, err := redactAuditReasons(ctx, tx, "skill", touched)
	p.changed["audit_reasons"] = p.changed["audit_reasons"] || n > 0
	return err
}

// skillDeletes delete one skill, in an order the foreign keys accept.
var skillDeletes = []struct{ table, sql string }{
	{"skill_evidence", `DELETE FROM skill_evidence WHERE skill_id = $1`},
	{"skill_files", `DELETE FROM skill_files WHERE skill_id = $1`},
	{"skill_versions", `DELETE FROM skill_versions WHERE skill_id = $1`},
	{"skills", `DELETE FROM skills WHERE id = $1`},
}

// skillProjectDeletes delete a project's skills, in an order the foreign
// keys accept (deleteProjectRows).
var skillProjectDeletes = []string{
	`DELETE FROM skill_procedures WHERE project_id = $1`,
	`DELETE FROM skill_evidence WHERE skill_id IN (SELECT id FROM skills WHERE project_id = $1)`,
	`DELETE FROM skill_files WHERE skill_id IN (SELECT id FROM skills WHERE project_id = $1)`,
	`DELETE FROM skill_versions WHERE skill_id IN (SELECT id FROM skills WHERE project_id = $1)`,
	`DELETE FROM skills WHERE project_id = $1`,
}

// MaskSkillVersions stores versions whose credentials were masked after
// they were stored (governance.MaskStoredVersion): each one's SKILL.md,
// fields, files, digest and findings, the skill's description when it is
// the version the skill shows, and one skill.masked audit row, in one
// transaction. A version whose text changed since it was read is left as
// it is. It returns how many versions it rewrote; then, as after a
// forget, the skills' tables are rewritten so no dead row version keeps
// the credentials.
func (s *Store) MaskSkillVersions(ctx context.Context, actor string, masked []*governance.SkillMasked) (int, error) {
	if len(masked) == 0 {
		return 0, nil
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	n := 0
	var projects []int64
	for _, m := range masked {
		row := skillrows.EncodeMasked(m)
		tag, err := tx.Exec(ctx, `UPDATE skill_versions SET skill_md = $1, fields = $2, digest = $3, findings = $4
			WHERE skill_id = $5 AND version = $6 AND skill_md = $7 AND NOT redacted`,
			row.SkillMD, row.Fields, row.Digest, row.Findings, m.SkillID, m.Version, m.Old)
		if err != nil {
			return 0, fmt.Errorf("postgres: mask skill version: %w", err)
		}
		if tag.RowsAffected() == 0 {
			continue
		}
		for _, f := range m.Content.Files {
			if _, err := tx.Exec(ctx, `UPDATE skill_files SET content = $1 WHERE skill_id = $2 AND version = $3 AND path = $4`,
				f.Content, m.SkillID, m.Version, f.Path); err != nil {
				return 0, fmt.Errorf("postgres: mask skill file: %w", err)
			}
		}
		// The version the skill shows: its active one, or its newest proposal.
		if _, err := tx.Exec(ctx, `UPDATE skills SET
				description = CASE WHEN version = $1 OR (version = 0 AND pending = $1) THEN $2 ELSE description END,
				findings = CASE WHEN version = $1 OR (version = 0 AND pending = $1) THEN $3 ELSE findings END,
				rev = nextval('skill_rev'), updated_at = $4 WHERE id = $5`,
			m.Version, m.Content.Description, len(m.Findings), tx.now, m.SkillID); err != nil {
			return 0, fmt.Errorf("postgres: mask skill: %w", err)
		}
		sk, err := findSkill(ctx, tx, "", "s.id = $1", m.SkillID)
		if err != nil {
			return 0, err
		}
		if err := appendAudit(ctx, tx, skillrows.MaskedAudit(actor, sk, m)); err != nil {
			return 0, err
		}
		projects = append(projects, sk.ProjectID)
		n++
	}
	if n == 0 {
		return 0, nil
	}
	sc, err := recordScrub(ctx, tx, []string{"skills", "skill_versions", "skill_files"}, projects)
	if err != nil {
		return 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, err
	}
	return n, s.runScrub(ctx, sc)
}
