package auditlog

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// A re-chain (docs/forget.md, "What a forget removes"). Audit rows written before
// keyed subject references (SQLite's migration 0026, PostgreSQL's 0014;
// a project.export row's until AuditEntry.Subject) name a subject in
// plain text: a subject row's object id, a membership.set or
// project.export row's "subject" detail. A subject forget leaves no copy
// of the identifier, so it rewrites those rows to the subject's keyed
// reference; that changes their hashes and so every later link of the
// chain. Rechain recomputes the hash and link of every row from the first
// one rewritten, and Epoch is the audit.rechain row that records it: which
// rows were re-hashed and why, and the hash of the last row left
// unchanged. VerifyAudit then verifies the whole chain; a hash taken
// before the epoch still matches for every row before "from" (compare it
// with "kept_hash"), and one of a later row is superseded by the record.
// The old hashes are not kept: computed over the plain id, they would let
// anyone confirm a guess of it. Each store answers RechainTx with its
// SQL inside its transaction and lets only an open re-chain change a row
// (its migration).

// RechainTx is what a re-chain asks of a store, inside one transaction
// that holds the chain's head (no row is appended meanwhile).
type RechainTx interface {
	// FirstNaming is the id of the first audit row of the project that
	// names the subject in plain text (0 for none); Rechain.Names decides
	// the same for a row.
	FirstNaming(ctx context.Context, projectID int64, subjectID string) (int64, error)
	// HashBefore is the hash of the last row before id ("" for none).
	HashBefore(ctx context.Context, id int64) (string, error)
	// Walk runs rc.Walk over the rows from id to the head, by id.
	Walk(ctx context.Context, id int64, rc *Rechain) error
	// Rewrite opens a re-chain, writes the links' object ids, details
	// and links, and closes it.
	Rewrite(ctx context.Context, links []Link) error
	// Append appends a row to the chain.
	Append(ctx context.Context, e *governance.AuditEntry) error
	// Key is the store's audit key, and whether the chain's key epoch row
	// comes before row id.
	Key(ctx context.Context, id int64) ([]byte, bool, error)
}

// RechainSubject rewrites the rows of the project that name subjectID in
// plain text to ref, re-chains the audit from the first and appends the
// epoch row for actor; it reports how many rows it rewrote (0: none, and
// nothing written).
func RechainSubject(ctx context.Context, tx RechainTx, actor string, projectID int64, subjectID, ref string) (int, error) {
	first, err := tx.FirstNaming(ctx, projectID, subjectID)
	if err != nil || first == 0 {
		return 0, err
	}
	rc := &Rechain{ProjectID: projectID, SubjectID: subjectID, Ref: ref}
	if rc.Kept, err = tx.HashBefore(ctx, first); err != nil {
		return 0, err
	}
	if rc.Key, rc.KeyedBefore, err = tx.Key(ctx, first); err != nil {
		return 0, err
	}
	if err := tx.Walk(ctx, first, rc); err != nil || rc.Rewritten == 0 {
		return 0, err
	}
	if err := tx.Rewrite(ctx, rc.Links); err != nil {
		return 0, err
	}
	if err := tx.Append(ctx, rc.Epoch(actor)); err != nil {
		return 0, err
	}
	return rc.Rewritten, nil
}

// Rechain is the re-chain of the audit rows of a project that name a
// subject in plain text.
type Rechain struct {
	ProjectID int64
	SubjectID string
	// Ref is the subject's keyed reference (forgetplan.SubjectRef).
	Ref string
	// Kept is the hash of the row before the first rewritten one ("" when
	// there is none): the chain up to it stays as it was.
	Kept string
	// Links are the re-chained rows, in id order, from the first
	// rewritten one to the chain's head; Rewritten counts those that
	// named the subject.
	Links     []Link
	Rewritten int
	// Key is the store's audit key; KeyedBefore says the chain's key epoch
	// comes before the first row the re-chain walks.
	Key         []byte
	KeyedBefore bool
}

// Link is one re-chained row: its object id and details (changed when it
// named the subject) and its new link and hash.
type Link struct {
	ID                int64
	ObjectID, Details string
	PrevHash, Hash    string
}

// Names reports whether e names the re-chain's subject in plain text.
func (rc *Rechain) Names(e *governance.AuditEntry) bool {
	if e.ProjectID != rc.ProjectID {
		return false
	}
	if e.ObjectType == "subject" {
		return e.ObjectID == rc.SubjectID
	}
	if !(e.ObjectType == "account" && e.Action == "membership.set" || e.ObjectType == "project" && e.Action == "project.export") {
		return false
	}
	_, subject, ok := subjectDetail(e.Details)
	return ok && subject == rc.SubjectID
}

