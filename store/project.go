package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/admin"
)

// CreateProject inserts a project; a duplicate slug is ECONFLICT.
func (s *Store) CreateProject(ctx context.Context, p *governance.Project) error {
	if err := governance.ValidateSlug(p.Slug); err != nil {
		return err
	}
	if p.Name == "" {
		return governance.Errorf(governance.EINVALID, "A project needs a name.")
	}
	if problem := governance.CheckSlug(p.Slug); problem != "" {
		return governance.Errorf(governance.EINVALID, "The project slug %s.", problem)
	}
	if problem := governance.CheckText(p.Name); problem != "" {
		return governance.Errorf(governance.EINVALID, "The project name %s.", problem)
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `
		INSERT INTO projects (slug, name, description, auto_activate, single_user, scratch, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		p.Slug, p.Name, p.Description, p.AutoActivate, p.SingleUser, p.Scratch, formatTime(tx.now))
	if err != nil {
		return mapError(err, "Project "+p.Slug)
	}
	p.ID, _ = res.LastInsertId()
	p.CreatedAt = tx.now
	return tx.Commit()
}

// FindProjectByID returns one project or ENOTFOUND.
func (s *Store) FindProjectByID(ctx context.Context, id int64) (*governance.Project, error) {
	return s.findProject(ctx, `id = ?`, id)
}

// FindProjectBySlug returns one project or ENOTFOUND.
func (s *Store) FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error) {
	return s.findProject(ctx, `slug = ?`, slug)
}

func (s *Store) findProject(ctx context.Context, where string, arg any) (*governance.Project, error) {
	row := s.read.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE `+where, arg)
	p, err := scanProject(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("store: find project: %w", err)
	}
	return p, nil
}

