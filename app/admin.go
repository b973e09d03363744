package app

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// AdminStore is what administration needs from the store: accounts,
// memberships and projects, each change written with its audit row.
type AdminStore interface {
	FindAccounts(ctx context.Context) ([]*governance.Account, error)
	FindAccountByID(ctx context.Context, id int64) (*governance.Account, error)
	FindProjects(ctx context.Context) ([]*governance.Project, error)
	FindProjectByID(ctx context.Context, id int64) (*governance.Project, error)
	FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error)
	CreateAccountBy(ctx context.Context, actor string, a *governance.Account) error
	UpdateAccount(ctx context.Context, actor string, id int64, upd governance.AccountUpdate) error
	SetMembershipBy(ctx context.Context, actor string, m governance.Membership) error
	RemoveMembershipBy(ctx context.Context, actor string, accountID, projectID int64) error
	CreateProjectBy(ctx context.Context, actor string, p *governance.Project) error
	UpdateProject(ctx context.Context, actor string, id int64, upd governance.ProjectUpdate) error
	PreviewDeleteProject(ctx context.Context, id int64) (*governance.ProjectDeletion, error)
	DeleteProject(ctx context.Context, actor string, id int64) (*governance.ProjectDeletion, error)
}

// Passwords makes and hashes account passwords (the console uses auth's
// argon2id; app cannot import auth, which is an HTTP package).
type Passwords interface {
	// Generate returns a new random password.
	Generate() string
	// Hash returns the stored form of a password.
	Hash(password string) (string, error)
}

// Admin are the administrators' use cases: accounts, their roles and
// memberships, and projects. Every one is for actors the policy lets
// administer (governance.ActAdminister); eval scratch projects are not
// offered and not found.
type Admin struct {
	store     AdminStore
	passwords Passwords
}

// SetPasswords gives the administration use cases their password maker.
func (a *App) SetPasswords(p Passwords) { a.Admin.passwords = p }

// Limits of what an administrator types.
const (
	MaxUsernameLen    = 64
	MaxSubjectLen     = 200
	MaxProjectNameLen = 200
	MaxDescriptionLen = 2000
)

// NewAccount is an account to create; its password is generated.
type NewAccount struct {
	Username string
	Admin    bool
	// Memberships, optional: roles in projects (ProjectID, Role, SubjectID).
	Memberships []governance.Membership
}

// NewProject is a project to create.
type NewProject struct {
	Slug         string
	Name         string
	Description  string
	AutoActivate bool
}

func (ad Admin) authorize(actor governance.Actor) error {
	return governance.Can(actor, governance.ActAdminister, governance.Object{})
}

// Accounts lists every account by username.
func (ad Admin) Accounts(ctx context.Context, actor governance.Actor) ([]*governance.Account, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, err
	}
	return ad.store.FindAccounts(ctx)
}

// Account loads one account with its memberships.
func (ad Admin) Account(ctx context.Context, actor governance.Actor, id int64) (*governance.Account, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, err
	}
	return ad.store.FindAccountByID(ctx, id)
}

// CreateAccount creates an account with a generated password, which it
// returns: the caller shows it once, it is never stored in clear.
func (ad Admin) CreateAccount(ctx context.Context, actor governance.Actor, in NewAccount) (*governance.Account, string, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, "", err
	}
	username := strings.TrimSpace(in.Username)
	if err := ValidUsername(username); err != nil {
		return nil, "", err
	}
	if err := ad.distinctUsername(ctx, username); err != nil {
		return nil, "", err
	}
	a := &governance.Account{Username: username, IsAdmin: in.Admin}
	for _, m := range in.Memberships {
		m, err := ad.membership(ctx, m)
		if err != nil {
			return nil, "", err
		}
		a.Memberships = append(a.Memberships, m)
	}
	password, hash, err := ad.newPassword()
	if err != nil {
		return nil, "", err
	}
	a.PasswordHash = hash
	if err := ad.store.CreateAccountBy(ctx, actor.Name(), a); err != nil {
		return nil, "", err
	}
	return a, password, nil
}

