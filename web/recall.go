package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/web/templates"
)

// demoTask is the playground's example task (SCENARIO.md).
const demoTask = "我想带五岁的女儿去上海玩两天，她一直想去迪士尼。最终路线必须可执行。"

// newRecallForm reads the playground form.
func newRecallForm(c echo.Context) templates.RecallForm {
	f := templates.RecallForm{
		Project:       strings.TrimSpace(c.FormValue("project")),
		Subject:       strings.TrimSpace(c.FormValue("subject")),
		Task:          strings.TrimSpace(c.FormValue("task")),
		TaskType:      strings.TrimSpace(c.FormValue("task_type")),
		Risk:          strings.TrimSpace(c.FormValue("risk")),
		Total:         strings.TrimSpace(c.FormValue("total")),
		PerItem:       strings.TrimSpace(c.FormValue("per_item")),
		IncludeEvents: c.FormValue("include_events") != "",
	}
	return f
}

// recallView builds the playground's view for the caller's projects.
func (s *Server) recallView(ctx context.Context, f templates.RecallForm) (templates.RecallView, error) {
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return templates.RecallView{}, err
	}
	v := templates.RecallView{Form: f, DemoTask: demoTask}
	for _, sc := range scopes {
		opt := templates.RecallProject{Slug: sc.Project.Slug, Name: sc.Project.Name, Subject: sc.SubjectID(), Member: sc.Subject != nil}
		if sc.Subject == nil {
			if opt.Subjects, err = s.app.Events.Subjects(ctx, actorOf(ctx), sc.Project.ID); err != nil {
				return v, err
			}
		}
		v.Projects = append(v.Projects, opt)
	}
	if v.Form.Project == "" && len(scopes) > 0 {
		v.Form.Project = scopes[0].Project.Slug
	}
	return v, nil
}

// handleRecallShow is the recall playground.
func (s *Server) handleRecallShow(c echo.Context) error {
	v, err := s.recallView(c.Request().Context(), templates.RecallForm{Project: c.QueryParam("project"), Subject: c.QueryParam("subject")})
	if err != nil {
		return err
	}
	meta, err := s.meta(c, "Recall playground", "recall")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.RecallPage(meta, v))
}

// handleRecallRun runs a recall as a preview (the trace is stored, rule use
// is not counted) and shows the package, the trace and the fenced text next
// to what the agent gets without memory. htmx requests get the result panel.
func (s *Server) handleRecallRun(c echo.Context) error {
	ctx := c.Request().Context()
	form := newRecallForm(c)
	v, err := s.recallView(ctx, form)
	if err != nil {
		return err
	}
	for _, p := range v.Projects {
		if p.Member && p.Slug == v.Form.Project {
			v.Form.Subject = p.Subject // a member recalls for themself
		}
	}
	f := v.Form
	run, err := s.app.Recalls.Preview(ctx, actorOf(ctx), app.RecallInput{Project: f.Project, Subject: f.Subject, Task: f.Task,
		TaskType: f.TaskType, Risk: f.Risk, Total: f.Total, PerItem: f.PerItem, IncludeEvents: f.IncludeEvents})
	errs, invalid := app.AsFieldErrors(err)
	status := http.StatusOK
	if invalid {
		v.Errors, status = templates.FieldErrors(errs), http.StatusUnprocessableEntity
	} else {
		if err != nil {
			return err
		}
		res := &templates.RecallResult{Task: f.Task, Package: run.Package, Labels: run.Labels, ShowFiltered: run.ShowFiltered}
		if run.ShowFiltered {
			res.Filtered = []templates.FilteredRule{}
			for _, fr := range run.Filtered {
				res.Filtered = append(res.Filtered, templates.FilteredRule(fr))
			}
		}
		v.Result = res
	}
	if hxTargets(c, "recall-result") {
		if len(errs) > 0 {
			status = http.StatusOK // swap the errors into the panel
		}
		return render(c, status, templates.RecallResultPanel(v))
	}
	meta, err := s.meta(c, "Recall playground", "recall")
	if err != nil {
		return err
	}
	return render(c, status, templates.RecallPage(meta, v))
}
