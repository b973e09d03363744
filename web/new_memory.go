package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// Memories written by hand: a reviewer's "new memory" form, and a member's
// "remember this about me" on /me. Both become a proposal in the review
// queue (app.Rules.Propose decides who may write what).

// handleNewMemoryShow is the reviewers' "new memory" form; ?project=
// chooses the project.
func (s *Server) handleNewMemoryShow(c echo.Context) error {
	return s.renderNewMemory(c, http.StatusOK, templates.MemoryForm{Project: c.QueryParam("project")}, governance.Text{})
}

// handleNewMemoryCreate writes the reviewer's memory as a proposal and
// opens it; bad input comes back on the form.
func (s *Server) handleNewMemoryCreate(c echo.Context) error {
	ctx := c.Request().Context()
	actor := actorOf(ctx)
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return err
	}
	f := templates.MemoryForm{Project: c.FormValue("project"), Subject: c.FormValue("subject"), Kind: c.FormValue("kind"), Text: c.FormValue("text")}
	r, err := s.app.Rules.Propose(ctx, actor, app.MemoryDraft{Project: f.Project, Subject: f.Subject,
		Kind: governance.MemoryType(f.Kind), Text: f.Text})
	if fe, ok := app.AsFieldErrors(err); ok {
		f.Errors = templates.FieldErrors(fe)
		return s.renderNewMemory(c, http.StatusUnprocessableEntity, f, governance.Text{})
	}
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "memory_new.flash", "ID", r.ID)); err != nil {
		return err
	}
	return redirect(c, templates.RuleURL(r.ID))
}

func (s *Server) renderNewMemory(c echo.Context, status int, f templates.MemoryForm, problem governance.Text) error {
	ctx := c.Request().Context()
	projects, err := s.app.Reviews.Index(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	v := templates.NewMemoryView{Form: f, Problem: problem}
	for _, rp := range projects {
		v.Projects = append(v.Projects, rp.Project)
	}
	meta, err := s.meta(c, "New memory", "review")
	if err != nil {
		return err
	}
	return render(c, status, templates.NewMemoryPage(meta, v))
}

// handleMeRemember is "remember this about me": a proposal about the
// member's own subject, for a reviewer to look at; bad input comes back on
// "my memories", next to the project's form.
func (s *Server) handleMeRemember(c echo.Context) error {
	ctx := c.Request().Context()
	f := templates.MemoryForm{Project: c.FormValue("project"), Kind: c.FormValue("kind"), Text: c.FormValue("text")}
	_, err := s.app.Me.Remember(ctx, actorOf(ctx), f.Project, governance.MemoryType(f.Kind), f.Text)
	if fe, ok := app.AsFieldErrors(err); ok {
		f.Errors = templates.FieldErrors(fe)
		return s.renderMe(c, http.StatusUnprocessableEntity, map[string]templates.MemoryForm{f.Project: f})
	}
	if err != nil {
		return err
	}
	if err := s.flash(c, auth.FlashSuccess, tr(c, "me.remember.flash")); err != nil {
		return err
	}
	return redirect(c, "/me#remember-"+url.PathEscape(f.Project))
}
