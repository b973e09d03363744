package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/admin"
	"github.com/mnemo-console/mnemo/store/internal/projectstats"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// CreateProject inserts a project; a duplicate slug is ECONFLICT.
func (s *Store) CreateProject(ctx context.Context, p *governance.Project) error {
	if err := admin.CheckProject(p); err != nil {
		return err
	}
	tx, err := s.begin(ctx, "CreateProject")
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
	var out []*governance.Project
	if err := queryAll(ctx, s.read, `SELECT `+projectColumns+` FROM projects ORDER BY slug`, nil, rowscan.Append[scanner](scanProject, &out)); err != nil {
		return nil, fmt.Errorf("store: find projects: %w", err)
	}
	return out, nil
}

// SetProjectPolicy changes whether proposals of a project activate at once.
func (s *Store) SetProjectPolicy(ctx context.Context, projectID int64, autoActivate bool) error {
	_, err := s.exec(ctx, "SetProjectPolicy", `UPDATE projects SET auto_activate = ? WHERE id = ?`, autoActivate, projectID)
	return err
}

// FindProjectStats counts every layer per project.
func (s *Store) FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error) {
	return projectstats.Count(ctx, s.FindProjects, projectStatsQueries, func(query string, row func(scanner) error) error {
		return queryAll(ctx, s.read, query, nil, row)
	})
}

// projectStatsQueries are FindProjectStats' count queries.
var projectStatsQueries = projectstats.Queries{
	Events:     `SELECT project_id, COUNT(*), COUNT(DISTINCT session_id), '' FROM events GROUP BY project_id`,
	Episodes:   `SELECT project_id, COUNT(*), 0, '' FROM episodes GROUP BY project_id`,
	Candidates: `SELECT project_id, COUNT(*), 0, status FROM candidates GROUP BY project_id, status`,
	Rules:      `SELECT project_id, COUNT(*), 0, status FROM rules WHERE status <> 'forgotten' GROUP BY project_id, status`,
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
		p.ID, subjectID).Scan(projectstats.SubjectColumns(st)...)
	if err != nil {
		return nil, fmt.Errorf("store: subject stats: %w", err)
	}
	return st, nil
}

// SetProjectAutoActivate changes whether a project's proposals in the
// low-risk set become active at once (true) or wait for a reviewer
// (false), with an audit row.
func (s *Store) SetProjectAutoActivate(ctx context.Context, actor string, projectID int64, on bool) error {
	return s.setProjectPolicy(ctx, "SetProjectAutoActivate", actor, projectID, admin.AutoActivatePolicy(on))
}

// SetProjectSingleUser records whether a project has a single trusted
// user (a rule for the whole project one person supports may then become
// active without a reviewer, inside the low-risk set), with an audit row.
func (s *Store) SetProjectSingleUser(ctx context.Context, actor string, projectID int64, on bool) error {
	return s.setProjectPolicy(ctx, "SetProjectSingleUser", actor, projectID, admin.SingleUserPolicy(on))
}

// setProjectPolicy sets one policy switch of a project, with its audit row.
func (s *Store) setProjectPolicy(ctx context.Context, op, actor string, projectID int64, pol admin.ProjectPolicy) error {
	tx, err := s.begin(ctx, op)
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
