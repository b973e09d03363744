package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
	"github.com/mnemo-console/mnemo/web/templates"
)

// The skills pages (docs/skills.md): a project's skills with the
// curator's report, one skill with its versions, diff, findings, eval,
// files and evidence, the reviewer's decisions and edits, and the upload
// of skill folders. Every decision is app.Skills'.

// handleSkillIndex lists the projects whose skills the viewer governs.
func (s *Server) handleSkillIndex(c echo.Context) error {
	ctx := c.Request().Context()
	actor := actorOf(ctx)
	scopes, err := s.app.Projects.Visible(ctx, actor)
	if err != nil {
		return err
	}
	v := templates.SkillIndexView{CanImport: isAdmin(auth.UserFrom(ctx))}
	for _, sc := range scopes {
		if !sc.Reviewer() || sc.Project.Scratch {
			continue
		}
		list, err := s.app.Skills.List(ctx, actor, app.SkillListInput{Project: app.ProjectSlug(sc.Project.Slug)})
		if err != nil {
			return err
		}
		row := templates.SkillProjectRow{Project: sc.Project, Total: list.Total}
		for _, sk := range list.Skills {
			if sk.Status == governance.SkillActive {
				row.Active++
			}
			if sk.Pending > 0 {
				row.Waiting++
			}
		}
		v.Rows = append(v.Rows, row)
	}
	meta, err := s.meta(c, "Skills", "skills")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.SkillIndexPage(meta, v))
}

func intParam(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return def
	}
	return n
}

func curatorDays(c echo.Context) (int, int) {
	return intParam(c.FormValue("stale_days"), days(governance.DefaultSkillStaleAfter)),
		intParam(c.FormValue("archive_days"), days(governance.DefaultSkillArchiveAfter))
}

// handleSkillList is a project's skills page with the curator's report.
func (s *Server) handleSkillList(c echo.Context) error {
	return s.renderSkillList(c, http.StatusOK, nil)
}

func (s *Server) renderSkillList(c echo.Context, status int, errs templates.FieldErrors) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	in := app.SkillListInput{Project: app.ProjectSlug(slug), Status: c.QueryParam("status"), Query: strings.TrimSpace(c.QueryParam("q"))}
	list, err := s.app.Skills.List(ctx, actorOf(ctx), in)
	if fe, ok := app.AsFieldErrors(err); ok {
		in.Status, errs = "", templates.FieldErrors(fe)
		list, err = s.app.Skills.List(ctx, actorOf(ctx), in)
	}
	if err != nil {
		return err
	}
	stale, archive := curatorDays(c)
	v := templates.SkillListView{Project: list.Project, Skills: list.Skills, Total: list.Total, Status: in.Status, Query: in.Query,
		StaleDays: stale, ArchiveDays: archive, CSRF: csrfToken(c), CanImport: isAdmin(auth.UserFrom(ctx)), Errors: errs}
	if v.Curator, err = s.app.Skills.Curator(ctx, actorOf(ctx), app.ProjectSlug(slug), stale, archive); err != nil {
		return err
	}
	meta, err := s.meta(c, tr(c, "skill.list.title", "Project", list.Project.Name), "skills")
	if err != nil {
		return err
	}
	return render(c, status, templates.SkillListPage(meta, v))
}

func days(d interface{ Hours() float64 }) int { return int(d.Hours() / 24) }

// handleSkillShow is one skill's page (?v= picks the version shown:
// by default the one waiting for review, else the active one).
func (s *Server) handleSkillShow(c echo.Context) error {
	return s.renderSkill(c, http.StatusOK, templates.SkillForm{})
}

func (s *Server) renderSkill(c echo.Context, status int, form templates.SkillForm) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	d, err := s.app.Skills.Get(ctx, actorOf(ctx), app.ProjectSlug(slug), name)
	if err != nil {
		return err
	}
	sk := d.Skill
	v := templates.SkillView{Project: d.Project, Skill: sk, Versions: d.Versions, Evidence: d.Evidence, Can: d.Can,
		Form: form, CSRF: csrfToken(c), Now: s.app.Now()}
	shown := intParam(c.QueryParam("v"), 0)
	if shown == 0 {
		shown = sk.Pending
	}
	if shown == 0 {
		shown = sk.Version
	}
	if shown == 0 {
		shown = sk.Latest
	}
	v.Shown = d.Version(shown)
	if v.Shown == nil {
		return governance.Errorf(governance.ENOTFOUND, "Skill %s has no version %d.", sk.Name, shown)
	}
	if base := d.Version(sk.Version); base != nil && base.Version != v.Shown.Version {
		v.Base = base
		v.Diffs = skillDiffs(base.Content, v.Shown.Content)
	}
	for _, f := range v.Shown.Content.AllFiles() {
		fv := templates.SkillFileView{Path: f.Path, Bytes: len(f.Content), Binary: !f.Text(),
			Findings: governance.SkillFindingsIn(v.Shown.Findings, f.Path)}
		if !fv.Binary {
			fv.Text = string(f.Content)
		}
		v.Files = append(v.Files, fv)
	}
	if form.Action == "" {
		v.Form.SkillMD = v.Shown.Content.SkillMD
		v.Form.Should = strings.Join(v.Shown.Examples.Should, "\n")
		v.Form.ShouldNot = strings.Join(v.Shown.Examples.ShouldNot, "\n")
	}
	meta, err := s.meta(c, sk.Name, "skills")
	if err != nil {
		return err
	}
	return render(c, status, templates.SkillPage(meta, v))
}

