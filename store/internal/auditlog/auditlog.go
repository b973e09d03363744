// Package auditlog is the part of the hash-chained audit log both stores
// share: how a row is sealed into the chain, what the chain covers of its
// reason, how a filter reads, and the verification walk. Each store keeps
// its SQL (the chain's head, the insert, the query).
package auditlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Details is an audit row's details as JSON ("" for none).
func Details(d map[string]any) string {
	if len(d) == 0 {
		return ""
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// WithSubject sets the "subject" field of e's details to ref, the keyed
// reference of e.Subject (the stores' appendAudit makes it).
func WithSubject(e *governance.AuditEntry, ref string) {
	d := map[string]json.RawMessage{}
	if e.Details != "" {
		_ = json.Unmarshal([]byte(e.Details), &d)
	}
	d["subject"], _ = json.Marshal(ref)
	b, _ := json.Marshal(d)
	e.Details, e.Subject = string(b), ""
}

// Seal chains e to prev (the hash of the last row) at now and returns the
// SHA-256 of its reason ("" for none), which the row stores in place of
// the reason; the reason text goes to audit_reasons, which a forget may
// blank without breaking the chain. With a key the row is sealed with
// governance.AuditMAC, without one with governance.AuditHash.
func Seal(e *governance.AuditEntry, prev string, now time.Time, key []byte) (reasonHash string) {
	e.At = now
	e.PrevHash = prev
	reasonHash = ReasonHash(e.Reason)
	e.Hash = hashRow(key, e, ChainReason("", reasonHash))
	return reasonHash
}

// ReasonHash is the SHA-256 a row keeps of its reason ("" for none).
func ReasonHash(reason string) string {
	if reason == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(reason))
	return hex.EncodeToString(sum[:])
}

// hashRow is a row's hash: keyed (HMAC) when key is set.
func hashRow(key []byte, e *governance.AuditEntry, reason string) string {
	if key != nil {
		return governance.AuditMAC(key, e, reason)
	}
	return governance.AuditHash(e, reason)
}

// KeyTx is what keying a chain asks of a store, inside one transaction
// that holds the chain's head.
type KeyTx interface {
	// Epoch is the id of the key epoch row (0: the chain is not keyed).
	Epoch(ctx context.Context) (int64, error)
	// Row reads row id as a verification reads it.
	Row(ctx context.Context, id int64) (Scanned, error)
	// Rows is the number of rows.
	Rows(ctx context.Context) (int, error)
	// Append appends e sealed with key.
	Append(ctx context.Context, e *governance.AuditEntry, key []byte) error
	// SetEpoch records id as the key epoch row.
	SetEpoch(ctx context.Context, id int64) error
}

// SetKey keys the chain with key (a store's SetAuditKey, inside tx): a
// chain keyed already must be keyed with key (CheckEpoch); one that is
// not gets its epoch row, sealed with key, and keyedNow with the number
// of rows before it.
func SetKey(ctx context.Context, tx KeyTx, actor string, key []byte) (keyedNow bool, before int, err error) {
	if len(key) < 16 {
		return false, 0, governance.Errorf(governance.EINVALID, "An audit key has at least 16 bytes.")
	}
	epoch, err := tx.Epoch(ctx)
	if err != nil {
		return false, 0, err
	}
	if epoch != 0 {
		sc, err := tx.Row(ctx, epoch)
		if err != nil {
			return false, 0, err
		}
		return false, 0, CheckEpoch(key, sc.Entry, sc.ChainReason)
	}
	if before, err = tx.Rows(ctx); err != nil {
		return false, 0, err
	}
	e := Epoch(actor, before)
	if err := tx.Append(ctx, e, key); err != nil {
		return false, 0, err
	}
	return true, before, tx.SetEpoch(ctx, e.ID)
}

// For is the key a row appended now is sealed with: k's, or none when the
// chain is not keyed (epoch reads whether it is when k has no key); a
// keyed chain refuses a store without its key.
func (k *Key) For(ctx context.Context, epoch func(ctx context.Context) (int64, error)) ([]byte, error) {
	c := Key{}
	if k != nil {
		c = *k
	}
	if c.Key == nil {
		id, err := epoch(ctx)
		if err != nil {
			return nil, err
		}
		c.Keyed = id != 0
	}
	return c.ForAppend()
}

// Key is a store's audit key and whether its chain is keyed (has a key
// epoch row, governance.AuditKeyAction). A keyed chain takes rows only
// from a store that has the key: a row sealed without it would break the
// chain for good.
type Key struct {
	Key   []byte
	Keyed bool
}

// ForAppend is the key a new row is sealed with, or an error when the
// chain is keyed and the store was opened without its key.
func (k Key) ForAppend() ([]byte, error) {
	if k.Keyed && k.Key == nil {
		return nil, governance.Errorf(governance.EINTERNAL, "The audit chain is keyed; open the store with its audit key.")
	}
	return k.Key, nil
}

// Epoch is the row that keys a chain from here on (the first row sealed
// with the key); rows is the number of rows before it, sealed without.
func Epoch(actor string, rows int) *governance.AuditEntry {
	details, _ := json.Marshal(map[string]any{"rows_before": rows,
		"why": "from this row on, every row is sealed with the audit key (HMAC-SHA256); the rows before are checked with SHA-256"})
	return &governance.AuditEntry{Actor: actor, Action: governance.AuditKeyAction, ObjectType: "audit", ObjectID: "key", Details: string(details)}
}

// CheckEpoch reports whether the key epoch row e (read back with the
// reason as its hash covers it) was sealed with key: a store opened with
// another key must not append to the chain.
func CheckEpoch(key []byte, e *governance.AuditEntry, reason string) error {
	if governance.AuditMAC(key, e, reason) != e.Hash {
		return governance.Errorf(governance.EINVALID, "The audit key does not match the key this database's audit chain is sealed with "+
			"(its epoch row %d); give every instance the same audit key.", e.ID)
	}
	return nil
}

// ChainReason is what the hash chain covers of a row's reason: the reason
// column (SQLite rows from before its migration 0009 hold the text there;
// PostgreSQL has no such rows) and the SHA-256 of the reason text kept in
// audit_reasons, so a chain verifies the same on either store.
func ChainReason(column, reasonHash string) string {
	if reasonHash == "" {
		return column
	}
	return column + "\x00sha256:" + reasonHash
}

// Dialect is how a store writes the conditions a filter needs beyond
// plain comparisons.
type Dialect struct {
	// Time is the placeholder of a time compared with a.at.
	Time string
	// NotScratch selects the projects that are not eval scratch projects.
	NotScratch string
	// InIDs is the condition "col is one of ids" and its argument.
	InIDs func(col string, ids []int64) (string, any)
}

// Cond is one condition with its arguments (one per ?).
type Cond struct {
	SQL  string
	Args []any
}

// Where is the conditions (on audit a) that select the rows of f.
func Where(f governance.AuditFilter, d Dialect) []Cond {
	var out []Cond
	add := func(sql string, args ...any) { out = append(out, Cond{sql, args}) }
	for _, c := range []struct{ col, v string }{
		{"a.actor = ?", f.Actor}, {"a.action = ?", f.Action}, {"a.object_type = ?", f.ObjectType}, {"a.object_id = ?", f.ObjectID},
		{"a.at >= " + d.Time, f.Since}, {"a.at <= " + d.Time, f.Until},
	} {
		if c.v != "" {
			add(c.col, c.v)
		}
	}
	if f.HideEval {
		add(`a.actor <> 'eval-runner'`)
		add(`(a.project_id IS NULL OR a.project_id IN (SELECT id FROM projects WHERE ` + d.NotScratch + `))`)
	}
	if f.ProjectIDs != nil {
		cond, arg := d.InIDs("a.project_id", f.ProjectIDs)
		add(cond, arg)
	}
	return out
}

// Rows is a result set of either store's driver.
type Rows interface {
	Next() bool
	Err() error
}

// Scanned is one row as a verification reads it: the row, what its hash
// covers of the reason, and the reason's stored hash and text kept apart.
type Scanned struct {
	Entry                  *governance.AuditEntry
	ChainReason            string
	ReasonHash, ReasonText string
}

// Verify walks the rows (by id) and checks every row's hash and link with
// key, and that a reason text kept apart still matches the hash its row
// covers (a forget's blank, governance.RedactedText, excepted); expect is
// a head kept from before (nil for none). scan reads the current row.
func Verify(rows Rows, key []byte, expect *governance.AuditHead, scan func() (Scanned, error)) (*governance.AuditVerification, error) {
	v := governance.NewAuditVerification(key, expect)
	for rows.Next() {
		r, err := scan()
		if err != nil {
			return nil, err
		}
		v.Check(r.Entry, r.ChainReason)
		if r.ReasonHash != "" && r.ReasonText != governance.RedactedText && ReasonHash(r.ReasonText) != r.ReasonHash {
			v.BrokenReason(r.Entry.ID)
		}
	}
	v.Done()
	return v, rows.Err()
}

// Collect reads every row with scan.
func Collect(rows Rows, scan func() (*governance.AuditEntry, error)) ([]*governance.AuditEntry, error) {
	var out []*governance.AuditEntry
	for rows.Next() {
		e, err := scan()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
