package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The settings row skills_masked names the gate (gate.Version) that last
// masked every stored skill version: the console masks them again at
// start only when the gate has changed since.
const skillsMaskedKey = "skills_masked"

// SkillsMaskedBy returns the gate version that last masked every stored
// skill version, "" when none has.
func (s *Store) SkillsMaskedBy(ctx context.Context) (string, error) {
	key := skillsMaskedKey
	var v string
	err := s.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: read setting %s: %w", key, err)
	}
	return v, nil
}

// SetSkillsMaskedBy records that gate version masked every stored skill
// version.
func (s *Store) SetSkillsMaskedBy(ctx context.Context, version string) error {
	key, value := skillsMaskedKey, version
	tx, err := s.begin(ctx, "SetSkillsMaskedBy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("store: set setting %s: %w", key, err)
	}
	return tx.Commit()
}
