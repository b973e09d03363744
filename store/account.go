package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/admin"
)

// CreateAccount inserts an account with its memberships.
func (s *Store) CreateAccount(ctx context.Context, a *governance.Account) error {
	tx, err := s.begin(ctx, "CreateAccount")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := createAccount(ctx, tx, a); err != nil {
		return err
	}
	return tx.Commit()
}

// createAccount inserts an account with its memberships inside tx.
func createAccount(ctx context.Context, tx *Tx, a *governance.Account) error {
	if err := admin.CheckAccount(a); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		INSERT INTO accounts (username, password_hash, is_admin, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?)`,
		a.Username, a.PasswordHash, a.IsAdmin, formatTime(tx.now), formatTime(tx.now))
	if err != nil {
		return mapError(err, "Account "+a.Username)
	}
	a.ID, _ = res.LastInsertId()
	a.CreatedAt, a.UpdatedAt = tx.now, tx.now
	for _, m := range admin.Own(a) {
		if err := setMembership(ctx, tx, m); err != nil {
			return err
		}
	}
	return nil
}

// FindAccountByID returns an account with its memberships or ENOTFOUND.
func (s *Store) FindAccountByID(ctx context.Context, id int64) (*governance.Account, error) {
	return s.findAccount(ctx, `id = ?`, id)
}

// FindAccountByUsername returns an account (case-insensitive name) or ENOTFOUND.
func (s *Store) FindAccountByUsername(ctx context.Context, username string) (*governance.Account, error) {
	return s.findAccount(ctx, `username = ?`, strings.TrimSpace(username))
}

func (s *Store) findAccount(ctx context.Context, where string, arg any) (*governance.Account, error) {
	return admin.FirstAccount(s.findAccounts(ctx, where, arg))
}

// FindAccounts lists all accounts by username.
func (s *Store) FindAccounts(ctx context.Context) ([]*governance.Account, error) {
	return s.findAccounts(ctx, `1 = 1`)
}

func (s *Store) findAccounts(ctx context.Context, where string, args ...any) ([]*governance.Account, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT id, username, password_hash, is_admin, session_gen, language, disabled_at, created_at, updated_at
		FROM accounts WHERE `+where+` ORDER BY username`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: find accounts: %w", err)
	}
	defer rows.Close()
	var out []*governance.Account
	byID := map[int64]*governance.Account{}
	for rows.Next() {
		var (
			a                governance.Account
			created, updated string
			disabled         sql.NullString
		)
		if err := rows.Scan(&a.ID, &a.Username, &a.PasswordHash, &a.IsAdmin, &a.SessionGen, &a.Language, &disabled, &created, &updated); err != nil {
			return nil, err
		}
		if disabled.Valid {
			at := parseTime(disabled.String)
			a.DisabledAt = &at
		}
		a.CreatedAt, a.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, &a)
		byID[a.ID] = &a
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	query := `SELECT m.account_id, m.project_id, p.slug, m.role, m.subject_id
		FROM memberships m JOIN projects p ON p.id = m.project_id`
	var margs []any
	if len(out) == 1 { // the common case: the signed-in account on every request
		query += ` WHERE m.account_id = ?`
		margs = append(margs, out[0].ID)
	}
	mrows, err := s.read.QueryContext(ctx, query+` ORDER BY p.slug`, margs...)
	if err != nil {
		return nil, fmt.Errorf("store: find memberships: %w", err)
	}
	defer mrows.Close()
	for mrows.Next() {
		var m governance.Membership
		if err := mrows.Scan(&m.AccountID, &m.ProjectID, &m.ProjectSlug, &m.Role, &m.SubjectID); err != nil {
			return nil, err
		}
		if a := byID[m.AccountID]; a != nil {
			a.Memberships = append(a.Memberships, m)
		}
	}
	return out, mrows.Err()
}

// SetPasswordHash replaces an account's password hash.
func (s *Store) SetPasswordHash(ctx context.Context, accountID int64, hash string) error {
	res, err := s.exec(ctx, "SetPasswordHash", `UPDATE accounts SET password_hash = ?, session_gen = session_gen + 1, updated_at = ? WHERE id = ?`,
		hash, formatTime(s.Now()), accountID)
	if err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	return nil
}

// SetAccountLanguage saves the console language an account chose (""
// follows the browser).
func (s *Store) SetAccountLanguage(ctx context.Context, accountID int64, lang string) error {
	res, err := s.exec(ctx, "SetAccountLanguage", `UPDATE accounts SET language = ?, updated_at = ? WHERE id = ?`,
		lang, formatTime(s.Now()), accountID)
	if err != nil {
		return fmt.Errorf("store: set language: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	return nil
}

// EndSessions signs the account out everywhere: cookies issued before no
// longer carry its session generation.
func (s *Store) EndSessions(ctx context.Context, accountID int64) error {
	_, err := s.exec(ctx, "EndSessions", `UPDATE accounts SET session_gen = session_gen + 1 WHERE id = ?`, accountID)
	if err != nil {
		return fmt.Errorf("store: end sessions: %w", err)
	}
	return nil
}

// SetMembership creates or replaces an account's role in a project.
func (s *Store) SetMembership(ctx context.Context, m governance.Membership) error {
	tx, err := s.begin(ctx, "SetMembership")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := setMembership(ctx, tx, m); err != nil {
		return err
	}
	return tx.Commit()
}

func setMembership(ctx context.Context, tx *Tx, m governance.Membership) error {
	if err := admin.CheckMembership(&m); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO memberships (account_id, project_id, role, subject_id) VALUES (?, ?, ?, ?)
		ON CONFLICT (account_id, project_id) DO UPDATE SET role = excluded.role, subject_id = excluded.subject_id`,
		m.AccountID, m.ProjectID, m.Role, m.SubjectID)
	if err != nil {
		return mapError(err, "Membership")
	}
	return nil
}

// RemoveMembership removes an account's role in a project.
func (s *Store) RemoveMembership(ctx context.Context, accountID, projectID int64) error {
	_, err := s.exec(ctx, "RemoveMembership", `DELETE FROM memberships WHERE account_id = ? AND project_id = ?`, accountID, projectID)
	return err
}

// SessionKeys returns the cookie hash and block keys, generating and storing
// them on first use. They live in the database, in the data directory.
func (s *Store) SessionKeys(ctx context.Context) (hashKey, blockKey []byte, err error) {
	tx, err := s.begin(ctx, "SessionKeys")
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `SELECT hash_key, block_key FROM session_keys ORDER BY id DESC LIMIT 1`).Scan(&hashKey, &blockKey)
	if err == nil {
		return hashKey, blockKey, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("store: session keys: %w", err)
	}
	hashKey, blockKey = admin.NewSessionKeys()
	if _, err := tx.ExecContext(ctx, `INSERT INTO session_keys (hash_key, block_key, created_at) VALUES (?, ?, ?)`,
		hashKey, blockKey, formatTime(tx.now)); err != nil {
		return nil, nil, fmt.Errorf("store: save session keys: %w", err)
	}
	return hashKey, blockKey, tx.Commit()
}
