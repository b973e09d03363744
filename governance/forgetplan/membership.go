package forgetplan

import (
	"encoding/json"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// A subject forget ends, in its transaction, the memberships that bind
// accounts to the forgotten subject in the project (each store's
// removeSubjectMemberships: the member memberships of the project naming
// the subject). A membership says "this account is subject S here": it
// names the plain subject id (access checks match it against the events'
// subject), so keeping it would keep the identifier the forget replaces
// everywhere else, and would show the account any later line sent under
// the old id as its own. The accounts stay (their usernames are account
// data, removed with the account); an administrator gives a new
// membership if the person is to stay a member.

// MembershipAudit is the audit row of that removal: one row, naming the
// subject by its reference and counting the accounts (a username may be
// the subject id itself, as in the demo, so none is named); nil when no
// membership went.
func MembershipAudit(actor string, projectID int64, ref string, accounts int64) *governance.AuditEntry {
	if accounts == 0 {
		return nil
	}
	details, _ := json.Marshal(map[string]any{"accounts": accounts, "by": "subject.forget"})
	return &governance.AuditEntry{Actor: actor, Action: "membership.remove", ObjectType: "subject",
		ObjectID: ref, ProjectID: projectID, Details: string(details)}
}

// SelfActor is the actor a subject forget's rows name when the one who
// asked is named like the subject (a member whose username is the
// subject id forgetting everything about themselves): naming them would
// tie the subject's keyed reference to its id in those very rows.
const SelfActor = "self"

// ForgetActor is the actor of a forget of subjectID asked by actor:
// SelfActor when actor's name, with or without an "account:" or
// "token:"-style prefix, is the subject id; otherwise actor.
func ForgetActor(actor, subjectID string) string {
	name := actor
	if _, after, ok := strings.Cut(actor, ":"); ok {
		name = after
	}
	if subjectID != "" && (actor == subjectID || name == subjectID) {
		return SelfActor
	}
	return actor
}
