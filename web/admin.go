package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Administration in the browser (app.Admin): accounts, their roles and
// memberships, projects. Every handler binds its input, calls one use case
// and renders or redirects (303, POST/Redirect/GET). A generated password
// is never rendered by the POST that made it: it waits in the session for
// the account page the POST redirects to, which shows it once.

// authPasswords makes and hashes passwords for app.Admin with auth's
// argon2id.
type authPasswords struct{}

func (authPasswords) Generate() string               { return auth.GeneratePassword() }
func (authPasswords) Hash(pw string) (string, error) { return auth.HashPassword(pw) }

// passwordOnceKey names the session value holding "<account id>:<password>"
// until the account page shows it.
const passwordOnceKey = "password"

// errorText is err's user-safe message in the request's language: an
// error's values are filled into the translated sentence.
func errorText(c echo.Context, err error) string {
	return locale.From(c.Request().Context()).ErrorMessage(err)
}

// fixable reports an error the administrator can fix by changing the input
// or the order of their actions (shown on the page, not as an error page).
func fixable(err error) bool {
	switch governance.ErrorCode(err) {
	case governance.EINVALID, governance.ECONFLICT:
		return true
	}
	return false
}

// refusedBack flashes a fixable refusal and redirects to back; any other
// error goes to the error page.
func (s *Server) refusedBack(c echo.Context, err error, back string) error {
	if !fixable(err) {
		return err
	}
	if err := s.flash(c, auth.FlashError, locale.From(c.Request().Context()).ErrorMessage(err)); err != nil {
		return err
	}
	return redirect(c, back)
}

// showPasswordOnce keeps a new password for the account page the browser
// is sent to next.
func (s *Server) showPasswordOnce(c echo.Context, accountID int64, password string) error {
	return s.sessions.SetOnce(c.Response(), c.Request(), passwordOnceKey, strconv.FormatInt(accountID, 10)+":"+password)
}

func newAccountForm(c echo.Context) templates.AccountForm {
	return templates.AccountForm{
		Username: strings.TrimSpace(c.FormValue("username")),
		Admin:    c.FormValue("admin") == "on",
		Project:  c.FormValue("project"),
		Role:     c.FormValue("role"),
		Subject:  strings.TrimSpace(c.FormValue("subject")),
	}
}

// membershipOf reads the project (an id), role and subject of a membership
// form; ok is false when no project was chosen.
func membershipOf(project, role, subject string) (governance.Membership, bool, error) {
	if project == "" {
		return governance.Membership{}, false, nil
	}
	id, err := strconv.ParseInt(project, 10, 64)
	if err != nil || id <= 0 {
		return governance.Membership{}, false, governance.Errorf(governance.EINVALID, "Choose a project.")
	}
	return governance.Membership{ProjectID: id, Role: governance.ProjectRole(role), SubjectID: subject}, true, nil
}

func (s *Server) accountListPage(c echo.Context, status int, form templates.AccountForm, problem string) error {
	ctx := c.Request().Context()
	actor := actorOf(ctx)
	accounts, err := s.app.Admin.Accounts(ctx, actor)
	if err != nil {
		return err
	}
	projects, err := s.app.Admin.ProjectChoices(ctx, actor)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Accounts", "accounts")
	if err != nil {
		return err
	}
	return render(c, status, templates.AccountListPage(meta, templates.AccountListView{
		Accounts: accounts, Projects: projects, Form: form, Error: problem}))
}

// handleAccountIndex lists the accounts with the new-account form.
func (s *Server) handleAccountIndex(c echo.Context) error {
	return s.accountListPage(c, http.StatusOK, templates.AccountForm{}, "")
}

// handleAccountCreate creates an account with a generated password and
// sends the browser to its page, which shows the password once.
func (s *Server) handleAccountCreate(c echo.Context) error {
	ctx := c.Request().Context()
	f := newAccountForm(c)
	in := app.NewAccount{Username: f.Username, Admin: f.Admin}
	m, ok, err := membershipOf(f.Project, f.Role, f.Subject)
	if ok {
		in.Memberships = append(in.Memberships, m)
	}
	var (
		a        *governance.Account
		password string
	)
	if err == nil {
		a, password, err = s.app.Admin.CreateAccount(ctx, actorOf(ctx), in)
	}
	if fixable(err) {
		return s.accountListPage(c, http.StatusUnprocessableEntity, f, errorText(c, err))
	}
	if err != nil {
		return err
	}
	if err := s.showPasswordOnce(c, a.ID, password); err != nil {
		return err
	}
	return s.done(c, templates.AccountURL(a.ID), tr(c, "admin.flash.account_created", "Name", a.Username))
}

