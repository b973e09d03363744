package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance/forgetplan"
)

// removeSubjectMemberships ends, in a subject forget's transaction, the
// memberships that bind accounts to the forgotten subject in the project,
// with forgetplan.MembershipAudit's row (why: forgetplan/membership.go).
func removeSubjectMemberships(ctx context.Context, tx *Tx, actor string, projectID int64, subjectID, ref string) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE project_id = ? AND role = 'member' AND subject_id = ?`, projectID, subjectID)
	if err != nil {
		return fmt.Errorf("store: remove the subject's memberships: %w", err)
	}
	n, _ := res.RowsAffected()
	if e := forgetplan.MembershipAudit(actor, projectID, ref, n); e != nil {
		return appendAudit(ctx, tx, e)
	}
	return nil
}
