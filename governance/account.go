package governance

import (
	"time"
)

// ProjectRole is an account's role within one project.
type ProjectRole string

const (
	// ProjectReviewer reviews and governs all memories of a project.
	ProjectReviewer ProjectRole = "reviewer"
	// ProjectMember is an end user linked to one subject id of a project;
	// they see only what is remembered about that subject.
	ProjectMember ProjectRole = "member"
)

// Project is one agent's memory space. Nothing crosses between projects.
type Project struct {
	ID          int64  `json:"id"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// AutoActivate makes proposals in the low-risk set active at once
	// instead of waiting for a reviewer (auto-activation is default-deny:
	// everything else still waits; docs/gate.md).
	AutoActivate bool `json:"auto_activate"`
	// SingleUser: the project has a single trusted user, so a rule for the
	// whole project that one person supports may become active without a
	// reviewer like a preference of that user (inside the low-risk set).
	SingleUser bool `json:"single_user,omitempty"`
	// Scratch marks a project an eval run created for itself: the heartbeat
	// leaves it to the run and only such projects may be deleted with it.
	// It is set at creation and never changes.
	Scratch   bool      `json:"scratch,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Account is a person who signs in to the console.
type Account struct {
	ID           int64
	Username     string
	PasswordHash string
	IsAdmin      bool
	// SessionGen is the generation sign-in cookies must carry; ending the
	// account's sessions moves it on.
	SessionGen int64
	// Language is the console language the account chose (en, zh-CN);
	// empty follows the browser.
	Language string
	// DisabledAt is when an administrator disabled the account (nil:
	// enabled). A disabled account cannot sign in and the policy refuses it.
	DisabledAt  *time.Time
	Memberships []Membership
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Membership gives an account a role in one project.
type Membership struct {
	AccountID   int64
	ProjectID   int64
	ProjectSlug string
	Role        ProjectRole
	// SubjectID links a member to the end user the memories are about.
	SubjectID string
}

// Disabled reports whether an administrator disabled the account.
func (a *Account) Disabled() bool { return a.DisabledAt != nil }

// RoleName is the account's most powerful role, for display.
func (a *Account) RoleName() string {
	if a.IsAdmin {
		return "admin"
	}
	for _, m := range a.Memberships {
		if m.Role == ProjectReviewer {
			return "reviewer"
		}
	}
	return "member"
}

// MembershipFor returns the account's membership in a project, if any.
func (a *Account) MembershipFor(projectID int64) (Membership, bool) {
	for _, m := range a.Memberships {
		if m.ProjectID == projectID {
			return m, true
		}
	}
	return Membership{}, false
}

// CanReview reports whether the account may see and govern every memory of a project.
func (a *Account) CanReview(projectID int64) bool {
	if a.IsAdmin {
		return true
	}
	m, ok := a.MembershipFor(projectID)
	return ok && m.Role == ProjectReviewer
}

// CanSeeSubject reports whether the account may see what is remembered about
// one subject of a project: reviewers and admins see all, a member only their own.
func (a *Account) CanSeeSubject(projectID int64, subjectID string) bool {
	if a.CanReview(projectID) {
		return true
	}
	m, ok := a.MembershipFor(projectID)
	return ok && m.Role == ProjectMember && m.SubjectID != "" && m.SubjectID == subjectID
}

// ReviewableProjects returns the ids of the projects the account reviews; nil
// with all=true for admins.
func (a *Account) ReviewableProjects() (ids []int64, all bool) {
	if a.IsAdmin {
		return nil, true
	}
	for _, m := range a.Memberships {
		if m.Role == ProjectReviewer {
			ids = append(ids, m.ProjectID)
		}
	}
	return ids, false
}

// ProjectStats counts what each layer holds for one project.
type ProjectStats struct {
	Project    *Project
	Events     int
	Sessions   int
	Episodes   int
	Candidates int
	Held       int
	Blocked    int
	Proposed   int
	Active     int
	Rules      int
}
