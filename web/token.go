package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// tokenOnceKey names the session value holding the token just created
// (templates.CreatedToken as JSON) until the tokens page shows it.
const tokenOnceKey = "token"

// tokenForm is the new-token form as posted.
type tokenForm struct {
	Project string
	Name    string
	Scopes  []string
}

func newTokenForm(c echo.Context) (tokenForm, error) {
	params, err := c.FormParams()
	if err != nil {
		return tokenForm{}, governance.Errorf(governance.EINVALID, "The form could not be read.")
	}
	return tokenForm{
		Project: strings.TrimSpace(params.Get("project")),
		Name:    strings.TrimSpace(params.Get("name")),
		Scopes:  params["scope"],
	}, nil
}

// token is the token the form asks for; the project is looked up among
// the projects the page offers (0 when none matches, which the use case
// refuses as a field error).
func (f tokenForm) token(projects []*governance.Project) *governance.APIToken {
	t := &governance.APIToken{Name: f.Name}
	for _, p := range projects {
		if p.Slug == f.Project {
			t.ProjectID = p.ID
		}
	}
	for _, sc := range f.Scopes {
		t.Scopes = append(t.Scopes, governance.TokenScope(sc))
	}
	return t
}

// tokenView builds the page's view.
func (s *Server) tokenView(c echo.Context, form tokenForm, errs templates.FieldErrors) (templates.TokenView, error) {
	ctx := c.Request().Context()
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return templates.TokenView{}, err
	}
	tokens, err := s.app.Tokens.List(ctx, actorOf(ctx))
	if err != nil {
		return templates.TokenView{}, err
	}
	v := templates.TokenView{Projects: projects, Errors: errs,
		Form: templates.TokenFormValues{Project: form.Project, Name: form.Name, Scopes: form.Scopes}}
	for _, sc := range governance.TokenScopes {
		v.AllScopes = append(v.AllScopes, string(sc))
	}
	for _, t := range tokens {
		v.Tokens = append(v.Tokens, tokenRow(t))
	}
	return v, nil
}

func tokenRow(t *governance.APIToken) templates.TokenRow {
	row := templates.TokenRow{ID: t.ID, Project: t.ProjectSlug, Name: t.Name, CreatedBy: t.CreatedBy,
		CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
	for _, sc := range t.Scopes {
		row.Scopes = append(row.Scopes, string(sc))
	}
	return row
}

// handleTokenIndex lists every API token and the form for a new one. The
// token created by the POST that redirected here is shown with its secret
// this once: the session value is taken, so a refresh no longer shows it,
// and the page is not cached.
func (s *Server) handleTokenIndex(c echo.Context) error {
	v, err := s.tokenView(c, tokenForm{Project: c.QueryParam("project"), Scopes: []string{string(governance.ScopeIngest), string(governance.ScopeRecall)}}, nil)
	if err != nil {
		return err
	}
	once, err := s.sessions.TakeOnce(c.Response(), c.Request(), tokenOnceKey)
	if err != nil {
		return err
	}
	if once != "" {
		var created templates.CreatedToken
		if json.Unmarshal([]byte(once), &created) == nil && created.Secret != "" {
			v.Created = &created
			v.Form.Project = created.Project
		}
	}
	meta, err := s.meta(c, "API tokens", "tokens")
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, http.StatusOK, templates.TokenPage(meta, v))
}

// handleTokenCreate creates a token and redirects (303) to the tokens page,
// which shows its secret once: it waits in the session, never in a URL, a
// flash message or the store (only its hash is kept).
func (s *Server) handleTokenCreate(c echo.Context) error {
	ctx := c.Request().Context()
	form, err := newTokenForm(c)
	if err != nil {
		return err
	}
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	t := form.token(projects)
	secret, err := s.app.Tokens.Create(ctx, actorOf(ctx), t)
	if fe, ok := app.AsFieldErrors(err); ok {
		errs := templates.FieldErrors(fe)
		v, err := s.tokenView(c, form, errs)
		if err != nil {
			return err
		}
		meta, err := s.meta(c, "API tokens", "tokens")
		if err != nil {
			return err
		}
		return render(c, http.StatusUnprocessableEntity, templates.TokenPage(meta, v))
	}
	if err != nil {
		return err
	}
	once, err := json.Marshal(templates.CreatedToken{ID: t.ID, Name: t.Name, Project: t.ProjectSlug, Secret: secret})
	if err != nil {
		return err
	}
	if err := s.sessions.SetOnce(c.Response(), c.Request(), tokenOnceKey, string(once)); err != nil {
		return err
	}
	return redirect(c, templates.TokensURL)
}

// handleTokenRevokeShow asks to confirm the revocation of a token.
func (s *Server) handleTokenRevokeShow(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "token")
	if err != nil {
		return err
	}
	t, err := s.app.Tokens.Get(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Revoke API token", "tokens")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.TokenRevokePage(meta, tokenRow(t)))
}

// handleTokenRevoke revokes a token once the confirmation page's form is
// sent (confirm=yes); it stops working at once. Without the confirmation
// nothing is revoked and the browser is sent to the confirmation page.
func (s *Server) handleTokenRevoke(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "token")
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return redirect(c, templates.TokenRevokeURL(id))
	}
	t, err := s.app.Tokens.Revoke(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "token.flash.revoked", "Name", t.Name, "Project", t.ProjectSlug)); err != nil {
		return err
	}
	return redirect(c, templates.TokensURL)
}
