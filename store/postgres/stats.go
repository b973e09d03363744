package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/projectstats"
)

// FindProjectStats counts every layer per project.
func (s *Store) FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error) {
	return projectstats.Count(ctx, s.FindProjects, projectStatsQueries, func(query string, row func(pgx.Row) error) error {
		return queryAll(ctx, s.pool, query, nil, row)
	})
}

// projectStatsQueries are FindProjectStats' count queries.
var projectStatsQueries = projectstats.Queries{
	Events:     `SELECT project_id, count(*), count(DISTINCT session_id), '' FROM events GROUP BY project_id`,
	Episodes:   `SELECT project_id, count(*), 0, '' FROM episodes GROUP BY project_id`,
	Candidates: `SELECT project_id, count(*), 0, status FROM candidates GROUP BY project_id, status`,
	Rules:      `SELECT project_id, count(*), 0, status FROM rules WHERE status <> 'forgotten' GROUP BY project_id, status`,
}

// FindSubjectStats counts what every layer holds about one subject of a
// project: its events and sessions, episodes, candidates, and the rules
// scoped to it.
func (s *Store) FindSubjectStats(ctx context.Context, p *governance.Project, subjectID string) (*governance.ProjectStats, error) {
	st := &governance.ProjectStats{Project: p}
	err := s.pool.QueryRow(ctx, `
		SELECT
			(SELECT count(*) FROM events WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM sessions WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM episodes WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM candidates WHERE project_id = $1 AND subject_id = $2),
			(SELECT count(*) FROM candidates WHERE project_id = $1 AND subject_id = $2 AND status = 'held'),
			(SELECT count(*) FROM candidates WHERE project_id = $1 AND subject_id = $2 AND status = 'blocked'),
			(SELECT count(*) FROM rules WHERE project_id = $1 AND subject_id = $2 AND status = 'proposed'),
			(SELECT count(*) FROM rules WHERE project_id = $1 AND subject_id = $2 AND status = 'active'),
			(SELECT count(*) FROM rules WHERE project_id = $1 AND subject_id = $2 AND status <> 'forgotten')`,
		p.ID, subjectID).Scan(projectstats.SubjectColumns(st)...)
	if err != nil {
		return nil, fmt.Errorf("postgres: subject stats: %w", err)
	}
	return st, nil
}