// ResetPassword gives an account a new generated password, which it
// returns to be shown once; every session of the account ends.
func (ad Admin) ResetPassword(ctx context.Context, actor governance.Actor, id int64) (*governance.Account, string, error) {
	a, err := ad.Account(ctx, actor, id)
	if err != nil {
		return nil, "", err
	}
	password, hash, err := ad.newPassword()
	if err != nil {
		return nil, "", err
	}
	if err := ad.store.UpdateAccount(ctx, actor.Name(), a.ID, governance.AccountUpdate{PasswordHash: &hash}); err != nil {
		return nil, "", err
	}
	return a, password, nil
}

// SetAdmin makes an account an administrator or takes that away; the last
// enabled administrator keeps it (ECONFLICT).
func (ad Admin) SetAdmin(ctx context.Context, actor governance.Actor, id int64, admin bool) (*governance.Account, error) {
	a, err := ad.Account(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return a, ad.store.UpdateAccount(ctx, actor.Name(), a.ID, governance.AccountUpdate{IsAdmin: &admin})
}

// SetDisabled disables an account, ending its sessions, or enables it
// again. Nobody disables their own account, and the last enabled
// administrator stays enabled (ECONFLICT).
func (ad Admin) SetDisabled(ctx context.Context, actor governance.Actor, id int64, disabled bool) (*governance.Account, error) {
	a, err := ad.Account(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if disabled && actor.Account != nil && actor.Account.ID == a.ID {
		return nil, governance.Errorf(governance.ECONFLICT, "You cannot disable your own account.")
	}
	return a, ad.store.UpdateAccount(ctx, actor.Name(), a.ID, governance.AccountUpdate{Disabled: &disabled})
}

// SetMembership gives an account a role in a project: reviewer of the
// whole project, or member linked to one subject. It replaces the role
// the account had there.
func (ad Admin) SetMembership(ctx context.Context, actor governance.Actor, accountID int64, m governance.Membership) (*governance.Account, *governance.Project, error) {
	a, err := ad.Account(ctx, actor, accountID)
	if err != nil {
		return nil, nil, err
	}
	m, err = ad.membership(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	m.AccountID = a.ID
	p, err := ad.store.FindProjectByID(ctx, m.ProjectID)
	if err != nil {
		return nil, nil, err
	}
	return a, p, ad.store.SetMembershipBy(ctx, actor.Name(), m)
}

// RemoveMembership takes an account's role in a project away.
func (ad Admin) RemoveMembership(ctx context.Context, actor governance.Actor, accountID, projectID int64) (*governance.Account, error) {
	a, err := ad.Account(ctx, actor, accountID)
	if err != nil {
		return nil, err
	}
	return a, ad.store.RemoveMembershipBy(ctx, actor.Name(), a.ID, projectID)
}

// membership checks a membership to give: a project that is not eval
// scratch, a known role, and for a member a subject id.
func (ad Admin) membership(ctx context.Context, m governance.Membership) (governance.Membership, error) {
	if _, err := ad.project(ctx, m.ProjectID); err != nil {
		return m, err
	}
	m.SubjectID = strings.TrimSpace(m.SubjectID)
	switch m.Role {
	case governance.ProjectReviewer:
		m.SubjectID = ""
	case governance.ProjectMember:
		if m.SubjectID == "" {
			return m, governance.Errorf(governance.EINVALID, "A member must be linked to a subject id.")
		}
		if utf8.RuneCountInString(m.SubjectID) > MaxSubjectLen || governance.CheckIdentifier(m.SubjectID) != "" {
			return m, governance.Errorf(governance.EINVALID, "The subject id is too long or holds characters that cannot be printed.")
		}
	default:
		return m, governance.Errorf(governance.EINVALID, "Choose the role: reviewer or member.")
	}
	return m, nil
}

// Projects lists the projects administrators manage (not eval scratch
// ones), with what each layer holds.
func (ad Admin) Projects(ctx context.Context, actor governance.Actor) ([]*governance.ProjectStats, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, err
	}
	all, err := ad.store.FindProjectStats(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*governance.ProjectStats, 0, len(all))
	for _, st := range all {
		if !st.Project.Scratch {
			out = append(out, st)
		}
	}
	return out, nil
}

// ProjectChoices lists the projects an account may be given a role in.
func (ad Admin) ProjectChoices(ctx context.Context, actor governance.Actor) ([]*governance.Project, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, err
	}
	all, err := ad.store.FindProjects(ctx)
	if err != nil {
		return nil, err
	}
	return withoutScratch(all), nil
}

// Project loads one project an administrator manages (ENOTFOUND for an
// eval scratch project).
func (ad Admin) Project(ctx context.Context, actor governance.Actor, id int64) (*governance.Project, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, err
	}
	return ad.project(ctx, id)
}

