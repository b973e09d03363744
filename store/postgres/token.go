package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/tokenrows"
)

// CreateToken stores a new token under the SHA-256 hash of its secret
// (hex, from auth.HashToken) and writes an audit row.
func (s *Store) CreateToken(ctx context.Context, t *governance.APIToken, hash string) error {
	if err := tokenrows.Check(t, hash); err != nil {
		return err
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := tx.QueryRow(ctx, `SELECT slug FROM projects WHERE id = $1`, t.ProjectID).Scan(&t.ProjectSlug); err != nil {
		if isNoRows(err) {
			return governance.Errorf(governance.ENOTFOUND, "Project not found.")
		}
		return fmt.Errorf("postgres: token project: %w", err)
	}
	err = tx.QueryRow(ctx, `
		INSERT INTO api_tokens (project_id, name, token_hash, scopes, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		t.ProjectID, t.Name, hash, tokenrows.JoinScopes(t.Scopes), t.CreatedBy, tx.now).Scan(&t.ID)
	if err != nil {
		return mapError(err, "Token")
	}
	t.CreatedAt = tx.now
	if err := appendAudit(ctx, tx, tokenrows.Created(t)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// RevokeToken revokes a token for good; revoking twice is a no-op.
func (s *Store) RevokeToken(ctx context.Context, id int64, actor string) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	// FOR UPDATE: two instances revoking at once write one audit row.
	t, err := findToken(ctx, tx, `t.id = $1 FOR UPDATE OF t`, id)
	if err != nil {
		return err
	}
	if t.Revoked() {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE api_tokens SET revoked_at = $1 WHERE id = $2`, tx.now, id); err != nil {
		return fmt.Errorf("postgres: revoke token: %w", err)
	}
	if err := appendAudit(ctx, tx, tokenrows.Revoked(actor, t)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// FindTokenByID returns one token or ENOTFOUND.
func (s *Store) FindTokenByID(ctx context.Context, id int64) (*governance.APIToken, error) {
	return findToken(ctx, s.pool, `t.id = $1`, id)
}

// FindTokenByHash returns the token whose secret hashes to hash, revoked or
// not, or ENOTFOUND.
func (s *Store) FindTokenByHash(ctx context.Context, hash string) (*governance.APIToken, error) {
	return findToken(ctx, s.pool, `t.token_hash = $1`, hash)
}

// FindTokens lists tokens, newest first.
func (s *Store) FindTokens(ctx context.Context, f governance.TokenFilter) ([]*governance.APIToken, error) {
	var w where
	if f.ProjectID != 0 {
		w.add("t.project_id = ?", f.ProjectID)
	}
	if !f.IncludeRevoked {
		w.add("t.revoked_at IS NULL")
	}
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens t JOIN projects p ON p.id = t.project_id
		WHERE `+w.String()+` ORDER BY t.id DESC`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: find tokens: %w", err)
	}
	defer rows.Close()
	var out []*governance.APIToken
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: find tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TouchToken records that a token was used, at most once a minute.
func (s *Store) TouchToken(ctx context.Context, t *governance.APIToken) error {
	now := utc(s.Now())
	if !tokenrows.TouchDue(t, now) {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = $1 WHERE id = $2`, now, t.ID); err != nil {
		return fmt.Errorf("postgres: touch token: %w", err)
	}
	t.LastUsedAt = &now
	return nil
}

const tokenColumns = `t.id, t.project_id, p.slug, t.name, t.scopes, t.created_by, t.created_at, t.last_used_at, t.revoked_at`

// querier is the pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func findToken(ctx context.Context, q querier, where string, arg any) (*governance.APIToken, error) {
	t, err := scanToken(q.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens t JOIN projects p ON p.id = t.project_id WHERE `+where, arg))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Token not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find token: %w", err)
	}
	return t, nil
}

func scanToken(r pgx.Row) (*governance.APIToken, error) {
	var (
		t                governance.APIToken
		scopes           string
		lastUsed, revoke *time.Time
	)
	if err := r.Scan(&t.ID, &t.ProjectID, &t.ProjectSlug, &t.Name, &scopes, &t.CreatedBy, &t.CreatedAt, &lastUsed, &revoke); err != nil {
		return nil, err
	}
	t.Scopes = tokenrows.Scopes(scopes)
	t.CreatedAt, t.LastUsedAt, t.RevokedAt = t.CreatedAt.UTC(), utcPtr(lastUsed), utcPtr(revoke)
	return &t, nil
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
