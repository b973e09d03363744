package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/tokenrows"
)

// CreateToken stores a new token under the SHA-256 hash of its secret
// (hex, from auth.HashToken) and writes an audit row.
func (s *Store) CreateToken(ctx context.Context, t *governance.APIToken, hash string) error {
	if err := tokenrows.Check(t, hash); err != nil {
		return err
	}
	tx, err := s.begin(ctx, "CreateToken")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT slug FROM projects WHERE id = ?`, t.ProjectID).Scan(&t.ProjectSlug); err != nil {
		if isNoRows(err) {
			return governance.Errorf(governance.ENOTFOUND, "Project not found.")
		}
		return fmt.Errorf("store: token project: %w", err)
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO api_tokens (project_id, name, token_hash, scopes, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		t.ProjectID, t.Name, hash, tokenrows.JoinScopes(t.Scopes), t.CreatedBy, formatTime(tx.now))
	if err != nil {
		return mapError(err, "Token")
	}
	t.ID, _ = res.LastInsertId()
	t.CreatedAt = tx.now
	if err := appendAudit(ctx, tx, tokenrows.Created(t)); err != nil {
		return err
	}
	return tx.Commit()
}

// RevokeToken revokes a token for good; revoking twice is a no-op.
func (s *Store) RevokeToken(ctx context.Context, id int64, actor string) error {
	tx, err := s.begin(ctx, "RevokeToken")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	t, err := findToken(ctx, tx, `t.id = ?`, id)
	if err != nil {
		return err
	}
	if t.Revoked() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE id = ?`, formatTime(tx.now), id); err != nil {
		return fmt.Errorf("store: revoke token: %w", err)
	}
	if err := appendAudit(ctx, tx, tokenrows.Revoked(actor, t)); err != nil {
		return err
	}
	return tx.Commit()
}

// FindTokenByID returns one token or ENOTFOUND.
func (s *Store) FindTokenByID(ctx context.Context, id int64) (*governance.APIToken, error) {
	return findToken(ctx, s.db, `t.id = ?`, id)
}

// FindTokenByHash returns the token whose secret hashes to hash, revoked or
// not, or ENOTFOUND.
func (s *Store) FindTokenByHash(ctx context.Context, hash string) (*governance.APIToken, error) {
	return findToken(ctx, s.db, `t.token_hash = ?`, hash)
}

// FindTokens lists tokens, newest first.
func (s *Store) FindTokens(ctx context.Context, f governance.TokenFilter) ([]*governance.APIToken, error) {
	where, args := []string{"1 = 1"}, []any{}
	if f.ProjectID != 0 {
		where, args = append(where, "t.project_id = ?"), append(args, f.ProjectID)
	}
	if !f.IncludeRevoked {
		where = append(where, "t.revoked_at IS NULL")
	}
	var out []*governance.APIToken
	err := queryAll(ctx, s.read, `SELECT `+tokenColumns+` FROM api_tokens t JOIN projects p ON p.id = t.project_id
		WHERE `+strings.Join(where, " AND ")+` ORDER BY t.id DESC`, args, rowscan.Append[scanner](scanToken, &out))
	if err != nil {
		return nil, fmt.Errorf("store: find tokens: %w", err)
	}
	return out, nil
}

// TouchToken records that a token was used, at most once a minute.
func (s *Store) TouchToken(ctx context.Context, t *governance.APIToken) error {
	now := s.Now().UTC().Truncate(time.Second)
	if !tokenrows.TouchDue(t, now) {
		return nil
	}
	if _, err := s.exec(ctx, "TouchToken", `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, formatTime(now), t.ID); err != nil {
		return fmt.Errorf("store: touch token: %w", err)
	}
	t.LastUsedAt = &now
	return nil
}

const tokenColumns = `t.id, t.project_id, p.slug, t.name, t.scopes, t.created_by, t.created_at, t.last_used_at, t.revoked_at`

func findToken(ctx context.Context, q querier, where string, arg any) (*governance.APIToken, error) {
	t, err := scanToken(q.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM api_tokens t JOIN projects p ON p.id = t.project_id WHERE `+where, arg))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Token not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("store: find token: %w", err)
	}
	return t, nil
}

func scanToken(r scanner) (*governance.APIToken, error) {
	var (
		t                governance.APIToken
		scopes, created  string
		lastUsed, revoke NullTime
	)
	if err := r.Scan(&t.ID, &t.ProjectID, &t.ProjectSlug, &t.Name, &scopes, &t.CreatedBy, &created, &lastUsed, &revoke); err != nil {
		return nil, err
	}
	t.Scopes = tokenrows.Scopes(scopes)
	t.CreatedAt, t.LastUsedAt, t.RevokedAt = parseTime(created), lastUsed.Time, revoke.Time
	return &t, nil
}
