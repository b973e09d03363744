package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// removeSubjectMemberships ends, in a subject forget's transaction, the
// memberships that bind accounts to the forgotten subject in the project.
// A membership says "this account is subject S here": it names the plain
// subject id (access checks match it against the events' subject), so
// keeping it would keep the identifier the forget replaces everywhere
// else, and would show the account any later line sent under the old id
// as its own. The accounts stay (their usernames are account data, removed
// with the account); an administrator gives a new membership if the person
// is to stay a member. One membership.remove row names the subject by
// its reference and counts the accounts (a username may be the subject
// id itself, as in the demo).
func removeSubjectMemberships(ctx context.Context, tx *Tx, actor string, projectID int64, subjectID, ref string) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE project_id = ? AND role = 'member' AND subject_id = ?`, projectID, subjectID)
	if err != nil {
		return fmt.Errorf("store: remove the subject's memberships: %w", err)
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return nil
	}
	return appendAudit(ctx, tx, &governance.AuditEntry{Actor: actor, Action: "membership.remove", ObjectType: "subject",
		ObjectID: ref, ProjectID: projectID, Details: jsonDetails(map[string]any{"accounts": n, "by": "subject.forget"})})
}
