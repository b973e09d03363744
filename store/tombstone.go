package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Tombstones: what a subject forget leaves in place of identifiers (see
// migration 0026). A tombstone is a prefix and 32 hex digits of an
// HMAC-SHA256 of the identifier: the same identifier under the same key
// gives the same tombstone (sessions stay grouped, a re-imported event is
// recognised), and without the key nothing confirms a guess.

// Tombstone prefixes.
const (
	eventTombstone   = "forgotten:"
	sessionTombstone = "forgotten-session:"
	subjectTombstone = "forgotten-subject:"
	subjectRefPrefix = "subject:"
)

func tombstone(key []byte, prefix, s string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return prefix + hex.EncodeToString(m.Sum(nil)[:16])
}

func newKey() ([]byte, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("store: new key: %w", err)
	}
	return k, nil
}

// forgetKey returns the project's event-tombstone key, made on first use.
func forgetKey(ctx context.Context, tx *Tx, projectID int64) ([]byte, error) {
	k, err := newKey()
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
	k, err := newKey()
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

// subjectRef is how an audit row names a subject: a keyed hash that the
// subject's forget makes unconfirmable by deleting the key.
func subjectRef(ctx context.Context, tx *Tx, projectID int64, subjectID string) (string, error) {
	k, err := subjectKey(ctx, tx, projectID, subjectID)
	if err != nil {
		return "", err
	}
	return tombstone(k, subjectRefPrefix, subjectID), nil
}
