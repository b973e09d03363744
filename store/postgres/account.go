package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/admin"
)

// CreateAccount inserts an account with its memberships.
func (s *Store) CreateAccount(ctx context.Context, a *governance.Account) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := createAccount(ctx, tx, a); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// createAccount inserts an account with its memberships inside tx.
func createAccount(ctx context.Context, tx *Tx, a *governance.Account) error {
	if err := admin.CheckAccount(a); err != nil {
		return err
	}
	err := tx.QueryRow(ctx, `
		INSERT INTO accounts (username, password_hash, is_admin, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $4) RETURNING id`,
		a.Username, a.PasswordHash, a.IsAdmin, tx.now).Scan(&a.ID)
	if err != nil {
		return mapError(err, "Account "+a.Username)
	}
	a.CreatedAt, a.UpdatedAt = tx.now, tx.now
	for _, m := range admin.Own(a) {
		if err := setMembership(ctx, tx, m); err != nil {
			return err
		}
	}
	return nil
}

// SetPasswordHash replaces an account's password hash and signs it out
// everywhere (its session generation moves on).
func (s *Store) SetPasswordHash(ctx context.Context, accountID int64, hash string) error {
	return s.updateAccount(ctx, "set password", accountID,
		`UPDATE accounts SET password_hash = $2, session_gen = session_gen + 1, updated_at = $3 WHERE id = $1`, hash, utc(s.Now()))
}

// SetAccountLanguage saves the console language an account chose (""
// follows the browser).
func (s *Store) SetAccountLanguage(ctx context.Context, accountID int64, lang string) error {
	return s.updateAccount(ctx, "set language", accountID,
		`UPDATE accounts SET language = $2, updated_at = $3 WHERE id = $1`, lang, utc(s.Now()))
}

// EndSessions signs the account out everywhere: cookies issued before no
// longer carry its session generation.
func (s *Store) EndSessions(ctx context.Context, accountID int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE accounts SET session_gen = session_gen + 1 WHERE id = $1`, accountID)
	if err != nil {
		return fmt.Errorf("postgres: end sessions: %w", err)
	}
	return nil
}

// updateAccount runs one UPDATE of the account ($1) and reports
// ENOTFOUND when there is none.
func (s *Store) updateAccount(ctx context.Context, what string, accountID int64, query string, args ...any) error {
	tag, err := s.pool.Exec(ctx, query, append([]any{accountID}, args...)...)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	if tag.RowsAffected() == 0 {
		return governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	return nil
}

// SetMembership creates or replaces an account's role in a project.
func (s *Store) SetMembership(ctx context.Context, m governance.Membership) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := setMembership(ctx, tx, m); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// RemoveMembership removes an account's role in a project.
func (s *Store) RemoveMembership(ctx context.Context, accountID, projectID int64) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM memberships WHERE account_id = $1 AND project_id = $2`, accountID, projectID)
	if err != nil {
		return fmt.Errorf("postgres: remove membership: %w", err)
	}
	return nil
}

func setMembership(ctx context.Context, tx *Tx, m governance.Membership) error {
	if err := admin.CheckMembership(&m); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO memberships (account_id, project_id, role, subject_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, project_id) DO UPDATE SET role = excluded.role, subject_id = excluded.subject_id`,
		m.AccountID, m.ProjectID, m.Role, m.SubjectID)
	if err != nil {
		return mapError(err, "Membership")
	}
	return nil
}

// FindAccountByID returns an account with its memberships or ENOTFOUND.
func (s *Store) FindAccountByID(ctx context.Context, id int64) (*governance.Account, error) {
	return s.findAccount(ctx, `id = $1`, id)
}

// FindAccountByUsername returns an account (case-insensitive name) or ENOTFOUND.
func (s *Store) FindAccountByUsername(ctx context.Context, username string) (*governance.Account, error) {
	return s.findAccount(ctx, `lower(username) = lower($1)`, strings.TrimSpace(username))
}

func (s *Store) findAccount(ctx context.Context, where string, arg any) (*governance.Account, error) {
	return admin.FirstAccount(s.findAccounts(ctx, where, arg))
}

// FindAccounts lists all accounts by username (case-insensitive).
func (s *Store) FindAccounts(ctx context.Context) ([]*governance.Account, error) {
	return s.findAccounts(ctx, `true`)
}

// findAccounts reads the accounts matching where with their memberships
// in one statement (one row per membership): every signed-in request
// loads its account (auth.LoadUser), so the lookup is one round trip.
func (s *Store) findAccounts(ctx context.Context, where string, args ...any) ([]*governance.Account, error) {
	rows, err := s.plans.Query(ctx, `
		SELECT a.id, a.username, a.password_hash, a.is_admin, a.session_gen, a.language, a.disabled_at, a.created_at, a.updated_at,
			m.project_id, m.slug, m.role, m.subject_id
		FROM accounts a LEFT JOIN LATERAL (
			SELECT m.project_id, p.slug, m.role, m.subject_id
			FROM memberships m JOIN projects p ON p.id = m.project_id WHERE m.account_id = a.id) m ON true
		WHERE `+where+` ORDER BY lower(a.username) COLLATE "C", a.id, m.slug COLLATE "C"`, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: find accounts: %w", err)
	}
	defer rows.Close()
	var out []*governance.Account
	for rows.Next() {
		var (
			a                governance.Account
			created, updated time.Time
			disabled         *time.Time
			projectID        *int64
			slug, role, subj *string
		)
		if err := rows.Scan(&a.ID, &a.Username, &a.PasswordHash, &a.IsAdmin, &a.SessionGen, &a.Language, &disabled, &created, &updated,
			&projectID, &slug, &role, &subj); err != nil {
			return nil, fmt.Errorf("postgres: find accounts: %w", err)
		}
		if n := len(out); n == 0 || out[n-1].ID != a.ID {
			a.CreatedAt, a.UpdatedAt, a.DisabledAt = created.UTC(), updated.UTC(), utcPtr(disabled)
			out = append(out, &a)
		}
		if projectID != nil {
			acc := out[len(out)-1]
			acc.Memberships = append(acc.Memberships, governance.Membership{AccountID: acc.ID, ProjectID: *projectID,
				ProjectSlug: *slug, Role: governance.ProjectRole(*role), SubjectID: *subj})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: find accounts: %w", err)
	}
	return out, nil
}

// SessionKeys returns the cookie hash and block keys, generating and
// storing them on first use. Every instance on the database reads the same
// keys: the first use is serialised by an advisory lock.
func (s *Store) SessionKeys(ctx context.Context) (hashKey, blockKey []byte, err error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.rollback()
	if err := tx.lock(ctx, lockSessionKey); err != nil {
		return nil, nil, err
	}
	err = tx.QueryRow(ctx, `SELECT hash_key, block_key FROM session_keys ORDER BY id DESC LIMIT 1`).Scan(&hashKey, &blockKey)
	if err == nil {
		return hashKey, blockKey, nil
	}
	if !isNoRows(err) {
		return nil, nil, fmt.Errorf("postgres: session keys: %w", err)
	}
	hashKey, blockKey = admin.NewSessionKeys()
	if _, err := tx.Exec(ctx, `INSERT INTO session_keys (hash_key, block_key, created_at) VALUES ($1, $2, $3)`,
		hashKey, blockKey, tx.now); err != nil {
		return nil, nil, fmt.Errorf("postgres: save session keys: %w", err)
	}
	return hashKey, blockKey, tx.Commit(ctx)
}
