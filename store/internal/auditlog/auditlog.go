// Package auditlog is the part of the hash-chained audit log both stores
// share: how a row is sealed into the chain, what the chain covers of its
// reason, how a filter reads, and the verification walk. Each store keeps
// its SQL (the chain's head, the insert, the query).
package auditlog

import (
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
// blank without breaking the chain.
func Seal(e *governance.AuditEntry, prev string, now time.Time) (reasonHash string) {
	e.At = now
	e.PrevHash = prev
	if e.Reason != "" {
		sum := sha256.Sum256([]byte(e.Reason))
		reasonHash = hex.EncodeToString(sum[:])
	}
	e.Hash = governance.AuditHash(e, ChainReason("", reasonHash))
	return reasonHash
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

// Verify walks the rows (by id) and checks every row's hash and link;
// scan reads the current row and what its hash covers of the reason.
func Verify(rows Rows, scan func() (*governance.AuditEntry, string, error)) (*governance.AuditVerification, error) {
	v := governance.NewAuditVerification()
	for rows.Next() {
		e, reason, err := scan()
		if err != nil {
			return nil, err
		}
		v.Check(e, reason)
	}
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
