// Package admin is the part of administration from the browser (accounts,
// memberships and projects changed by an administrator) both stores
// share: what a change must satisfy, which steps it takes and the audit
// row each step leaves, and the error that protects the last
// administrator. The SQL of each step and the transaction are the
// backend's (store/admin.go, store/postgres/admin.go).
package admin

import (
	"crypto/rand"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/auditlog"
)

// ErrLastAdmin refuses to disable or demote the last enabled
// administrator.
var ErrLastAdmin = governance.Errorf(governance.ECONFLICT,
	"The last administrator cannot be disabled or demoted: make another account an administrator first.")

// AccountCreated is the audit row of a new account.
func AccountCreated(actor string, a *governance.Account) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "account.create", ObjectType: "account",
		ObjectID: a.Username, Details: auditlog.Details(map[string]any{"admin": a.IsAdmin})}
}

// Account is an account as UpdateAccount reads it before changing it.
type Account struct {
	Username        string
	Admin, Disabled bool
}

// AccountStep is one change UpdateAccount makes: exactly one of its
// fields is set, and Audit is the row it leaves.
type AccountStep struct {
	// PasswordHash is a new password's hash (the account's sessions end).
	PasswordHash *string
	// Admin gives or takes the administrator role.
	Admin *bool
	// Disabled disables (the account's sessions end) or enables it.
	Disabled *bool
	Audit    *governance.AuditEntry
}

// AccountUpdate plans upd on account a: the steps it takes, in order, and
// whether it demotes or disables an enabled administrator (the backend
// must then refuse with ErrLastAdmin when no other enabled administrator
// exists, in the same transaction).
func AccountUpdate(actor string, a Account, upd governance.AccountUpdate) (steps []AccountStep, lastAdminCheck bool, err error) {
	demote := upd.IsAdmin != nil && !*upd.IsAdmin && a.Admin
	disable := upd.Disabled != nil && *upd.Disabled && !a.Disabled
	lastAdminCheck = a.Admin && !a.Disabled && (demote || disable)
	audit := func(action string, details map[string]any) *governance.AuditEntry {
		return &governance.AuditEntry{Actor: actor, Action: action, ObjectType: "account",
			ObjectID: a.Username, Details: auditlog.Details(details)}
	}
	if upd.PasswordHash != nil {
		if *upd.PasswordHash == "" {
			return nil, lastAdminCheck, governance.Errorf(governance.EINVALID, "An account needs a username and a password.")
		}
		steps = append(steps, AccountStep{PasswordHash: upd.PasswordHash, Audit: audit("account.passwd", nil)})
	}
	if upd.IsAdmin != nil && *upd.IsAdmin != a.Admin {
		steps = append(steps, AccountStep{Admin: upd.IsAdmin, Audit: audit("account.role", map[string]any{"admin": *upd.IsAdmin})})
	}
	if upd.Disabled != nil && *upd.Disabled != a.Disabled {
		action := "account.enable"
		if *upd.Disabled {
			action = "account.disable"
		}
		steps = append(steps, AccountStep{Disabled: upd.Disabled, Audit: audit(action, nil)})
	}
	return steps, lastAdminCheck, nil
}

// MembershipSet is the audit row of a role given to account username;
// subjectRef is a member's subject as its keyed reference
// (forgetplan.SubjectRef), which the subject's forget makes unconfirmable.
func MembershipSet(actor, username string, m governance.Membership, subjectRef string) *governance.AuditEntry {
	details := map[string]any{"role": m.Role}
	if m.Role == governance.ProjectMember {
		details["subject"] = subjectRef
	}
	return &governance.AuditEntry{Actor: actor, Action: "membership.set", ObjectType: "account",
		ObjectID: username, ProjectID: m.ProjectID, Details: auditlog.Details(details)}
}

// MembershipRemoved is the audit row of a role taken away.
func MembershipRemoved(actor, username string, projectID int64) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "membership.remove", ObjectType: "account",
		ObjectID: username, ProjectID: projectID}
}

// ValidateNewProject checks a project an administrator creates.
func ValidateNewProject(p *governance.Project) error {
	if err := governance.ValidateSlug(p.Slug); err != nil {
		return err
	}
	if strings.TrimSpace(p.Name) == "" {
		return errNoName
	}
	return nil
}

var errNoName = governance.Errorf(governance.EINVALID, "A project needs a name.")

// CheckAccount checks a new account before it is written (its username
// trimmed): a username and a password hash, and each membership
// (CheckMembership), which it then names as the account's once its id is
// known (Own).
func CheckAccount(a *governance.Account) error {
	a.Username = strings.TrimSpace(a.Username)
	if a.Username == "" || a.PasswordHash == "" {
		return governance.Errorf(governance.EINVALID, "An account needs a username and a password.")
	}
	for i := range a.Memberships {
		if err := CheckMembership(&a.Memberships[i]); err != nil {
			return err
		}
	}
	return nil
}

// Own names a's memberships as the account's, a.ID set.
func Own(a *governance.Account) []governance.Membership {
	for i := range a.Memberships {
		a.Memberships[i].AccountID = a.ID
	}
	return a.Memberships
}

