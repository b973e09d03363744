package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

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

// Validate returns the field errors and the token to create.
func (f tokenForm) Validate(projects []*governance.Project) (templates.FieldErrors, *governance.APIToken) {
	errs := templates.FieldErrors{}
	t := &governance.APIToken{Name: f.Name}
	for _, p := range projects {
		if p.Slug == f.Project {
			t.ProjectID = p.ID
		}
	}
	if t.ProjectID == 0 {
		errs["project"] = "Choose a project."
	}
	switch {
	case f.Name == "":
		errs["name"] = "Give the token a name, e.g. the agent that will use it."
	case len(f.Name) > governance.MaxTokenNameBytes:
		errs["name"] = fmt.Sprintf("At most %d bytes.", governance.MaxTokenNameBytes)
	}
	for _, sc := range f.Scopes {
		t.Scopes = append(t.Scopes, governance.TokenScope(sc))
	}
	if len(t.Scopes) == 0 {
		errs["scope"] = "Choose at least one scope."
	} else if err := t.Validate(); err != nil && errs["name"] == "" && errs["project"] == "" {
		errs["scope"] = governance.ErrorMessage(err)
	}
	return errs, t
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
		row := templates.TokenRow{ID: t.ID, Project: t.ProjectSlug, Name: t.Name, CreatedBy: t.CreatedBy,
			CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
		for _, sc := range t.Scopes {
			row.Scopes = append(row.Scopes, string(sc))
		}
		v.Tokens = append(v.Tokens, row)
	}
	return v, nil
}

// handleTokenIndex lists every API token and the form for a new one.
func (s *Server) handleTokenIndex(c echo.Context) error {
	v, err := s.tokenView(c, tokenForm{Project: c.QueryParam("project"), Scopes: []string{string(governance.ScopeIngest), string(governance.ScopeRecall)}}, nil)
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "API tokens", "tokens")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.TokenPage(meta, v))
}

// handleTokenCreate creates a token and shows its secret once, on this
// response only: it is neither stored nor put into a flash message.
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
	errs, t := form.Validate(projects)
	status := http.StatusOK
	var secret string
	if len(errs) == 0 {
		if secret, err = s.app.Tokens.Create(ctx, actorOf(ctx), t); err != nil {
			return err
		}
		form = tokenForm{Project: form.Project}
	} else {
		status = http.StatusUnprocessableEntity
	}
	v, err := s.tokenView(c, form, errs)
	if err != nil {
		return err
	}
	if secret != "" {
		v.Created = &templates.CreatedToken{ID: t.ID, Name: t.Name, Project: t.ProjectSlug, Secret: secret}
	}
	meta, err := s.meta(c, "API tokens", "tokens")
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return render(c, status, templates.TokenPage(meta, v))
}

// handleTokenRevoke revokes a token; it stops working at once.
func (s *Server) handleTokenRevoke(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "token")
	if err != nil {
		return err
	}
	t, err := s.app.Tokens.Revoke(ctx, actorOf(ctx), id)
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, fmt.Sprintf("Token %q of %s was revoked.", t.Name, t.ProjectSlug)); err != nil {
		return err
	}
	return redirect(c, templates.TokensURL)
}
