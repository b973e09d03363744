package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
)

// Audit rows written before migration 0014 name a subject in plain text;
// a subject forget rewrites them to its keyed reference and re-chains the
// audit from the first (the algorithm and the epoch record:
// store/internal/auditlog, rechain.go; SQLite does the same). Migration
// 0020 lets only an open re-chain change a row's object id, details and
// links. PostgreSQL keeps the old row versions in the files, so the audit
// table is rewritten (VACUUM FULL) after the re-chain commits.

// rechainLegacySubject runs auditlog.RechainSubject in its own transaction,
// before the forget of subjectID (ForgetSubject) or at startup for
// subjects forgotten before migration 0014 (RepairInterrupted), then
// rewrites the audit's files. The subject's key, which made the
// reference, is deleted when nothing of the subject is left for a forget
// to tombstone (a forget deletes it otherwise); then no row can be tied
// to the plain id again. A project deleted since keeps no key: the
// reference is made with a key that is never stored.
func (s *Store) rechainLegacySubject(ctx context.Context, actor string, projectID int64, subjectID string) error {
	// Almost always there is none: one read.
	var legacy bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (`+legacySubjectRows+`)`, subjectID, projectID).Scan(&legacy); err != nil {
		return wrapRechain(err)
	}
	if !legacy {
		return nil
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	// The key before the audit's lock, in the order of a forget and of
	// SetMembershipBy (subject_keys, then the chain's head): RechainLegacy
	// reads it first.
	if n, err := auditlog.RechainLegacy(ctx, rechainTx{tx}, actor, projectID, subjectID); err != nil || n == 0 {
		return err
	}
	sc, err := recordScrub(ctx, tx, []string{"audit", "subject_keys"}, []int64{projectID})
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return wrapRechain(err)
	}
	return s.runScrub(ctx, sc)
}

// rechainForgottenSubjects re-chains the audit for every subject forgotten
// before migration 0014 (its subject.forget row names it in plain text);
// it reports how many subjects it did.
func (s *Store) rechainForgottenSubjects(ctx context.Context) (int64, error) {
	type subject struct {
		project int64
		id      string
	}
	var todo []subject
	if err := queryAll(ctx, s.pool, `SELECT DISTINCT project_id, object_id FROM audit
		WHERE object_type = 'subject' AND action = 'subject.forget' AND project_id IS NOT NULL
			AND left(object_id, 8) <> 'subject:' ORDER BY 1, 2`, nil,
		func(r pgx.Row) error {
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

// legacySubjectRows selects the ids of the audit rows of project $2 that
// name subject $1 in plain text; auditlog.Rechain.Names decides the same
// for a row. A membership.set or project.export row's details are always
// JSON.
const legacySubjectRows = `
	SELECT id FROM audit WHERE object_type = 'subject' AND object_id = $1 AND project_id = $2
	UNION ALL
	SELECT id FROM audit WHERE (object_type = 'account' AND action = 'membership.set' OR object_type = 'project' AND action = 'project.export')
		AND project_id = $2 AND CASE WHEN left(details, 1) = '{' THEN details::jsonb ->> 'subject' END = $1`

// rechainTx answers auditlog.RechainTx inside tx.
type rechainTx struct{ tx *Tx }

var _ auditlog.LegacyTx = rechainTx{}

func (r rechainTx) ProjectExists(ctx context.Context, projectID int64) (bool, error) {
	var project bool
	err := r.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM projects WHERE id = $1)`, projectID).Scan(&project)
	return project, wrapRechain(err)
}

func (r rechainTx) SubjectKey(ctx context.Context, projectID int64, subjectID string) ([]byte, error) {
	return subjectKey(ctx, r.tx, projectID, subjectID)
}

func (r rechainTx) SubjectLeft(ctx context.Context, projectID int64, subjectID string) (bool, error) {
	var left bool
	err := r.tx.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM events WHERE project_id = $1 AND subject_id = $2)
		OR EXISTS (SELECT 1 FROM sessions WHERE project_id = $1 AND subject_id = $2)
		OR EXISTS (SELECT 1 FROM rules WHERE project_id = $1 AND subject_id = $2)
		OR EXISTS (SELECT 1 FROM candidates WHERE project_id = $1 AND subject_id = $2)`, projectID, subjectID).Scan(&left)
	return left, wrapRechain(err)
}

func (r rechainTx) DeleteSubjectKey(ctx context.Context, projectID int64, subjectID string) error {
	_, err := r.tx.Exec(ctx, `DELETE FROM subject_keys WHERE project_id = $1 AND subject_id = $2`, projectID, subjectID)
	return wrapRechain(err)
}

// FirstNaming takes the chain's head first, so no row is appended, on any
// instance, until the re-chain commits.
func (r rechainTx) FirstNaming(ctx context.Context, projectID int64, subjectID string) (int64, error) {
	if err := r.tx.lock(ctx, lockAudit); err != nil {
		return 0, err
	}
	var first *int64
	if err := r.tx.QueryRow(ctx, `SELECT min(id) FROM (`+legacySubjectRows+`) l`, subjectID, projectID).Scan(&first); err != nil || first == nil {
		return 0, wrapRechain(err)
	}
	return *first, nil
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
	err := r.tx.QueryRow(ctx, `SELECT COALESCE((SELECT hash FROM audit WHERE id < $1 ORDER BY id DESC LIMIT 1), '')`, id).Scan(&hash)
	return hash, wrapRechain(err)
}

func (r rechainTx) Walk(ctx context.Context, id int64, rc *auditlog.Rechain) error {
	rows, err := r.tx.Query(ctx, `SELECT `+auditColumns+` FROM `+auditFrom+` WHERE a.id >= $1 ORDER BY a.id`, id)
	if err != nil {
		return wrapRechain(err)
	}
	defer rows.Close()
	return wrapRechain(rc.Walk(rows, func() (*governance.AuditEntry, string, error) { return scanAudit(rows) }))
}

// Rewrite writes the links in one statement while a re-chain is open
// (migration 0020: rows change only then).
func (r rechainTx) Rewrite(ctx context.Context, links []auditlog.Link) error {
	var (
		ids                            []int64
		objectIDs, details, prev, hash []string
	)
	for _, l := range links {
		ids, objectIDs, details = append(ids, l.ID), append(objectIDs, l.ObjectID), append(details, l.Details)
		prev, hash = append(prev, l.PrevHash), append(hash, l.Hash)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO audit_rechain_open (id) VALUES (1)`, nil},
		{`UPDATE audit a SET object_id = u.object_id, details = u.details, prev_hash = u.prev_hash, hash = u.hash
			FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(id, object_id, details, prev_hash, hash)
			WHERE a.id = u.id`, []any{ids, objectIDs, details, prev, hash}},
		{`DELETE FROM audit_rechain_open`, nil},
	} {
		if _, err := r.tx.Exec(ctx, q.sql, q.args...); err != nil {
			return wrapRechain(err)
		}
	}
	return nil
}

func (r rechainTx) Append(ctx context.Context, e *governance.AuditEntry) error {
	return appendAudit(ctx, r.tx, e)
}

func wrapRechain(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("postgres: re-chain audit: %w", err)
}
