package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
	"github.com/mnemo-console/mnemo/store/internal/forgetplan"
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
	if e.Subject != "" {
		key, err := subjectKey(ctx, tx, e.ProjectID, e.Subject)
		if err != nil {
			return err
		}
		auditlog.WithSubject(e, forgetplan.SubjectRef(key, e.Subject))
	}
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
	reasonHash := auditlog.Seal(e, prev, tx.now)
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
	w := &where{}
	for _, c := range auditlog.Where(f, auditlog.Dialect{Time: "?::timestamptz", NotScratch: "NOT scratch",
		InIDs: func(col string, ids []int64) (string, any) { return col + " = ANY(?)", ids }}) {
		w.add(c.SQL, c.Args...)
	}
	where, args := []string{w.String()}, w.args
	limit, args := page(args, f.Limit, f.Offset)
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+`, count(*) OVER () FROM `+auditFrom+`
		WHERE `+strings.Join(where, " AND ")+` ORDER BY a.id DESC`+limit, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: find audit: %w", err)
	}
	defer rows.Close()
	var total int
	out, err := auditlog.Collect(rows, func() (*governance.AuditEntry, error) {
		e, _, err := scanAudit(rows, &total)
		return e, err
	})
	return out, total, err
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
	return &e, auditlog.ChainReason("", hash), nil
}

// VerifyAudit recomputes every row's hash and link; the first broken row is named.
func (s *Store) VerifyAudit(ctx context.Context) (*governance.AuditVerification, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: verify audit: %w", err)
	}
	defer rows.Close()
	return auditlog.Verify(rows, func() (*governance.AuditEntry, string, error) { return scanAudit(rows) })
}