// handleAccountShow is one account's page; a password just generated for
// it is shown this once (and the page is never cached).
func (s *Server) handleAccountShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "account")
	if err != nil {
		return err
	}
	actor := actorOf(ctx)
	a, err := s.app.Admin.Account(ctx, actor, id)
	if err != nil {
		return err
	}
	projects, err := s.app.Admin.ProjectChoices(ctx, actor)
	if err != nil {
		return err
	}
	v := templates.AccountView{Account: a, Projects: projects, Self: actor.Account != nil && actor.Account.ID == a.ID}
	once, err := s.sessions.TakeOnce(c.Response(), c.Request(), passwordOnceKey)
	if err != nil {
		return err
	}
	if owner, pw, ok := strings.Cut(once, ":"); ok && owner == strconv.FormatInt(a.ID, 10) {
		v.Password = pw
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	meta, err := s.meta(c, "Account", "accounts")
	if err != nil {
		return err
	}
	meta.Title = a.Username
	return render(c, http.StatusOK, templates.AccountPage(meta, v))
}

// handleAccountPassword generates a new password (ending the account's
// sessions) and shows it once on the account page.
func (s *Server) handleAccountPassword(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "account")
	if err != nil {
		return err
	}
	a, password, err := s.app.Admin.ResetPassword(ctx, actorOf(ctx), id)
	if err != nil {
		return s.refusedBack(c, err, templates.AccountURL(id))
	}
	if err := s.showPasswordOnce(c, a.ID, password); err != nil {
		return err
	}
	return s.done(c, templates.AccountURL(a.ID), tr(c, "admin.flash.password_reset", "Name", a.Username))
}

// handleAccountRole makes an account an administrator (admin=on) or takes
// that away; the last administrator keeps it.
func (s *Server) handleAccountRole(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "account")
	if err != nil {
		return err
	}
	admin := c.FormValue("admin") == "on"
	a, err := s.app.Admin.SetAdmin(ctx, actorOf(ctx), id, admin)
	if err != nil {
		return s.refusedBack(c, err, templates.AccountURL(id))
	}
	back := templates.AccountURL(a.ID)
	msg := tr(c, "admin.flash.demoted", "Name", a.Username)
	if admin {
		msg = tr(c, "admin.flash.promoted", "Name", a.Username)
	} else if self := auth.UserFrom(ctx); self != nil && self.ID == a.ID {
		back = "/" // the administration pages are no longer theirs
	}
	return s.done(c, back, msg)
}

// handleAccountDisable disables an account and ends its sessions.
func (s *Server) handleAccountDisable(c echo.Context) error {
	return s.setDisabled(c, true)
}

// handleAccountEnable lets a disabled account sign in again.
func (s *Server) handleAccountEnable(c echo.Context) error {
	return s.setDisabled(c, false)
}

func (s *Server) setDisabled(c echo.Context, disabled bool) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "account")
	if err != nil {
		return err
	}
	a, err := s.app.Admin.SetDisabled(ctx, actorOf(ctx), id, disabled)
	if err != nil {
		return s.refusedBack(c, err, templates.AccountURL(id))
	}
	msg := tr(c, "admin.flash.enabled", "Name", a.Username)
	if disabled {
		msg = tr(c, "admin.flash.disabled", "Name", a.Username)
	}
	return s.done(c, templates.AccountURL(a.ID), msg)
}

// handleMembershipUpdate gives an account a role in a project.
func (s *Server) handleMembershipUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "account")
	if err != nil {
		return err
	}
	back := templates.AccountURL(id)
	m, ok, err := membershipOf(c.FormValue("project"), c.FormValue("role"), strings.TrimSpace(c.FormValue("subject")))
	if err == nil && !ok {
		err = governance.Errorf(governance.EINVALID, "Choose a project.")
	}
	if err != nil {
		return s.refusedBack(c, err, back)
	}
	a, p, err := s.app.Admin.SetMembership(ctx, actorOf(ctx), id, m)
	if err != nil {
		return s.refusedBack(c, err, back)
	}
	return s.done(c, back, tr(c, "admin.flash.membership_set", "Name", a.Username, "Project", p.Name))
}

// handleMembershipDelete takes an account's role in a project away.
func (s *Server) handleMembershipDelete(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "account")
	if err != nil {
		return err
	}
	projectID, err := idParam(c, "project", "project")
	if err != nil {
		return err
	}
	a, err := s.app.Admin.RemoveMembership(ctx, actorOf(ctx), id, projectID)
	if err != nil {
		return s.refusedBack(c, err, templates.AccountURL(id))
	}
	return s.done(c, templates.AccountURL(a.ID), tr(c, "admin.flash.membership_removed", "Name", a.Username))
}