// FindProjects lists every project by slug.
func (s *Store) FindProjects(ctx context.Context) ([]*governance.Project, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY slug`)
	if err != nil {
		return nil, fmt.Errorf("store: find projects: %w", err)
	}
	defer rows.Close()
	var out []*governance.Project
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetProjectPolicy changes whether proposals of a project activate at once.
func (s *Store) SetProjectPolicy(ctx context.Context, projectID int64, autoActivate bool) error {
	_, err := s.exec(ctx, `UPDATE projects SET auto_activate = ? WHERE id = ?`, autoActivate, projectID)
	return err
}

// FindProjectStats counts every layer per project.
func (s *Store) FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error) {
	projects, err := s.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*governance.ProjectStats, len(projects))
	out := make([]*governance.ProjectStats, 0, len(projects))
	for _, p := range projects {
		st := &governance.ProjectStats{Project: p}
		byID[p.ID] = st
		out = append(out, st)
	}
	queries := []struct {
		sql  string
		scan func(st *governance.ProjectStats, n int, key string)
	}{
		{`SELECT project_id, COUNT(*), COUNT(DISTINCT session_id), '' FROM events GROUP BY project_id`, nil},
		{`SELECT project_id, COUNT(*), 0, '' FROM episodes GROUP BY project_id`, func(st *governance.ProjectStats, n int, _ string) { st.Episodes = n }},
		{`SELECT project_id, COUNT(*), 0, status FROM candidates GROUP BY project_id, status`, func(st *governance.ProjectStats, n int, status string) {
			st.Candidates += n
			switch governance.CandidateStatus(status) {
			case governance.CandidateHeld:
				st.Held += n
			case governance.CandidateBlocked:
				st.Blocked += n
			}
		}},
		{`SELECT project_id, COUNT(*), 0, status FROM rules WHERE status <> 'forgotten' GROUP BY project_id, status`, func(st *governance.ProjectStats, n int, status string) {
			st.Rules += n
			switch governance.RuleStatus(status) {
			case governance.RuleProposed:
				st.Proposed += n
			case governance.RuleActive:
				st.Active += n
			}
		}},
	}
	for _, q := range queries {
		if err := func() error {
			rows, err := s.read.QueryContext(ctx, q.sql)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var (
					id     int64
					n, m   int
					status string
				)
				if err := rows.Scan(&id, &n, &m, &status); err != nil {
					return err
				}
				st := byID[id]
				if st == nil {
					continue
				}
				if q.scan == nil {
					st.Events, st.Sessions = n, m
				} else {
					q.scan(st, n, status)
				}
			}
			return rows.Err()
		}(); err != nil {
			return nil, fmt.Errorf("store: project stats: %w", err)
		}
	}
	return out, nil
}

const projectColumns = `id, slug, name, description, auto_activate, single_user, scratch, created_at`

func scanProject(r scanner) (*governance.Project, error) {
	var (
		p       governance.Project
		created string
	)
	if err := r.Scan(&p.ID, &p.Slug, &p.Name, &p.Description, &p.AutoActivate, &p.SingleUser, &p.Scratch, &created); err != nil {
		return nil, err
	}
	p.CreatedAt = parseTime(created)
	return &p, nil
}

// FindSubjectStats counts what every layer holds about one subject of a
// project: its events and sessions, episodes, candidates, and the rules
// scoped to it.
func (s *Store) FindSubjectStats(ctx context.Context, p *governance.Project, subjectID string) (*governance.ProjectStats, error) {
	st := &governance.ProjectStats{Project: p}
	err := s.read.QueryRowContext(ctx, `
		SELECT
			(SELECT COUNT(*) FROM events WHERE project_id = ?1 AND subject_id = ?2),
			(SELECT COUNT(*) FROM sessions WHERE project_id = ?1 AND subject_id = ?2),
			(SELECT COUNT(*) FROM episodes WHERE project_id = ?1 AND subject_id = ?2),
			(SELECT COUNT(*) FROM candidates WHERE project_id = ?1 AND subject_id = ?2),
			(SELECT COUNT(*) FROM candidates WHERE project_id = ?1 AND subject_id = ?2 AND status = 'held'),
			(SELECT COUNT(*) FROM candidates WHERE project_id = ?1 AND subject_id = ?2 AND status = 'blocked'),
			(SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND subject_id = ?2 AND status = 'proposed'),
			(SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND subject_id = ?2 AND status = 'active'),
			(SELECT COUNT(*) FROM rules WHERE project_id = ?1 AND subject_id = ?2 AND status <> 'forgotten')`,
		p.ID, subjectID).Scan(&st.Events, &st.Sessions, &st.Episodes, &st.Candidates, &st.Held, &st.Blocked,
		&st.Proposed, &st.Active, &st.Rules)
	if err != nil {
		return nil, fmt.Errorf("store: subject stats: %w", err)
	}
	return st, nil
}

// SetProjectAutoActivate changes whether a project's proposals in the
// low-risk set become active at once (true) or wait for a reviewer
// (false), with an audit row.
func (s *Store) SetProjectAutoActivate(ctx context.Context, actor string, projectID int64, on bool) error {
	return s.setProjectPolicy(ctx, actor, projectID, admin.AutoActivatePolicy(on))
}

// SetProjectSingleUser records whether a project has a single trusted
// user (a rule for the whole project one person supports may then become
// active without a reviewer, inside the low-risk set), with an audit row.
func (s *Store) SetProjectSingleUser(ctx context.Context, actor string, projectID int64, on bool) error {
	return s.setProjectPolicy(ctx, actor, projectID, admin.SingleUserPolicy(on))
}

// setProjectPolicy sets one policy switch of a project, with its audit row.
func (s *Store) setProjectPolicy(ctx context.Context, actor string, projectID int64, pol admin.ProjectPolicy) error {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE projects SET `+pol.Column+` = ? WHERE id = ?`, pol.On, projectID)
	if err != nil {
		return fmt.Errorf("store: set project policy: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err := appendAudit(ctx, tx, pol.Audit(actor, projectID)); err != nil {
		return err
	}
	return tx.Commit()
}
