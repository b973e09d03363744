package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
)

// Audit rows written before migration 0026 name a subject in plain text;
// a subject forget rewrites them to its keyed reference and re-chains the
// audit from the first (the algorithm and the epoch record:
// store/internal/auditlog, rechain.go). Migration 0034 lets only an open
// re-chain change a row's object id, details and links.

// rechainLegacySubject runs auditlog.RechainSubject in its own transaction,
// before the forget of subjectID (ForgetSubject) or at startup for
// subjects forgotten before migration 0026 (RepairInterrupted). The
// subject's key, which made the reference, is deleted when nothing of the
// subject is left for a forget to tombstone (a forget deletes it
// otherwise); then no row can be tied to the plain id again. A project
// deleted since keeps no key: the reference is made with a key that is
// never stored.
func (s *Store) rechainLegacySubject(ctx context.Context, op, actor string, projectID int64, subjectID string) error {
	// Almost always there is none: a read, not a turn of the writer.
	var legacy bool
	if err := s.read.QueryRowContext(ctx, `SELECT EXISTS (`+legacySubjectRows+`)`, subjectID, projectID, projectID, subjectID).Scan(&legacy); err != nil {
		return wrapRechain(err)
	}
	if !legacy {
		return nil
	}
	tx, err := s.begin(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if n, err := auditlog.RechainLegacy(ctx, rechainTx{tx}, actor, projectID, subjectID); err != nil || n == 0 {
		return err
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
		if err := s.rechainLegacySubject(ctx, "RepairInterrupted", "system", x.project, x.id); err != nil {
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
	SELECT id FROM audit WHERE (object_type = 'account' AND action = 'membership.set' OR object_type = 'project' AND action = 'project.export')
		AND project_id = ? AND json_valid(details) AND json_extract(details, '$.subject') = ?`

// rechainTx answers auditlog.RechainTx inside tx (SQLite's single writer
// holds the chain's head).
type rechainTx struct{ tx *Tx }

var _ auditlog.LegacyTx = rechainTx{}

func (r rechainTx) ProjectExists(ctx context.Context, projectID int64) (bool, error) {
	var project bool
	err := r.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM projects WHERE id = ?)`, projectID).Scan(&project)
	return project, wrapRechain(err)
}

func (r rechainTx) SubjectKey(ctx context.Context, projectID int64, subjectID string) ([]byte, error) {
	return subjectKey(ctx, r.tx, projectID, subjectID)
}

func (r rechainTx) SubjectLeft(ctx context.Context, projectID int64, subjectID string) (bool, error) {
	var left bool
	err := r.tx.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM events WHERE project_id = ? AND subject_id = ?)
		OR EXISTS (SELECT 1 FROM sessions WHERE project_id = ? AND subject_id = ?)
		OR EXISTS (SELECT 1 FROM rules WHERE project_id = ? AND subject_id = ?)
		OR EXISTS (SELECT 1 FROM candidates WHERE project_id = ? AND subject_id = ?)`,
		projectID, subjectID, projectID, subjectID, projectID, subjectID, projectID, subjectID).Scan(&left)
	return left, wrapRechain(err)
}

func (r rechainTx) DeleteSubjectKey(ctx context.Context, projectID int64, subjectID string) error {
	_, err := r.tx.ExecContext(ctx, `DELETE FROM subject_keys WHERE project_id = ? AND subject_id = ?`, projectID, subjectID)
	return wrapRechain(err)
}

func (r rechainTx) FirstNaming(ctx context.Context, projectID int64, subjectID string) (int64, error) {
	var first sql.NullInt64
	err := r.tx.QueryRowContext(ctx, `SELECT min(id) FROM (`+legacySubjectRows+`)`, subjectID, projectID, projectID, subjectID).Scan(&first)
	return first.Int64, wrapRechain(err)
}

func (r rechainTx) Key(ctx context.Context, id int64) ([]byte, bool, error) {
	epoch, err := auditEpoch(ctx, r.tx)
	if err != nil {
		return nil, false, wrapRechain(err)
	}
	key, err := r.tx.store.auditKeyFor(ctx, r.tx)
	return key, epoch != 0 && epoch < id, err
}

func (r rechainTx) HashBefore(ctx context.Context, id int64) (string, error) {
	var hash string
	err := r.tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT hash FROM audit WHERE id < ? ORDER BY id DESC LIMIT 1), '')`, id).Scan(&hash)
	return hash, wrapRechain(err)
}

func (r rechainTx) Walk(ctx context.Context, id int64, rc *auditlog.Rechain) error {
	rows, err := r.tx.QueryContext(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` WHERE a.id >= ? ORDER BY a.id`, id)
	if err != nil {
		return wrapRechain(err)
	}
	defer rows.Close()
	return wrapRechain(rc.Walk(rows, func() (*governance.AuditEntry, string, error) { return scanAudit(rows) }))
}

// Rewrite writes the links while a re-chain is open (migration 0034: rows
// change only then).
func (r rechainTx) Rewrite(ctx context.Context, links []auditlog.Link) error {
	if _, err := r.tx.ExecContext(ctx, `INSERT INTO audit_rechain_open (id) VALUES (1)`); err != nil {
		return wrapRechain(err)
	}
	for _, l := range links {
		if _, err := r.tx.ExecContext(ctx, `UPDATE audit SET object_id = ?, details = ?, prev_hash = ?, hash = ? WHERE id = ?`,
			l.ObjectID, l.Details, l.PrevHash, l.Hash, l.ID); err != nil {
			return wrapRechain(err)
		}
	}
	_, err := r.tx.ExecContext(ctx, `DELETE FROM audit_rechain_open`)
	return wrapRechain(err)
}

func (r rechainTx) Append(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, r.tx, e)
}

func wrapRechain(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: re-chain audit: %w", err)
}
