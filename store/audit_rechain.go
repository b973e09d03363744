package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/forgetplan"
)

// Audit rows written before migration 0026 name a subject in plain text:
// a subject.forget row's object id, a membership.set row's "subject"
// detail. Rewriting them changes their hashes and so every later link of
// the chain. A subject forget does it anyway, in its transaction: a forget
// leaves no copy of the identifier. It rewrites those rows to the
// subject's keyed reference, recomputes the hash and link of every row
// from the first one rewritten, and appends an audit.rechain row, the
// chain-epoch record, which says which rows were re-hashed and why and
// keeps the hash of the last row it left unchanged. VerifyAudit then
// verifies the whole chain; a hash taken before the epoch still matches
// for every row before "from" (compare it with "kept_hash"), and one of a
// later row is superseded by this record. The old hashes are not kept:
// computed over the plain id, they would let anyone confirm a guess of it.

// rechainLegacySubject runs rechainSubjectAudit in its own transaction,
// before the forget of subjectID (ForgetSubject) or at startup for
// subjects forgotten before migration 0026 (RepairInterrupted). The
// subject's key, which made the reference, is deleted when nothing of the
// subject is left for a forget to tombstone (a forget deletes it
// otherwise); then no row can be tied to the plain id again.
func (s *Store) rechainLegacySubject(ctx context.Context, actor string, projectID int64, subjectID string) error {
	// Almost always there is none: a read, not a turn of the writer.
	var legacy bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (`+legacySubjectRows+`)`, subjectID, projectID, projectID, subjectID).Scan(&legacy); err != nil {
		return wrapRechain(err)
	}
	if !legacy {
		return nil
	}
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	key, err := subjectKey(ctx, tx, projectID, subjectID)
	if err != nil {
		return err
	}
	ref := forgetplan.SubjectRef(key, subjectID)
	n, err := rechainSubjectAudit(ctx, tx, actor, projectID, subjectID, ref)
	if err != nil || n == 0 {
		return err
	}
	var left bool
	if err := tx.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM events WHERE project_id = ? AND subject_id = ?)
		OR EXISTS (SELECT 1 FROM sessions WHERE project_id = ? AND subject_id = ?)
		OR EXISTS (SELECT 1 FROM rules WHERE project_id = ? AND subject_id = ?)
		OR EXISTS (SELECT 1 FROM candidates WHERE project_id = ? AND subject_id = ?)`,
		projectID, subjectID, projectID, subjectID, projectID, subjectID, projectID, subjectID).Scan(&left); err != nil {
		return wrapRechain(err)
	}
	if !left {
		if _, err := tx.ExecContext(ctx, `DELETE FROM subject_keys WHERE project_id = ? AND subject_id = ?`, projectID, subjectID); err != nil {
			return wrapRechain(err)
		}
	}
	return tx.Commit()
}

// rechainForgottenSubjects re-chains the audit for every subject forgotten
// before migration 0026 (its subject.forget row names it in plain text);
// it reports how many subjects it did.
func (s *Store) rechainForgottenSubjects(ctx context.Context) (int64, error) {
	type subject struct {
		project int64
		id      string
	}
	var todo []subject
	if err := queryAll(ctx, s.db, `SELECT DISTINCT COALESCE(project_id, 0), object_id FROM audit
		WHERE object_type = 'subject' AND action = 'subject.forget' AND substr(object_id, 1, 8) <> 'subject:' ORDER BY 1, 2`, nil,
		func(r scanner) error {
			var x subject
			err := r.Scan(&x.project, &x.id)
			todo = append(todo, x)
			return err
		}); err != nil {
		return 0, wrapRechain(err)
	}
	for _, x := range todo {
		if err := s.rechainLegacySubject(ctx, "system", x.project, x.id); err != nil {
			return 0, err
		}
	}
	return int64(len(todo)), nil
}

// legacySubjectRows selects the ids of the audit rows that name a subject
// in plain text (arguments: subject, project, project, subject).
const legacySubjectRows = `
	SELECT id FROM audit WHERE object_type = 'subject' AND object_id = ? AND project_id = ?
	UNION
	SELECT id FROM audit WHERE object_type = 'account' AND action = 'membership.set' AND project_id = ?
		AND json_valid(details) AND json_extract(details, '$.subject') = ?`

// rechainSubjectAudit rewrites the rows naming subjectID in plain text to
// ref and re-chains from the first; it reports how many it rewrote.
func rechainSubjectAudit(ctx context.Context, tx *Tx, actor string, projectID int64, subjectID, ref string) (int, error) {
	var ids []int64
	err := queryAll(ctx, tx, legacySubjectRows+` ORDER BY id`, []any{subjectID, projectID, projectID, subjectID}, func(r scanner) error {
		var id int64
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil || len(ids) == 0 {
		return 0, wrapRechain(err)
	}
	// Migration 0034: rows change only while a re-chain is open.
	if _, err := tx.ExecContext(ctx, `INSERT INTO audit_rechain_open (id) VALUES (1)`); err != nil {
		return 0, wrapRechain(err)
	}
	list := listArg(ids)
	for _, q := range []string{
		`UPDATE audit SET object_id = ? WHERE id IN (SELECT value FROM json_each(?)) AND object_type = 'subject'`,
		`UPDATE audit SET details = json_set(details, '$.subject', ?) WHERE id IN (SELECT value FROM json_each(?)) AND action = 'membership.set'`,
	} {
		if _, err := tx.ExecContext(ctx, q, ref, list); err != nil {
			return 0, wrapRechain(err)
		}
	}
	var kept string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT hash FROM audit WHERE id < ? ORDER BY id DESC LIMIT 1), '')`, ids[0]).Scan(&kept); err != nil {
		return 0, wrapRechain(err)
	}
	type link struct {
		id         int64
		prev, hash string
	}
	var links []link
	prev := kept
	err = queryAll(ctx, tx, `SELECT `+auditColumns+` FROM `+auditFrom+` WHERE a.id >= ? ORDER BY a.id`, []any{ids[0]}, func(r scanner) error {
		e, reason, err := scanAudit(r)
		if err != nil {
			return err
		}
		e.PrevHash = prev
		e.Hash = governance.AuditHash(e, reason)
		links = append(links, link{e.ID, e.PrevHash, e.Hash})
		prev = e.Hash
		return nil
	})
	if err != nil {
		return 0, wrapRechain(err)
	}
	for _, l := range links {
		if _, err := tx.ExecContext(ctx, `UPDATE audit SET prev_hash = ?, hash = ? WHERE id = ?`, l.prev, l.hash, l.id); err != nil {
			return 0, wrapRechain(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM audit_rechain_open`); err != nil {
		return 0, wrapRechain(err)
	}
	details, _ := json.Marshal(map[string]any{
		"from": ids[0], "to": links[len(links)-1].id, "rows_rewritten": len(ids), "rows_rehashed": len(links), "kept_hash": kept,
		"why": "a subject forget replaced the subject's identifier in rows written before keyed references",
	})
	if err := appendAudit(ctx, tx, &governance.AuditEntry{Actor: actor, Action: "audit.rechain", ObjectType: "audit",
		ObjectID: strconv.FormatInt(ids[0], 10), ProjectID: projectID, Details: string(details)}); err != nil {
		return 0, err
	}
	return len(ids), nil
}

func wrapRechain(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: re-chain audit: %w", err)
}