func (ad Admin) project(ctx context.Context, id int64) (*governance.Project, error) {
	p, err := ad.store.FindProjectByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if p.Scratch {
		return nil, governance.Errorf(governance.ENOTFOUND, "Project not found.")
	}
	return p, nil
}

// CreateProject creates a project; its slug is checked by
// governance.ValidateSlug.
func (ad Admin) CreateProject(ctx context.Context, actor governance.Actor, in NewProject) (*governance.Project, error) {
	if err := ad.authorize(actor); err != nil {
		return nil, err
	}
	slug := strings.TrimSpace(in.Slug)
	if err := governance.ValidateSlug(slug); err != nil {
		return nil, err
	}
	name, desc := strings.TrimSpace(in.Name), strings.TrimSpace(in.Description)
	if err := validProjectText(name, desc); err != nil {
		return nil, err
	}
	p := &governance.Project{Slug: slug, Name: name, Description: desc, AutoActivate: in.AutoActivate}
	if err := ad.store.CreateProjectBy(ctx, actor.Name(), p); err != nil {
		return nil, err
	}
	return p, nil
}

// UpdateProject renames a project, changes its description or its review
// policy. The slug never changes: it is in addresses, files and tokens'
// configuration.
func (ad Admin) UpdateProject(ctx context.Context, actor governance.Actor, id int64, upd governance.ProjectUpdate) (*governance.Project, error) {
	p, err := ad.Project(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	name, desc := p.Name, p.Description
	if upd.Name != nil {
		name = strings.TrimSpace(*upd.Name)
		upd.Name = &name
	}
	if upd.Description != nil {
		desc = strings.TrimSpace(*upd.Description)
		upd.Description = &desc
	}
	if err := validProjectText(name, desc); err != nil {
		return nil, err
	}
	if err := ad.store.UpdateProject(ctx, actor.Name(), p.ID, upd); err != nil {
		return nil, err
	}
	return ad.store.FindProjectByID(ctx, p.ID)
}

// PreviewDeleteProject counts everything deleting the project removes.
func (ad Admin) PreviewDeleteProject(ctx context.Context, actor governance.Actor, id int64) (*governance.ProjectDeletion, error) {
	p, err := ad.Project(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	return ad.store.PreviewDeleteProject(ctx, p.ID)
}

// DeleteProject deletes a project and everything in it, leaving no copy
// behind (as a forget). confirm must be the project's slug, typed by the
// administrator.
func (ad Admin) DeleteProject(ctx context.Context, actor governance.Actor, id int64, confirm string) (*governance.ProjectDeletion, error) {
	p, err := ad.Project(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(confirm) != p.Slug {
		return nil, governance.Errorf(governance.EINVALID, "Type the project's slug to confirm the deletion.")
	}
	return ad.store.DeleteProject(ctx, actor.Name(), p.ID)
}

func (ad Admin) newPassword() (password, hash string, err error) {
	if ad.passwords == nil {
		return "", "", governance.Errorf(governance.EINTERNAL, "Passwords cannot be made here.")
	}
	password = ad.passwords.Generate()
	hash, err = ad.passwords.Hash(password)
	return password, hash, err
}

func validProjectText(name, desc string) error {
	switch {
	case name == "":
		return governance.Errorf(governance.EINVALID, "A project needs a name.")
	case utf8.RuneCountInString(name) > MaxProjectNameLen:
		return governance.Errorf(governance.EINVALID, "The project name is too long (at most 200 characters).")
	case utf8.RuneCountInString(desc) > MaxDescriptionLen:
		return governance.Errorf(governance.EINVALID, "The description is too long (at most 2,000 characters).")
	case governance.CheckText(name) != "" || governance.CheckText(desc) != "":
		return governance.Errorf(governance.EINVALID, "The name and the description may not hold control characters.")
	}
	return nil
}
