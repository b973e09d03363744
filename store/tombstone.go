package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/store/internal/forgetplan"
)

// The keys of tombstones (store/internal/forgetplan, migration 0026).

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