// skillDiffs compares two versions file by file, line by line.
func skillDiffs(old, new governance.SkillContent) []templates.SkillFileDiff {
	var out []templates.SkillFileDiff
	seen := map[string]bool{}
	text := func(f governance.SkillFile) string {
		if f.Text() {
			return string(f.Content)
		}
		return fmt.Sprintf("(%d bytes)", len(f.Content))
	}
	for _, f := range new.AllFiles() {
		seen[f.Path] = true
		o, ok := old.File(f.Path)
		switch {
		case !ok:
			out = append(out, templates.SkillFileDiff{Path: f.Path, Change: "added", Diff: []templates.DiffSegment{{Op: "+", Text: text(f)}}})
		case string(o.Content) != string(f.Content):
			out = append(out, templates.SkillFileDiff{Path: f.Path, Change: "changed", Diff: diffFileLines(text(o), text(f))})
		}
	}
	for _, f := range old.AllFiles() {
		if !seen[f.Path] {
			out = append(out, templates.SkillFileDiff{Path: f.Path, Change: "removed", Diff: []templates.DiffSegment{{Op: "-", Text: text(f)}}})
		}
	}
	return out
}

// skillForm reads an action form on a skill.
func skillForm(c echo.Context, action string) templates.SkillForm {
	return templates.SkillForm{Action: action, SkillMD: c.FormValue("skill_md"), Should: c.FormValue("should"),
		ShouldNot: c.FormValue("should_not"), Reason: strings.TrimSpace(c.FormValue("reason")), Errors: templates.FieldErrors{}}
}

func skillPath(c echo.Context) (string, string, error) {
	slug, err := pathParam(c, "project")
	if err != nil {
		return "", "", err
	}
	name, err := pathParam(c, "name")
	return slug, name, err
}

