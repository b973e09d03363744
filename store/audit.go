package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
)

// AppendAudit appends one row to the hash-chained audit log.
func (s *Store) AppendAudit(ctx context.Context, e *governance.AuditEntry) error {
	tx, err := s.begin(ctx, "AppendAudit")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := appendAudit(ctx, tx, e); err != nil {
		return err
	}
	return tx.Commit()
}

// appendAudit chains e to the last row inside tx, so the audit row commits or
// rolls back with the change it records.
func appendAudit(ctx context.Context, tx *Tx, e *governance.AuditEntry) error {
	var prev string
	err := tx.QueryRowContext(ctx, `SELECT hash FROM audit ORDER BY id DESC LIMIT 1`).Scan(&prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store: audit head: %w", err)
	}
	if e.PolicyVersion == "" {
		if err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'policy_version'`).Scan(&e.PolicyVersion); err != nil {
			return fmt.Errorf("store: policy version: %w", err)
		}
	}
	reasonHash := auditlog.Seal(e, prev, tx.now)
	res, err := tx.ExecContext(ctx, `
		INSERT INTO audit (at, actor, action, object_type, object_id, project_id, reason, reason_hash, policy_version, details, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?)`,
		formatTime(e.At), e.Actor, e.Action, e.ObjectType, e.ObjectID, nullInt(e.ProjectID), reasonHash,
		e.PolicyVersion, e.Details, e.PrevHash, e.Hash)
	if err != nil {
		return fmt.Errorf("store: append audit: %w", err)
	}
	e.ID, _ = res.LastInsertId()
	if e.Reason != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit_reasons (audit_id, reason) VALUES (?, ?)`, e.ID, e.Reason); err != nil {
			return fmt.Errorf("store: append audit reason: %w", err)
		}
	}
	return nil
}

// redactAuditReasons blanks the reasons given on audit rows about the
// objects of a forget; the chain still verifies (it covers their hash).
func redactAuditReasons(ctx context.Context, tx *Tx, objectType string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	objectIDs := make([]string, len(ids))
	for i, id := range ids {
		objectIDs[i] = strconv.FormatInt(id, 10)
	}
	_, err := tx.ExecContext(ctx, `UPDATE audit_reasons SET reason = ? WHERE audit_id IN (
		SELECT id FROM audit WHERE object_type = ? AND object_id IN (SELECT value FROM json_each(?)))`,
		governance.RedactedText, objectType, listArg(objectIDs))
	if err != nil {
		return fmt.Errorf("store: redact audit reasons: %w", err)
	}
	return nil
}

// FindAudit lists audit rows, newest first, with the total count.
func (s *Store) FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	for _, c := range auditlog.Where(f, auditlog.Dialect{Time: "?", NotScratch: "scratch = 0",
		InIDs: func(col string, ids []int64) (string, any) {
			return col + " IN (SELECT value FROM json_each(?))", listArg(ids)
		}}) {
		where, args = append(where, c.SQL), append(args, c.Args...)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+auditColumns+`, COUNT(*) OVER () FROM `+auditFrom+`
		WHERE `+strings.Join(where, " AND ")+` ORDER BY a.id DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: find audit: %w", err)
	}
	defer rows.Close()
	var total int
	out, err := auditlog.Collect(rows, func() (*governance.AuditEntry, error) {
		e, _, err := scanAudit(rows, &total)
		return e, err
	})
	return out, total, err
}

const (
	auditColumns = `a.id, a.at, a.actor, a.action, a.object_type, a.object_id, COALESCE(a.project_id, 0), a.reason, a.reason_hash,
		COALESCE(ar.reason, ''), a.policy_version, a.details, a.prev_hash, a.hash`
	auditFrom = `audit a LEFT JOIN audit_reasons ar ON ar.audit_id = a.id`
)

// scanAudit reads a row of auditColumns and returns it with what its hash
// covers of the reason.
func scanAudit(r scanner, extra ...any) (*governance.AuditEntry, string, error) {
	var (
		e                          governance.AuditEntry
		at, column, hash, separate string
	)
	dest := append([]any{&e.ID, &at, &e.Actor, &e.Action, &e.ObjectType, &e.ObjectID, &e.ProjectID, &column, &hash,
		&separate, &e.PolicyVersion, &e.Details, &e.PrevHash, &e.Hash}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, "", err
	}
	e.At = parseTime(at)
	e.Reason = column
	if hash != "" {
		e.Reason = separate
	}
	return &e, auditlog.ChainReason(column, hash), nil
}

// VerifyAudit recomputes every row's hash and link; the first broken row is named.
func (s *Store) VerifyAudit(ctx context.Context) (*governance.AuditVerification, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	defer rows.Close()
	return auditlog.Verify(rows, func() (*governance.AuditEntry, string, error) { return scanAudit(rows) })
}
