package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
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
	key, err := tx.store.auditKeyFor(ctx, tx)
	if err != nil {
		return err
	}
	return appendAuditWith(ctx, tx, e, key)
}

// appendAuditWith is appendAudit sealing the row with key (nil: unkeyed).
func appendAuditWith(ctx context.Context, tx *Tx, e *governance.AuditEntry, key []byte) error {
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
	reasonHash := auditlog.Seal(e, prev, tx.now, key)
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
	sc, err := scanAuditRow(r, extra...)
	return sc.Entry, sc.ChainReason, err
}

// scanAuditRow reads a row of auditColumns as a verification reads it.
func scanAuditRow(r pgx.Row, extra ...any) (auditlog.Scanned, error) {
	var (
		e    governance.AuditEntry
		at   time.Time
		hash string
	)
	dest := append([]any{&e.ID, &at, &e.Actor, &e.Action, &e.ObjectType, &e.ObjectID, &e.ProjectID, &hash,
		&e.Reason, &e.PolicyVersion, &e.Details, &e.PrevHash, &e.Hash}, extra...)
	if err := r.Scan(dest...); err != nil {
		return auditlog.Scanned{}, fmt.Errorf("postgres: scan audit: %w", err)
	}
	e.At = at.UTC()
	return auditlog.Scanned{Entry: &e, ChainReason: auditlog.ChainReason("", hash), ReasonHash: hash, ReasonText: e.Reason}, nil
}

// VerifyAudit recomputes every row's hash and link; the first broken row is named.
func (s *Store) VerifyAudit(ctx context.Context) (*governance.AuditVerification, error) {
	return s.VerifyAuditHead(ctx, nil)
}

// VerifyAuditHead is VerifyAudit that also fails unless the chain holds
// expect, a head kept from before (nil: none), as it was.
func (s *Store) VerifyAuditHead(ctx context.Context, expect *governance.AuditHead) (*governance.AuditVerification, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` ORDER BY a.id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: verify audit: %w", err)
	}
	defer rows.Close()
	return auditlog.Verify(rows, s.auditKey().Key, expect, func() (auditlog.Scanned, error) { return scanAuditRow(rows) })
}

// AuditHead is the audit chain's head: its number of rows and the hash of
// its last row.
func (s *Store) AuditHead(ctx context.Context) (governance.AuditHead, error) {
	var h governance.AuditHead
	err := s.pool.QueryRow(ctx, `SELECT count(*), COALESCE((SELECT hash FROM audit ORDER BY id DESC LIMIT 1), '') FROM audit`).
		Scan(&h.Rows, &h.Hash)
	if err != nil {
		return h, fmt.Errorf("postgres: audit head: %w", err)
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
	err := s.pool.QueryRow(ctx, `SELECT id, hash FROM audit ORDER BY id DESC LIMIT 1`).Scan(&id, &hash)
	if err != nil && !isNoRows(err) {
		return 0, "", fmt.Errorf("postgres: audit head: %w", err)
	}
	return id, hash, nil
}

// SetAuditKey gives the store the audit key its chain is sealed with
// (SQLite's SetAuditKey): a chain not keyed yet is keyed from here with
// the key epoch row; one keyed already must be keyed with key (every
// instance needs the same key).
func (s *Store) SetAuditKey(ctx context.Context, actor string, key []byte) (keyedNow bool, before int, err error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return false, 0, err
	}
	defer tx.rollback()
	if err := tx.lock(ctx, lockAudit); err != nil {
		return false, 0, err
	}
	if keyedNow, before, err = auditlog.SetKey(ctx, keyTx{tx}, actor, key); err != nil {
		return false, 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return false, 0, fmt.Errorf("postgres: commit: %w", err)
	}
	s.audit.Store(&auditlog.Key{Key: key, Keyed: true})
	return keyedNow, before, nil
}

// keyTx answers auditlog.KeyTx inside tx, which holds the audit lock.
type keyTx struct{ tx *Tx }

func (k keyTx) Epoch(ctx context.Context) (int64, error) { return auditEpoch(ctx, k.tx) }

func (k keyTx) Row(ctx context.Context, id int64) (auditlog.Scanned, error) {
	return scanAuditRow(k.tx.QueryRow(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` WHERE a.id = $1`, id))
}

func (k keyTx) Rows(ctx context.Context) (int, error) {
	var n int
	if err := k.tx.QueryRow(ctx, `SELECT count(*) FROM audit`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: audit rows: %w", err)
	}
	return n, nil
}

func (k keyTx) Append(ctx context.Context, e *governance.AuditEntry, key []byte) error {
	return appendAuditWith(ctx, k.tx, e, key)
}

func (k keyTx) SetEpoch(ctx context.Context, id int64) error {
	if _, err := k.tx.Exec(ctx, `INSERT INTO settings (key, value) VALUES ('audit_key_epoch', $1)`, strconv.FormatInt(id, 10)); err != nil {
		return fmt.Errorf("postgres: audit key epoch: %w", err)
	}
	return nil
}

// AuditKeyed reports whether the chain is sealed with a key from an
// epoch row on (SetAuditKey).
func (s *Store) AuditKeyed(ctx context.Context) (bool, error) {
	epoch, err := auditEpoch(ctx, s.pool)
	return epoch != 0, err
}

// auditEpoch is the id of the chain's key epoch row (0: not keyed).
func auditEpoch(ctx context.Context, tx interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}) (int64, error) {
	var v string
	err := tx.QueryRow(ctx, `SELECT value FROM settings WHERE key = 'audit_key_epoch'`).Scan(&v)
	if isNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: audit key epoch: %w", err)
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
