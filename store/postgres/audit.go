package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
)

// AppendAudit appends one row to the hash-chained audit log.
func (s *Store) AppendAudit(ctx context.Context, e *governance.AuditEntry) error {
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if err := appendAudit(ctx, tx, e); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// appendAudit chains e to the last row inside tx, so the audit row commits
// or rolls back with the change it records. The advisory lock makes
// writers on every instance take the chain's head in turn (held until the
// transaction ends, so the next writer reads this row as its head).
func appendAudit(ctx context.Context, tx *Tx, e *governance.AuditEntry) error {
	if err := tx.lock(ctx, lockAudit); err != nil {
		return err
	}
	var prev string
	err := tx.QueryRow(ctx, `SELECT hash FROM audit ORDER BY id DESC LIMIT 1`).Scan(&prev)
	if err != nil && !isNoRows(err) {
		return fmt.Errorf("postgres: audit head: %w", err)
	}
	if e.PolicyVersion == "" {
		if err := tx.QueryRow(ctx, `SELECT value FROM settings WHERE key = 'policy_version'`).Scan(&e.PolicyVersion); err != nil {
			return fmt.Errorf("postgres: policy version: %w", err)
		}
	}
	e.At = tx.now
	e.PrevHash = prev
	var reasonHash string
	if e.Reason != "" {
		sum := sha256.Sum256([]byte(e.Reason))
		reasonHash = hex.EncodeToString(sum[:])
	}
	e.Hash = governance.AuditHash(e, chainReason(reasonHash))
	err = tx.QueryRow(ctx, `
		INSERT INTO audit (at, actor, action, object_type, object_id, project_id, reason_hash, policy_version, details, prev_hash, hash)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		e.At, e.Actor, e.Action, e.ObjectType, e.ObjectID, nullInt(e.ProjectID), reasonHash,
		e.PolicyVersion, e.Details, e.PrevHash, e.Hash).Scan(&e.ID)
	if err != nil {
		return fmt.Errorf("postgres: append audit: %w", err)
	}
	if e.Reason != "" {
		if _, err := tx.Exec(ctx, `INSERT INTO audit_reasons (audit_id, reason) VALUES ($1, $2)`, e.ID, e.Reason); err != nil {
			return fmt.Errorf("postgres: append audit reason: %w", err)
		}
	}
	return nil
}

// chainReason is what the hash chain covers of a row's reason: the SHA-256
// of its text, in the form the SQLite store chains it (that store's rows
// from before its reason_hash column hold the text itself; this one has
// none), so a chain verifies the same on either backend.
func chainReason(reasonHash string) string {
	if reasonHash == "" {
		return ""
	}
	return "\x00sha256:" + reasonHash
}

func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

const (
	auditColumns = `a.id, a.at, a.actor, a.action, a.object_type, a.object_id, COALESCE(a.project_id, 0), a.reason_hash,
		COALESCE(ar.reason, ''), a.policy_version, a.details, a.prev_hash, a.hash`
	auditFrom = `audit a LEFT JOIN audit_reasons ar ON ar.audit_id = a.id`
)

// FindAudit lists audit rows, newest first, with the total count.
func (s *Store) FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error) {
	where, args := []string{"true"}, []any{}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	if f.Actor != "" {
		add("a.actor = ?", f.Actor)
	}
	if f.Action != "" {
		add("a.action = ?", f.Action)
	}
	if f.ObjectType != "" {
		add("a.object_type = ?", f.ObjectType)
	}
	if f.ObjectID != "" {
		add("a.object_id = ?", f.ObjectID)
	}
	if f.Since != "" {
		add("a.at >= ?::timestamptz", f.Since)
	}
	if f.Until != "" {
		add("a.at <= ?::timestamptz", f.Until)
	}
	if f.HideEval {
		where = append(where, `a.actor <> 'eval-runner'`,
			`(a.project_id IS NULL OR a.project_id IN (SELECT id FROM projects WHERE NOT scratch))`)
	}
	if f.ProjectIDs != nil {
		add("a.project_id = ANY(?)", f.ProjectIDs)
	}
	limit, args := page(args, f.Limit, f.Offset)
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+`, count(*) OVER () FROM `+auditFrom+`
		WHERE `+strings.Join(where, " AND ")+` ORDER BY a.id DESC`+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find audit: %w", err)
	}
	defer rows.Close()
	var (
		out   []*governance.AuditEntry
		total int
	)
	for rows.Next() {
		e, _, err := scanAudit(rows, &total)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// scanAudit reads a row of auditColumns and returns it with what its hash
// covers of the reason.
func scanAudit(r pgx.Row, extra ...any) (*governance.AuditEntry, string, error) {
	var (
		e    governance.AuditEntry
		at   time.Time
		hash string
	)
	dest := append([]any{&e.ID, &at, &e.Actor, &e.Action, &e.ObjectType, &e.ObjectID, &e.ProjectID, &hash,
		&e.Reason, &e.PolicyVersion, &e.Details, &e.PrevHash, &e.Hash}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, "", fmt.Errorf("postgres: scan audit: %w", err)
	}
	e.At = at.UTC()
	return &e, chainReason(hash), nil
}

// VerifyAudit recomputes every row's hash and link; the first broken row is named.
func (s *Store) VerifyAudit(ctx context.Context) (*governance.AuditVerification, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: verify audit: %w", err)
	}
	defer rows.Close()
	v := governance.NewAuditVerification()
	for rows.Next() {
		e, reason, err := scanAudit(rows)
		if err != nil {
			return nil, err
		}
		v.Check(e, reason)
	}
	return v, rows.Err()
}
