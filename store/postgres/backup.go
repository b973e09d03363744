package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// What "console restore --database" needs of a database pg_restore made
// from a dump, and of the database the dump came from (docs/operations.md, "Backup and
// restore"): the same methods as the SQLite store's (store/backup.go).

// FindSuppressions lists every suppression fingerprint.
func (s *Store) FindSuppressions(ctx context.Context) ([]governance.Suppression, error) {
	rows, err := s.pool.Query(ctx, `SELECT project_id, fingerprint, subject_id, created_at FROM suppressions
		ORDER BY project_id, fingerprint COLLATE "C", subject_id COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres: find suppressions: %w", err)
	}
	defer rows.Close()
	var out []governance.Suppression
	for rows.Next() {
		var x governance.Suppression
		if err := rows.Scan(&x.ProjectID, &x.Fingerprint, &x.SubjectID, &x.CreatedAt); err != nil {
			return nil, fmt.Errorf("postgres: find suppressions: %w", err)
		}
		x.CreatedAt = x.CreatedAt.UTC()
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: find suppressions: %w", err)
	}
	return out, nil
}

// AddSuppressions records fingerprints (a restore carrying over those of
// forgets made after its dump), skipping those already present and those
// of projects this database does not have; it returns how many it added.
func (s *Store) AddSuppressions(ctx context.Context, sups []governance.Suppression) (int, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.rollback()
	added := 0
	for _, x := range sups {
		tag, err := tx.Exec(ctx, `INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at)
			SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $1)
			ON CONFLICT DO NOTHING`, x.ProjectID, x.Fingerprint, x.SubjectID, utc(x.CreatedAt))
		if err != nil {
			return 0, fmt.Errorf("postgres: add suppressions: %w", err)
		}
		added += int(tag.RowsAffected())
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("postgres: add suppressions: %w", err)
	}
	return added, nil
}

// FindSubjectByRef returns the subject of a project that an audit row's
// keyed reference (forgetplan.SubjectRef) names, when this database still
// holds the subject's key; ENOTFOUND otherwise.
func (s *Store) FindSubjectByRef(ctx context.Context, projectID int64, ref string) (string, error) {
	rows, err := s.pool.Query(ctx, `SELECT subject_id, key FROM subject_keys WHERE project_id = $1`, projectID)
	if err != nil {
		return "", fmt.Errorf("postgres: find subject by reference: %w", err)
	}
	defer rows.Close()
	keys := map[string][]byte{}
	for rows.Next() {
		var (
			subject string
			key     []byte
		)
		if err := rows.Scan(&subject, &key); err != nil {
			return "", fmt.Errorf("postgres: find subject by reference: %w", err)
		}
		keys[subject] = key
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("postgres: find subject by reference: %w", err)
	}
	if subject, ok := forgetplan.SubjectOfRef(ref, keys); ok {
		return subject, nil
	}
	return "", governance.Errorf(governance.ENOTFOUND, "Subject not found.")
}

// OtherSessions counts the client sessions connected to this database
// other than this store's own: console instances (each keeps pooled
// connections open while it runs), psql, other tools. A restore refuses
// to replay onto a database others use.
func (s *Store) OtherSessions(ctx context.Context) (int, error) {
	// Every connection of the pool is held while counting, so none of
	// ours can be counted as another's.
	conns := s.pool.AcquireAllIdle(ctx)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	if len(conns) == 0 {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return 0, fmt.Errorf("postgres: count sessions: %w", err)
		}
		conns = append(conns, c)
	}
	pids := make([]int32, len(conns))
	for i, c := range conns {
		pids[i] = int32(c.Conn().PgConn().PID())
	}
	var n int
	if err := conns[0].QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> ALL($1)`, pids).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count sessions: %w", err)
	}
	return n, nil
}