// subjectDetail parses a row's details and returns them with their
// "subject" string.
func subjectDetail(details string) (map[string]json.RawMessage, string, bool) {
	var d map[string]json.RawMessage
	if json.Unmarshal([]byte(details), &d) != nil {
		return nil, "", false
	}
	var subject string
	if raw, ok := d["subject"]; !ok || json.Unmarshal(raw, &subject) != nil {
		return nil, "", false
	}
	return d, subject, true
}

// rewrite replaces the plain subject id in e with the reference.
func (rc *Rechain) rewrite(e *governance.AuditEntry) {
	if e.ObjectType == "subject" {
		e.ObjectID = rc.Ref
		return
	}
	d, _, _ := subjectDetail(e.Details)
	d["subject"], _ = json.Marshal(rc.Ref)
	b, _ := json.Marshal(d)
	e.Details = string(b)
}

// Walk reads rows (by id, from the first row that names the subject to
// the head; Kept set to the hash of the row before it) with scan, as
// Verify does, rewrites the rows that name the subject and chains every
// row to the one before it anew: with SHA-256 up to the key epoch, with
// the store's key from it on (rc.Key; Keyed when the epoch is before the
// first row walked).
func (rc *Rechain) Walk(rows Rows, scan func() (*governance.AuditEntry, string, error)) error {
	prev, keyed := rc.Kept, rc.KeyedBefore
	for rows.Next() {
		e, reason, err := scan()
		if err != nil {
			return err
		}
		if rc.Names(e) {
			rc.rewrite(e)
			rc.Rewritten++
		}
		keyed = keyed || e.Action == governance.AuditKeyAction
		if keyed && rc.Key == nil {
			return governance.Errorf(governance.EINTERNAL, "The audit chain is keyed; open the store with its audit key.")
		}
		e.PrevHash = prev
		if keyed {
			e.Hash = governance.AuditMAC(rc.Key, e, reason)
		} else {
			e.Hash = governance.AuditHash(e, reason)
		}
		rc.Links = append(rc.Links, Link{ID: e.ID, ObjectID: e.ObjectID, Details: e.Details, PrevHash: e.PrevHash, Hash: e.Hash})
		prev = e.Hash
	}
	return rows.Err()
}

// Epoch is the audit.rechain row that records the re-chain, for actor.
func (rc *Rechain) Epoch(actor string) *governance.AuditEntry {
	first, last := rc.Links[0].ID, rc.Links[len(rc.Links)-1].ID
	details, _ := json.Marshal(map[string]any{
		"from": first, "to": last, "rows_rewritten": rc.Rewritten, "rows_rehashed": len(rc.Links), "kept_hash": rc.Kept,
		"why": "a subject forget replaced the subject's identifier in rows written before keyed references",
	})
	return &governance.AuditEntry{Actor: actor, Action: "audit.rechain", ObjectType: "audit",
		ObjectID: strconv.FormatInt(first, 10), ProjectID: rc.ProjectID, Details: string(details)}
}

// LegacyTx is what the re-chain of a legacy subject (RechainLegacy) asks
// of a store besides RechainTx, inside the same transaction.
type LegacyTx interface {
	RechainTx
	// ProjectExists reports whether the project is still there.
	ProjectExists(ctx context.Context, projectID int64) (bool, error)
	// SubjectKey is the subject's stored key, made when there is none.
	SubjectKey(ctx context.Context, projectID int64, subjectID string) ([]byte, error)
	// SubjectLeft reports whether anything of the subject is left for a
	// forget to tombstone (events, sessions, rules, candidates).
	SubjectLeft(ctx context.Context, projectID int64, subjectID string) (bool, error)
	// DeleteSubjectKey deletes the subject's stored key.
	DeleteSubjectKey(ctx context.Context, projectID int64, subjectID string) error
}

// RechainLegacy re-chains the rows naming subjectID in plain text
// (RechainSubject) to its keyed reference: with the subject's key, or a
// key never stored when the project was deleted since. The key is then
// deleted when nothing of the subject is left for a forget to tombstone,
// so no row can be tied to the plain id again. It reports how many rows
// it rewrote (0: none, and nothing written).
func RechainLegacy(ctx context.Context, tx LegacyTx, actor string, projectID int64, subjectID string) (int, error) {
	project, err := tx.ProjectExists(ctx, projectID)
	if err != nil {
		return 0, err
	}
	var key []byte
	if project {
		key, err = tx.SubjectKey(ctx, projectID, subjectID)
	} else {
		key, err = forgetplan.NewKey()
	}
	if err != nil {
		return 0, err
	}
	n, err := RechainSubject(ctx, tx, actor, projectID, subjectID, forgetplan.SubjectRef(key, subjectID))
	if err != nil || n == 0 {
		return 0, err
	}
	left, err := tx.SubjectLeft(ctx, projectID, subjectID)
	if err != nil {
		return 0, err
	}
	if !left {
		if err := tx.DeleteSubjectKey(ctx, projectID, subjectID); err != nil {
			return 0, err
		}
	}
	return n, nil
}