// handleSkillDecide applies one decision: approve or reject the waiting
// version, mark stale, archive, restore, pin, unpin.
func (s *Server) handleSkillDecide(c echo.Context) error {
	ctx := c.Request().Context()
	slug, name, err := skillPath(c)
	if err != nil {
		return err
	}
	form := skillForm(c, c.FormValue("action"))
	sk, err := s.app.Skills.Decide(ctx, actorOf(ctx), app.ProjectSlug(slug), name, app.SkillDecisionInput{Action: form.Action,
		Version: c.FormValue("version"), Reason: form.Reason, Acknowledged: c.FormValue("acknowledged") == "yes"})
	if fe, ok := app.AsFieldErrors(err); ok {
		form.Errors = templates.FieldErrors(fe)
		return s.renderSkill(c, http.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	return s.done(c, templates.SkillURL(slug, name, 0), tr(c, "skill.flash.decided", "Name", sk.Name,
		"Status", enumLabel(c, "skill_status", string(sk.Status))))
}

// handleSkillEdit stores a reviewer's version of a skill as a proposal.
func (s *Server) handleSkillEdit(c echo.Context) error {
	ctx := c.Request().Context()
	slug, name, err := skillPath(c)
	if err != nil {
		return err
	}
	form := skillForm(c, "edit")
	saved, err := s.app.Skills.Edit(ctx, actorOf(ctx), app.ProjectSlug(slug), name, app.SkillEditInput{SkillMD: form.SkillMD, Should: form.Should,
		ShouldNot: form.ShouldNot, Reason: form.Reason})
	if fe, ok := app.AsFieldErrors(err); ok {
		form.Errors = templates.FieldErrors(fe)
		return s.renderSkill(c, http.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	msg := tr(c, "skill.flash.edited", "Name", name, "Version", saved.Version)
	if saved.Unchanged {
		msg = tr(c, "skill.flash.unchanged", "Name", name)
	}
	return s.done(c, templates.SkillURL(slug, name, saved.Version), msg)
}

// handleSkillCurate carries out the curator proposals a reviewer ticked.
func (s *Server) handleSkillCurate(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	if err := c.Request().ParseForm(); err != nil {
		return governance.Errorf(governance.EINVALID, "The form could not be read.")
	}
	stale, archive := curatorDays(c)
	changed, err := s.app.Skills.ApplyCurator(ctx, actorOf(ctx), app.ProjectSlug(slug), c.Request().Form["names"], stale, archive)
	if fe, ok := app.AsFieldErrors(err); ok {
		return s.renderSkillList(c, http.StatusUnprocessableEntity, templates.FieldErrors(fe))
	}
	if err != nil {
		return err
	}
	return s.done(c, templates.SkillsURL(slug), tr(c, "skill.flash.curated", "Count", len(changed)))
}

// handleSkillImportNew shows the upload form of skill folders.
func (s *Server) handleSkillImportNew(c echo.Context) error {
	return s.renderSkillImport(c, http.StatusOK, templates.SkillImportView{Project: c.QueryParam("project"), Activate: true})
}

func (s *Server) renderSkillImport(c echo.Context, status int, v templates.SkillImportView) error {
	ctx := c.Request().Context()
	projects, err := s.app.Projects.All(ctx, actorOf(ctx))
	if err != nil {
		return err
	}
	v.Projects, v.CSRF = projects, csrfToken(c)
	meta, err := s.meta(c, "Import skills", "skills")
	if err != nil {
		return err
	}
	return render(c, status, templates.SkillImportPage(meta, v))
}

// handleSkillImportCreate imports an uploaded zip or tar.gz of skill
// folders, all or nothing: an invalid folder rejects the upload with
// every problem named by folder and file.
func (s *Server) handleSkillImportCreate(c echo.Context) error {
	ctx := c.Request().Context()
	v := templates.SkillImportView{Project: strings.TrimSpace(c.FormValue("project")), Activate: c.FormValue("activate") == "yes"}
	fh, err := c.FormFile("file")
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return governance.Errorf(governance.ETOOLARGE, "%s", tr(c, "data.file_too_large", "MiB", mbe.Limit>>20))
		}
		v.Errors = templates.FieldErrors{"file": governance.Say("Upload a zip or tar.gz archive of skill folders.")}
		return s.renderSkillImport(c, http.StatusUnprocessableEntity, v)
	}
	file, err := fh.Open()
	if err != nil {
		return fmt.Errorf("web: open upload: %w", err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, transcript.MaxSkillArchiveBytes))
	if err != nil {
		return fmt.Errorf("web: read upload: %w", err)
	}
	res, err := s.app.Skills.ImportArchive(ctx, actorOf(ctx), app.ProjectSlug(v.Project), fh.Filename, data, v.Activate)
	var rejected *governance.SkillImportError
	if errors.As(err, &rejected) {
		v.Problems = rejected.Problems
		return s.renderSkillImport(c, http.StatusUnprocessableEntity, v)
	}
	if fe, ok := app.AsFieldErrors(err); ok {
		v.Errors = templates.FieldErrors(fe)
		return s.renderSkillImport(c, http.StatusUnprocessableEntity, v)
	}
	if err != nil {
		return err
	}
	for _, sv := range res.Saved {
		v.Rows = append(v.Rows, templates.SkillImportRow{Name: sv.Skill.Name, Version: sv.Version, Status: sv.Skill.Status,
			Findings: res.Findings[sv.Skill.Name], Created: sv.Created, Unchanged: sv.Unchanged, Activated: sv.Activated})
	}
	return s.renderSkillImport(c, http.StatusOK, v)
}

// handleSkillExport downloads a project's active skills as a zip laid out
// for one agent (claude, codex, hermes), each folder with its marker.
func (s *Server) handleSkillExport(c echo.Context) error {
	ctx := c.Request().Context()
	slug, err := pathParam(c, "project")
	if err != nil {
		return err
	}
	layout, err := transcript.ParseSkillLayout(strings.TrimSuffix(c.Param("layout"), ".zip"))
	if err != nil {
		return governance.Errorf(governance.ENOTFOUND, "No such skills layout.")
	}
	skills, err := s.app.Skills.Export(ctx, actorOf(ctx), app.ProjectSlug(slug))
	if err != nil {
		return err
	}
	data, err := transcript.SkillArchive(layout, layout.DefaultSkillsDir(), slug, skills)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-skills-%s.zip"`, slug, layout))
	return c.Blob(http.StatusOK, "application/zip", data)
}

// activeSkills counts a project's active skills for the export page (its
// reviewers and admins; nothing for others).
func (s *Server) activeSkills(c echo.Context, slug string) (int, error) {
	ctx := c.Request().Context()
	list, err := s.app.Skills.List(ctx, actorOf(ctx), app.SkillListInput{Project: app.ProjectSlug(slug), Status: string(governance.SkillActive), Limit: 1})
	if code := governance.ErrorCode(err); code == governance.EFORBIDDEN || code == governance.ENOTFOUND {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return list.Total, nil
}
