package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/admin"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
)

// CreateProject inserts a project; a duplicate slug is ECONFLICT.
func (s *Store) CreateProject(ctx context.Context, p *governance.Project) error {
	if err := admin.CheckProject(p); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	err = tx.QueryRow(ctx, `
		INSERT INTO projects (slug, name, description, auto_activate, single_user, scratch, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		p.Slug, p.Name, p.Description, p.AutoActivate, p.SingleUser, p.Scratch, tx.now).Scan(&p.ID)
	if err != nil {
		return mapError(err, "Project "+p.Slug)
	}
	p.CreatedAt = tx.now
	return tx.Commit(ctx)
}

// FindProjectByID returns one project or ENOTFOUND.
func (s *Store) FindProjectByID(ctx context.Context, id int64) (*governance.Project, error) {
	return s.findProject(ctx, `id = $1`, id)
}

// FindProjectBySlug returns one project or ENOTFOUND.
func (s *Store) FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error) {
	return s.findProject(ctx, `slug = $1`, slug)
}

func (s *Store) findProject(ctx context.Context, where string, arg any) (*governance.Project, error) {
	p, err := scanProject(s.plans.QueryRow(ctx, `SELECT `+projectColumns+` FROM projects WHERE `+where, arg))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find project: %w", err)
	}
	return p, nil
}

// FindProjects lists every project by slug (byte order, as SQLite sorts).
func (s *Store) FindProjects(ctx context.Context) ([]*governance.Project, error) {
	var out []*governance.Project
	if err := queryAll(ctx, s.pool, `SELECT `+projectColumns+` FROM projects ORDER BY slug COLLATE "C"`, nil, rowscan.Append[pgx.Row](scanProject, &out)); err != nil {
		return nil, fmt.Errorf("postgres: find projects: %w", err)
	}
	return out, nil
}

const projectColumns = `id, slug, name, description, auto_activate, single_user, scratch, created_at`

func scanProject(r pgx.Row) (*governance.Project, error) {
	var (
		p       governance.Project
		created time.Time
	)
	if err := r.Scan(&p.ID, &p.Slug, &p.Name, &p.Description, &p.AutoActivate, &p.SingleUser, &p.Scratch, &created); err != nil {
		return nil, err
	}
	p.CreatedAt = created.UTC()
	return &p, nil
}

// SetProjectPolicy changes whether proposals of a project activate at once.
func (s *Store) SetProjectPolicy(ctx context.Context, projectID int64, autoActivate bool) error {
	if _, err := s.pool.Exec(ctx, `UPDATE projects SET auto_activate = $1 WHERE id = $2`, autoActivate, projectID); err != nil {
		return fmt.Errorf("postgres: set project policy: %w", err)
	}
	return nil
}

// SetProjectAutoActivate is SetProjectPolicy by a person, audited as
// "project.policy"; an unknown project is ENOTFOUND.
func (s *Store) SetProjectAutoActivate(ctx context.Context, actor string, projectID int64, on bool) error {
	return s.setProjectPolicy(ctx, actor, projectID, admin.AutoActivatePolicy(on))
}

// SetProjectSingleUser records whether a project has a single trusted
// user, audited as "project.policy"; an unknown project is ENOTFOUND.
func (s *Store) SetProjectSingleUser(ctx context.Context, actor string, projectID int64, on bool) error {
	return s.setProjectPolicy(ctx, actor, projectID, admin.SingleUserPolicy(on))
}

// setProjectPolicy sets one policy switch of a project, with its audit row.
func (s *Store) setProjectPolicy(ctx context.Context, actor string, projectID int64, pol admin.ProjectPolicy) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	tag, err := tx.Exec(ctx, `UPDATE projects SET `+pol.Column+` = $1 WHERE id = $2`, pol.On, projectID)
	if err != nil {
		return fmt.Errorf("postgres: set project policy: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	if err := appendAudit(ctx, tx, pol.Audit(actor, projectID)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
