package store

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mnemo-console/mnemo/governance"
)

// Backup writes a consistent copy of the live database to path with
// VACUUM INTO: online (readers and the writer go on; the copy is the
// database as of one read transaction), compacted, and holding no pages
// freed by earlier forgets. path must not exist.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("store: backup: %s exists", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: backup: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	return nil
}

// FindSuppressions lists every suppression fingerprint.
func (s *Store) FindSuppressions(ctx context.Context) ([]governance.Suppression, error) {
	var out []governance.Suppression
	err := queryAll(ctx, s.db, `SELECT project_id, fingerprint, subject_id, created_at FROM suppressions ORDER BY project_id, fingerprint`, nil,
		func(r scanner) error {
			var (
				x  governance.Suppression
				at string
			)
			if err := r.Scan(&x.ProjectID, &x.Fingerprint, &x.SubjectID, &at); err != nil {
				return err
			}
			x.CreatedAt = parseTime(at)
			out = append(out, x)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("store: find suppressions: %w", err)
	}
	return out, nil
}

// AddSuppressions records fingerprints (a restore carrying over those of
// forgets made after its backup), skipping those already present and those
// of projects this database does not have; it returns how many it added.
func (s *Store) AddSuppressions(ctx context.Context, sups []governance.Suppression) (int, error) {
	tx, err := s.begin(ctx, "AddSuppressions")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	added := 0
	for _, x := range sups {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO suppressions (project_id, fingerprint, subject_id, created_at)
			SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM projects WHERE id = ?)`, x.ProjectID, x.Fingerprint, x.SubjectID, formatTime(x.CreatedAt), x.ProjectID)
		if err != nil {
			return 0, fmt.Errorf("store: add suppressions: %w", err)
		}
		n, _ := res.RowsAffected()
		added += int(n)
	}
	return added, tx.Commit()
}
