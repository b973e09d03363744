package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web/templates"
)

// handleMeShow is "My memories": rules and candidates about the viewer,
// by project, each with why it is remembered.
func (s *Server) handleMeShow(c echo.Context) error {
	return s.renderMe(c, http.StatusOK, nil)
}

// renderMe renders "my memories", with the "remember this about me" forms
// of remember sent back.
func (s *Server) renderMe(c echo.Context, status int, remember map[string]templates.MemoryForm) error {
	ctx := c.Request().Context()
	groups, err := s.app.Me.Memories(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	v := templates.MeView{Now: s.app.Now(), Remember: remember}
	for _, g := range groups {
		mp := templates.MeProject{Project: g.Project, SubjectID: g.SubjectID, Candidates: g.Candidates}
		for _, r := range g.Rules {
			mp.Rules = append(mp.Rules, templates.MeRule{Rule: r.Rule, Evidence: r.Evidence, Outcomes: r.Outcomes, Traces: r.Traces})
		}
		v.Groups = append(v.Groups, mp)
	}
	meta, err := s.meta(c, "My memories", "me")
	if err != nil {
		return err
	}
	return render(c, status, templates.MePage(meta, v))
}

// myDataSubject is what "download my data" holds for one project; its
// events follow, streamed page by page.
type myDataSubject struct {
	Project    string                  `json:"project"`
	SubjectID  string                  `json:"subject_id"`
	Rules      []*governance.Rule      `json:"rules"`
	Candidates []*governance.Candidate `json:"candidates"`
}

// handleMeExport downloads everything stored about the viewer as JSON: their
// events, candidates and rules, by project. Events are streamed.
func (s *Server) handleMeExport(c echo.Context) error {
	ctx := c.Request().Context()
	actor := actorOf(ctx)
	data, err := s.app.Me.Export(ctx, actor)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSONCharsetUTF8)
	h.Set(echo.HeaderContentDisposition, `attachment; filename="my-data.json"`)
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	w := c.Response()
	head, _ := json.Marshal(struct {
		Format     string    `json:"format"`
		Account    string    `json:"account"`
		ExportedAt time.Time `json:"exported_at"`
	}{"mnemo-my-data/1", actor.Name(), s.app.Now().UTC().Truncate(time.Second)})
	fmt.Fprintf(w, "%s,\"subjects\":[", head[:len(head)-1])
	for i, d := range data {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		body, _ := json.Marshal(myDataSubject{Project: d.Project.Slug, SubjectID: d.SubjectID, Rules: d.Rules, Candidates: d.Candidates})
		fmt.Fprintf(w, "%s,\"events\":[", body[:len(body)-1])
		first := true
		err := s.app.Me.Events(ctx, actor, d.SubjectRef, func(e *governance.Event) error {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if !first {
				w.Write([]byte(","))
			}
			first = false
			_, err = w.Write(b)
			return err
		})
		if err != nil {
			// The status is sent; end the document so it stays valid JSON
			// and say what went wrong in it.
			msg, _ := json.Marshal("export interrupted: " + governance.ErrorMessage(err))
			fmt.Fprintf(w, `],"error":%s}]}`, msg)
			return nil
		}
		fmt.Fprint(w, "]}")
	}
	fmt.Fprint(w, "]}\n")
	return nil
}

// handleMeForgetShow confirms "forget everything about me".
func (s *Server) handleMeForgetShow(c echo.Context) error {
	ctx := c.Request().Context()
	plans, err := s.app.Me.PreviewForget(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	v := templates.ForgetView{
		Heading: tr(c, "me.forget_all_heading"),
		Intro:   tr(c, "me.forget_all_intro"),
		Action:  "/me/forget",
		Back:    "/me",
		Plans:   planViews(plans),
		Submit:  tr(c, "me.forget_all_heading"),
	}
	// A subject forget also ends the memberships that bind accounts to
	// the subject in its project (docs/forget.md, "What a forget removes"): say which
	// before the member confirms.
	var leaving []string
	for _, p := range v.Plans {
		if p.Project != nil {
			leaving = append(leaving, p.Project.Name)
		}
	}
	if len(leaving) > 0 {
		v.Consequences = []string{
			tr(c, "me.forget_all_memberships", "Projects", strings.Join(leaving, tr(c, "msg.list_separator"))),
			tr(c, "me.forget_all_final"),
		}
	}
	return s.renderForget(c, tr(c, "me.forget_all_heading"), v)
}

// handleMeForgetCreate forgets everything about the viewer, project by project.
func (s *Server) handleMeForgetCreate(c echo.Context) error {
	ctx := c.Request().Context()
	total, err := s.app.Me.Forget(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	return s.done(c, "/me", forgetMessage(c, tr(c, "forget.done_you"), total))
}