func newProjectForm(c echo.Context) templates.ProjectForm {
	return templates.ProjectForm{
		Slug:         strings.TrimSpace(c.FormValue("slug")),
		Name:         strings.TrimSpace(c.FormValue("name")),
		Description:  strings.TrimSpace(c.FormValue("description")),
		AutoActivate: c.FormValue("auto_activate") == "on",
	}
}

func (s *Server) projectListPage(c echo.Context, status int, form templates.ProjectForm, problem string) error {
	ctx := c.Request().Context()
	stats, err := s.app.Admin.Projects(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Projects", "projects")
	if err != nil {
		return err
	}
	return render(c, status, templates.AdminProjectListPage(meta, templates.AdminProjectListView{
		Projects: stats, Form: form, Error: problem}))
}

// handleAdminProjectIndex lists the projects with the new-project form.
func (s *Server) handleAdminProjectIndex(c echo.Context) error {
	return s.projectListPage(c, http.StatusOK, templates.ProjectForm{}, "")
}

// handleAdminProjectCreate creates a project.
func (s *Server) handleAdminProjectCreate(c echo.Context) error {
	ctx := c.Request().Context()
	f := newProjectForm(c)
	p, err := s.app.Admin.CreateProject(ctx, actorOf(ctx), app.NewProject{
		Slug: f.Slug, Name: f.Name, Description: f.Description, AutoActivate: f.AutoActivate})
	if fixable(err) {
		return s.projectListPage(c, http.StatusUnprocessableEntity, f, errorText(c, err))
	}
	if err != nil {
		return err
	}
	return s.done(c, templates.AdminProjectURL(p.ID), tr(c, "admin.flash.project_created", "Name", p.Name))
}

func (s *Server) projectPage(c echo.Context, status int, p *governance.Project, form templates.ProjectForm, problem string) error {
	meta, err := s.meta(c, "Project", "projects")
	if err != nil {
		return err
	}
	meta.Title = p.Name
	return render(c, status, templates.AdminProjectPage(meta, templates.AdminProjectView{Project: p, Form: form, Error: problem}))
}

// handleAdminProjectShow is a project's settings page.
func (s *Server) handleAdminProjectShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "project")
	if err != nil {
		return err
	}
	p, err := s.app.Admin.Project(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	return s.projectPage(c, http.StatusOK, p, templates.ProjectForm{Slug: p.Slug, Name: p.Name,
		Description: p.Description, AutoActivate: p.AutoActivate}, "")
}

// handleAdminProjectUpdate renames a project and sets its review policy.
func (s *Server) handleAdminProjectUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "project")
	if err != nil {
		return err
	}
	f := newProjectForm(c)
	p, err := s.app.Admin.UpdateProject(ctx, actorOf(ctx), id, governance.ProjectUpdate{
		Name: &f.Name, Description: &f.Description, AutoActivate: &f.AutoActivate})
	if fixable(err) {
		current, cerr := s.app.Admin.Project(ctx, actorOf(ctx), id)
		if cerr != nil {
			return cerr
		}
		f.Slug = current.Slug
		return s.projectPage(c, http.StatusUnprocessableEntity, current, f, errorText(c, err))
	}
	if err != nil {
		return err
	}
	return s.done(c, templates.AdminProjectURL(p.ID), tr(c, "admin.flash.project_saved", "Name", p.Name))
}

func (s *Server) projectDeletePage(c echo.Context, status int, id int64, confirm, problem string) error {
	ctx := c.Request().Context()
	d, err := s.app.Admin.PreviewDeleteProject(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Delete a project", "projects")
	if err != nil {
		return err
	}
	return render(c, status, templates.ProjectDeletePage(meta, templates.ProjectDeleteView{Deletion: d, Confirm: confirm, Error: problem}))
}

// handleAdminProjectDeleteShow lists exactly what deleting the project
// removes and asks for its slug.
func (s *Server) handleAdminProjectDeleteShow(c echo.Context) error {
	id, err := idParam(c, "id", "project")
	if err != nil {
		return err
	}
	return s.projectDeletePage(c, http.StatusOK, id, "", "")
}

// handleAdminProjectDelete deletes the project and everything in it,
// leaving no copy behind, once its slug is typed.
func (s *Server) handleAdminProjectDelete(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "project")
	if err != nil {
		return err
	}
	confirm := c.FormValue("confirm")
	d, err := s.app.Admin.DeleteProject(ctx, actorOf(ctx), id, confirm)
	if fixable(err) {
		return s.projectDeletePage(c, http.StatusUnprocessableEntity, id, confirm, errorText(c, err))
	}
	if err != nil {
		return err
	}
	return s.done(c, templates.AdminProjectsURL, tr(c, "admin.flash.project_deleted", "Name", d.Project.Name,
		"Events", d.Events, "Rules", d.Rules, "Candidates", d.Candidates))
}
