package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
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
	if e.Subject != "" {
		key, err := subjectKey(ctx, tx, e.ProjectID, e.Subject)
		if err != nil {
			return err
		}
		auditlog.WithSubject(e, forgetplan.SubjectRef(key, e.Subject))
	}
	key, err := tx.store.auditKeyFor(ctx, tx)
	if err != nil {
		return err
	}
	return appendAuditWith(ctx, tx, e, key)
}

// appendAuditWith is appendAudit sealing the row with key (nil: unkeyed).
func appendAuditWith(ctx context.Context, tx *Tx, e *governance.AuditEntry, key []byte) error {
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
	reasonHash := auditlog.Seal(e, prev, tx.now, key)
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
	sc, err := scanAuditRow(r, extra...)
	return sc.Entry, sc.ChainReason, err
}

// scanAuditRow reads a row of auditColumns as a verification reads it.
func scanAuditRow(r scanner, extra ...any) (auditlog.Scanned, error) {
	var (
		e                          governance.AuditEntry
		at, column, hash, separate string
	)
	dest := append([]any{&e.ID, &at, &e.Actor, &e.Action, &e.ObjectType, &e.ObjectID, &e.ProjectID, &column, &hash,
		&separate, &e.PolicyVersion, &e.Details, &e.PrevHash, &e.Hash}, extra...)
	if err := r.Scan(dest...); err != nil {
		return auditlog.Scanned{}, err
	}
	e.At = parseTime(at)
	e.Reason = column
	if hash != "" {
		e.Reason = separate
	}
	return auditlog.Scanned{Entry: &e, ChainReason: auditlog.ChainReason(column, hash), ReasonHash: hash, ReasonText: separate}, nil
}

// VerifyAudit recomputes every row's hash and link; the first broken row is named.
func (s *Store) VerifyAudit(ctx context.Context) (*governance.AuditVerification, error) {
	return s.VerifyAuditHead(ctx, nil)
}

// VerifyAuditHead is VerifyAudit that also fails unless the chain holds
// expect, a head kept from before (nil: none), as it was.
func (s *Store) VerifyAuditHead(ctx context.Context, expect *governance.AuditHead) (*governance.AuditVerification, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	defer rows.Close()
	return auditlog.Verify(rows, s.auditKey().Key, expect, func() (auditlog.Scanned, error) { return scanAuditRow(rows) })
}

// AuditHead is the audit chain's head: its number of rows and the hash of
// its last row.
func (s *Store) AuditHead(ctx context.Context) (governance.AuditHead, error) {
	var h governance.AuditHead
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE((SELECT hash FROM audit ORDER BY id DESC LIMIT 1), '') FROM audit`).
		Scan(&h.Rows, &h.Hash)
	if err != nil {
		return h, fmt.Errorf("store: audit head: %w", err)
	}
	return h, nil
}

// AuditLast is the id and hash of the chain's last row (0 and "" when it
// is empty): what changes when the head does, read without counting.
func (s *Store) AuditLast(ctx context.Context) (int64, string, error) {
	var (
		id   int64
		hash string
	)
	err := s.db.QueryRowContext(ctx, `SELECT id, hash FROM audit ORDER BY id DESC LIMIT 1`).Scan(&id, &hash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, "", fmt.Errorf("store: audit head: %w", err)
	}
	return id, hash, nil
}

// SetAuditKey gives the store the audit key its chain is sealed with
// (docs/security.md). A chain not keyed yet is keyed from here: the key
// epoch row (governance.AuditKeyAction) is appended, and it reports the
// number of rows before it; one keyed already must be keyed with key,
// else the store keeps no key and it fails.
func (s *Store) SetAuditKey(ctx context.Context, actor string, key []byte) (keyedNow bool, before int, err error) {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return false, 0, err
	}
	defer tx.Rollback()
	if keyedNow, before, err = auditlog.SetKey(ctx, keyTx{tx}, actor, key); err != nil {
		return false, 0, err
	}
	if err := tx.Commit(); err != nil {
		return false, 0, err
	}
	s.audit.Store(&auditlog.Key{Key: key, Keyed: true})
	return keyedNow, before, nil
}

// keyTx answers auditlog.KeyTx inside tx (the single writer holds the
// chain's head).
type keyTx struct{ tx *Tx }

func (k keyTx) Epoch(ctx context.Context) (int64, error) { return auditEpoch(ctx, k.tx) }

func (k keyTx) Row(ctx context.Context, id int64) (auditlog.Scanned, error) {
	sc, err := scanAuditRow(k.tx.QueryRowContext(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` WHERE a.id = ?`, id))
	if err != nil {
		return sc, fmt.Errorf("store: audit key epoch: %w", err)
	}
	return sc, nil
}

func (k keyTx) Rows(ctx context.Context) (int, error) {
	var n int
	if err := k.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: audit rows: %w", err)
	}
	return n, nil
}

func (k keyTx) Append(ctx context.Context, e *governance.AuditEntry, key []byte) error {
	return appendAuditWith(ctx, k.tx, e, key)
}

func (k keyTx) SetEpoch(ctx context.Context, id int64) error {
	if _, err := k.tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('audit_key_epoch', ?)`, strconv.FormatInt(id, 10)); err != nil {
		return fmt.Errorf("store: audit key epoch: %w", err)
	}
	return nil
}

// AuditKeyed reports whether the chain is sealed with a key from an
// epoch row on (SetAuditKey).
func (s *Store) AuditKeyed(ctx context.Context) (bool, error) {
	epoch, err := auditEpoch(ctx, s.db)
	return epoch != 0, err
}

// auditEpoch is the id of the chain's key epoch row (0: not keyed).
func auditEpoch(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (int64, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'audit_key_epoch'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: audit key epoch: %w", err)
	}
	return strconv.ParseInt(v, 10, 64)
}

// auditKeyFor is the key a row appended in tx is sealed with: the store's,
// or none when the chain is not keyed; a keyed chain refuses a store
// without its key.
func (s *Store) auditKeyFor(ctx context.Context, tx *Tx) ([]byte, error) {
	return s.audit.Load().For(ctx, func(ctx context.Context) (int64, error) { return auditEpoch(ctx, tx) })
}

// auditKey is the store's audit key (none before SetAuditKey).
func (s *Store) auditKey() auditlog.Key {
	if k := s.audit.Load(); k != nil {
		return *k
	}
	return auditlog.Key{}
}
