package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// The keys of tombstones (governance/forgetplan, migration 0026).

// forgetKey returns the project's event-tombstone key, made on first use.
func forgetKey(ctx context.Context, tx *Tx, projectID int64) ([]byte, error) {
	k, err := forgetplan.NewKey()
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO forget_keys (project_id, key) VALUES (?, ?)`, projectID, k); err != nil {
		return nil, fmt.Errorf("store: forget key: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT key FROM forget_keys WHERE project_id = ?`, projectID).Scan(&k); err != nil {
		return nil, fmt.Errorf("store: forget key: %w", err)
	}
	return k, nil
}

// subjectKey returns the key of a project's subject, made on first use.
func subjectKey(ctx context.Context, tx *Tx, projectID int64, subjectID string) ([]byte, error) {
	k, err := forgetplan.NewKey()
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO subject_keys (project_id, subject_id, key) VALUES (?, ?, ?)`,
		projectID, subjectID, k); err != nil {
		return nil, fmt.Errorf("store: subject key: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT key FROM subject_keys WHERE project_id = ? AND subject_id = ?`,
		projectID, subjectID).Scan(&k); err != nil {
		return nil, fmt.Errorf("store: subject key: %w", err)
	}
	return k, nil
}

// FindSubjectByRef returns the subject of a project that an audit row's
// keyed reference (forgetplan.SubjectRef) names, when this database still
// holds the subject's key; ENOTFOUND otherwise. A restore replays a
// subject forget audited after its backup with it.
func (s *Store) FindSubjectByRef(ctx context.Context, projectID int64, ref string) (string, error) {
	keys := map[string][]byte{}
	err := queryAll(ctx, s.db, `SELECT subject_id, key FROM subject_keys WHERE project_id = ?`, []any{projectID},
		func(r scanner) error {
			var (
				subject string
				key     []byte
			)
			if err := r.Scan(&subject, &key); err != nil {
				return err
			}
			keys[subject] = key
			return nil
		})
	if err != nil {
		return "", fmt.Errorf("store: find subject by reference: %w", err)
	}
	if subject, ok := forgetplan.SubjectOfRef(ref, keys); ok {
		return subject, nil
	}
	return "", governance.Errorf(governance.ENOTFOUND, "Subject not found.")
}
