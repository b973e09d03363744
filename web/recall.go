package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
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

// validateRecallForm checks the form against the caller's scopes and builds
// the request. A member recalls only for their own subject (the use case
// holds them to it; the form shows it).
func validateRecallForm(f *templates.RecallForm, scopes []scope) (templates.FieldErrors, governance.RecallRequest) {
	errs := templates.FieldErrors{}
	var (
		req governance.RecallRequest
		sc  scope
	)
	for _, s := range scopes {
		if s.Project.Slug == f.Project {
			sc = s
		}
	}
	if sc.Project == nil {
		errs["project"] = "Choose a project."
	} else {
		req.ProjectID = sc.Project.ID
		if sc.Subject != nil {
			f.Subject = *sc.Subject
		}
	}
	req.SubjectID, req.Task, req.TaskType, req.Risk, req.IncludeEvents = f.Subject, f.Task, f.TaskType, f.Risk, f.IncludeEvents
	if f.Task == "" {
		errs["task"] = "Type the task the agent is about to do."
	}
	for name, dst := range map[string]*int{"total": &req.Budget.Total, "per_item": &req.Budget.PerItem} {
		v := f.Total
		if name == "per_item" {
			v = f.PerItem
		}
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs[name] = "A whole number of characters, 1 or more."
			continue
		}
		*dst = n
	}
	if len(errs) == 0 {
		req.Normalize()
		if err := req.Validate(); err != nil {
			errs["budget"] = governance.ErrorMessage(err)
		}
	}
	return errs, req
}

// recallView builds the playground's view for the caller's projects.
func (s *Server) recallView(ctx context.Context, f templates.RecallForm) (templates.RecallView, []scope, error) {
	scopes, err := s.visibleScopes(ctx)
	if err != nil {
		return templates.RecallView{}, nil, err
	}
	v := templates.RecallView{Form: f, DemoTask: demoTask}
	for _, sc := range scopes {
		opt := templates.RecallProject{Slug: sc.Project.Slug, Name: sc.Project.Name, Subject: sc.SubjectID(), Member: sc.Subject != nil}
		if sc.Subject == nil {
			if opt.Subjects, err = s.app.Events.Subjects(ctx, actorOf(ctx), sc.Project.ID); err != nil {
				return v, nil, err
			}
		}
		v.Projects = append(v.Projects, opt)
	}
	if v.Form.Project == "" && len(scopes) > 0 {
		v.Form.Project = scopes[0].Project.Slug
	}
	return v, scopes, nil
}

// handleRecallShow is the recall playground.
func (s *Server) handleRecallShow(c echo.Context) error {
	v, _, err := s.recallView(c.Request().Context(), templates.RecallForm{Project: c.QueryParam("project"), Subject: c.QueryParam("subject")})
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
	v, scopes, err := s.recallView(ctx, form)
	if err != nil {
		return err
	}
	errs, req := validateRecallForm(&v.Form, scopes)
	status := http.StatusOK
	if len(errs) > 0 {
		v.Errors, status = errs, http.StatusUnprocessableEntity
	} else {
		run, err := s.app.Recalls.Preview(ctx, actorOf(ctx), req)
		if err != nil {
			return err
		}
		res := &templates.RecallResult{Task: req.Task, Package: run.Package, Labels: run.Labels, ShowFiltered: run.ShowFiltered}
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
