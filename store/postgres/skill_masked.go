package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
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
	err := s.pool.QueryRow(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("postgres: read setting %s: %w", key, err)
	}
	return v, nil
}

// SetSkillsMaskedBy records that gate version masked every stored skill
// version.
func (s *Store) SetSkillsMaskedBy(ctx context.Context, version string) error {
	key, value := skillsMaskedKey, version
	if _, err := s.pool.Exec(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("postgres: set setting %s: %w", key, err)
	}
	return nil
}