// CheckMembership checks a role in a project before it is written: a
// reviewer sees the whole project (no subject), a member is linked to
// one subject.
func CheckMembership(m *governance.Membership) error {
	switch m.Role {
	case governance.ProjectReviewer:
		m.SubjectID = ""
	case governance.ProjectMember:
		if strings.TrimSpace(m.SubjectID) == "" {
			return governance.Errorf(governance.EINVALID, "A member must be linked to a subject id.")
		}
	default:
		return governance.Errorf(governance.EINVALID, "Role %q is not reviewer or member.", m.Role)
	}
	return nil
}

// NewSessionKeys draws the cookie hash and block keys a store keeps on
// first use.
func NewSessionKeys() (hashKey, blockKey []byte) {
	hashKey, blockKey = make([]byte, 64), make([]byte, 32)
	rand.Read(hashKey)
	rand.Read(blockKey)
	return hashKey, blockKey
}

// FirstAccount is the account a lookup by id or name found, or
// ENOTFOUND.
func FirstAccount(accounts []*governance.Account, err error) (*governance.Account, error) {
	if err != nil {
		return nil, err
	}
	if len(accounts) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Account not found.")
	}
	return accounts[0], nil
}

// CheckProject checks a project before any store writes it: a valid
// slug, and a name.
func CheckProject(p *governance.Project) error {
	if err := governance.ValidateSlug(p.Slug); err != nil {
		return err
	}
	if p.Name == "" {
		return errNoName
	}
	if problem := governance.CheckSlug(p.Slug); problem != "" {
		return governance.Errorf(governance.EINVALID, "The project slug %s.", problem)
	}
	if problem := governance.CheckText(p.Name); problem != "" {
		return governance.Errorf(governance.EINVALID, "The project name %s.", problem)
	}
	return nil
}

// ProjectCreated is the audit row of a new project (its ID set).
func ProjectCreated(actor string, p *governance.Project) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "project.create", ObjectType: "project",
		ObjectID: strconv.FormatInt(p.ID, 10), ProjectID: p.ID, Details: auditlog.Details(map[string]any{"slug": p.Slug})}
}

// ProjectStep is one change UpdateProject makes: a new name and
// description (Rename), or a new review policy (AutoActivate); Audit is
// the row it leaves.
type ProjectStep struct {
	Rename            bool
	Name, Description string
	AutoActivate      *bool
	Audit             *governance.AuditEntry
}

// ProjectUpdate plans upd on project p: one step per kind of change.
func ProjectUpdate(actor string, p *governance.Project, upd governance.ProjectUpdate) ([]ProjectStep, error) {
	audit := func(action string, details map[string]any) *governance.AuditEntry {
		return &governance.AuditEntry{Actor: actor, Action: action, ObjectType: "project",
			ObjectID: strconv.FormatInt(p.ID, 10), ProjectID: p.ID, Details: auditlog.Details(details)}
	}
	var steps []ProjectStep
	if (upd.Name != nil && *upd.Name != p.Name) || (upd.Description != nil && *upd.Description != p.Description) {
		step := ProjectStep{Rename: true, Name: p.Name, Description: p.Description, Audit: audit("project.rename", nil)}
		if upd.Name != nil {
			step.Name = *upd.Name
		}
		if upd.Description != nil {
			step.Description = *upd.Description
		}
		if strings.TrimSpace(step.Name) == "" {
			return nil, errNoName
		}
		steps = append(steps, step)
	}
	if upd.AutoActivate != nil && *upd.AutoActivate != p.AutoActivate {
		steps = append(steps, ProjectStep{AutoActivate: upd.AutoActivate, Audit: AutoActivatePolicy(*upd.AutoActivate).Audit(actor, p.ID)})
	}
	return steps, nil
}

// ProjectDeleted is the audit row of a deleted project: its slug and the
// counts of what went, never the content.
func ProjectDeleted(actor string, p *governance.Project, d *governance.ProjectDeletion) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "project.delete", ObjectType: "project",
		ObjectID: strconv.FormatInt(p.ID, 10), Details: auditlog.Details(map[string]any{"slug": p.Slug, "deleted": d})}
}

// ProjectPolicy is one policy switch of a project: the column it sets and
// the details of its "project.policy" audit row.
type ProjectPolicy struct {
	Column  string
	On      bool
	details map[string]any
}

// AutoActivatePolicy switches whether a project's proposals in the
// low-risk set become active at once (on) or wait for a reviewer.
func AutoActivatePolicy(on bool) ProjectPolicy {
	policy := "approval"
	if on {
		policy = "auto_activate"
	}
	return ProjectPolicy{Column: "auto_activate", On: on, details: map[string]any{"policy": policy}}
}

// SingleUserPolicy records whether a project has a single trusted user.
func SingleUserPolicy(on bool) ProjectPolicy {
	return ProjectPolicy{Column: "single_user", On: on, details: map[string]any{"single_user": on}}
}

// Audit is the "project.policy" audit row of the switch on a project.
func (p ProjectPolicy) Audit(actor string, projectID int64) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "project.policy", ObjectType: "project",
		ObjectID: strconv.FormatInt(projectID, 10), ProjectID: projectID, Details: auditlog.Details(p.details)}
}
