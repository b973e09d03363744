package postgres

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/store/internal/skillrows"
)

// SkillsMaskedBy returns the gate version that last masked every stored
// skill version, "" when none has (skillrows.MaskedSetting).
func (s *Store) SkillsMaskedBy(ctx context.Context) (string, error) {
	return skillrows.MaskedBy(s.pool.QueryRow(ctx, `SELECT value FROM settings WHERE key = $1`, skillrows.MaskedSetting), isNoRows)
}

// SetSkillsMaskedBy records that gate version masked every stored skill
// version.
func (s *Store) SetSkillsMaskedBy(ctx context.Context, version string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, skillrows.MaskedSetting, version); err != nil {
		return fmt.Errorf("postgres: set setting %s: %w", skillrows.MaskedSetting, err)
	}
	return nil
}
