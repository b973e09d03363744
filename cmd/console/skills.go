package main

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// skills runs "console skills import DIR --project P [--activate]" and
// "console skills list --project P": skill folders in the Agent Skills
// format (docs/skills.md). Writing active skills back is console sync's.
func (e *cmdEnv) skills(args []string) error {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	fs, cfg, envErr := e.flags("skills "+sub, "skills import DIR --project SLUG [--activate] [--create] | skills list --project SLUG")
	project := fs.String("project", "", "project slug (required)")
	activate := fs.Bool("activate", false, "activate the skills the risk review finds nothing in (the others wait for a reviewer)")
	create := fs.Bool("create", false, "create the project if it does not exist")
	m, pos, err := e.open(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	defer m.Close()
	if *project == "" {
		fs.Usage()
		return e.fail("skills needs --project")
	}
	switch sub {
	case "import":
		if len(pos) != 1 {
			fs.Usage()
			return e.fail("skills import needs one DIR")
		}
		dir, err := filepath.Abs(pos[0])
		if err != nil {
			return err
		}
		if _, err := m.Store.FindProjectBySlug(e.ctx, *project); governance.ErrorCode(err) == governance.ENOTFOUND && *create {
			if err := m.Store.CreateProject(e.ctx, &governance.Project{Slug: *project, Name: *project}); err != nil {
				return errors.New(e.loc.ErrorMessage(err))
			}
		}
		res, err := m.App.Skills.ImportDir(e.ctx, cliActor, app.ProjectSlug(*project), dir, *activate, false)
		var rejected *governance.SkillImportError
		if errors.As(err, &rejected) {
			e.say(e.stderr, "%s: skills rejected, nothing written:", dir)
			for _, p := range rejected.Problems {
				e.say(e.stderr, "  %s/%s: %s", p.Where, p.File, e.loc.Text(p.Sentence()))
			}
			return errSilent
		}
		if fe, ok := app.AsFieldErrors(err); ok {
			return e.fail("project %s: %s (use --create to create it)", *project, e.loc.Text(fe["project"]))
		}
		if err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
		for _, s := range res.Saved {
			status := e.loc.Enum("skill_status", string(s.Skill.Status))
			if s.Unchanged {
				e.say(e.stdout, "Skill %s: unchanged (version %d, %s).", s.Skill.Name, s.Version, status)
				continue
			}
			e.say(e.stdout, "Skill %s: version %d, %s, %d finding(s).", s.Skill.Name, s.Version, status, res.Findings[s.Skill.Name])
		}
		return nil
	case "list":
		list, err := m.App.Skills.List(e.ctx, cliActor, app.SkillListInput{Project: app.ProjectSlug(*project)})
		if err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
		rows := [][]string{{e.loc.T("skill.name"), e.loc.T("rules.status"), e.loc.T("skill.version"), e.loc.T("skill.uses"), e.loc.T("skill.findings")}}
		for _, s := range list.Skills {
			rows = append(rows, []string{s.Name, e.loc.Enum("skill_status", string(s.Status)), e.loc.Number(s.Version),
				e.loc.Number(s.Uses), e.loc.Number(s.Findings)})
		}
		return table(e.stdout, rows)
	}
	fs.Usage()
	return e.fail("unknown skills command %q (want import or list)", sub)
}

// syncSkills writes a project's active skills into a skills directory
// (console sync): folders the console manages are updated, any other is
// left alone.
func (e *cmdEnv) syncSkills(m *Main, project, to, dir, layoutName string) error {
	if dir == "none" {
		return nil
	}
	layout, err := transcript.ParseSkillLayout(layoutName)
	if err != nil {
		return e.fail("unknown skills layout %q (want claude, codex or hermes)", layoutName)
	}
	if dir == "" {
		dir = filepath.Join(to, layout.DefaultSkillsDir())
	}
	skills, err := m.App.Skills.Export(e.ctx, cliActor, app.ProjectSlug(project))
	if err != nil {
		return errors.New(e.loc.ErrorMessage(err))
	}
	if _, err := os.Stat(dir); len(skills) == 0 && err != nil {
		return nil // nothing to write, and no managed folder to take back
	}
	rep, err := transcript.WriteSkills(dir, layout, project, skills)
	if err != nil {
		return errors.New(e.loc.T("msg.labelled", "Label", dir, "Text", err.Error()))
	}
	for _, f := range rep.Written {
		e.say(e.stdout, "Wrote skill %s.", filepath.Join(dir, f))
	}
	for _, f := range rep.Removed {
		e.say(e.stdout, "Removed skill %s: it is no longer active.", filepath.Join(dir, f))
	}
	for f, why := range rep.Skipped {
		e.say(e.stdout, "Left %s alone: %s", filepath.Join(dir, f), e.loc.Text(why))
	}
	if len(rep.Unchanged) > 0 {
		e.say(e.stdout, "%d skill(s) already up to date in %s.", len(rep.Unchanged), dir)
	}
	return nil
}

// followActor imports the skill folders of followed directories: the
// administrator who added the directory asked for it.
var followActor = governance.AccountActor(&governance.Account{Username: "follow", IsAdmin: true})

// followedSkills remembers, per skill folder of the followed directories,
// the names, sizes and times of its files when last imported, so a poll
// imports only folders that changed.
type followedSkills map[string]string

// follow is the Follower hook of one source: it imports the changed
// skill folders found under its directory (the valid ones; a folder's
// problems are kept as its SKILL.md's problem on the Sources page).
func (fs followedSkills) follow(m *Main, src *governance.FollowSource) func(ctx context.Context, dirs []string) error {
	return func(ctx context.Context, dirs []string) error {
		var folders []governance.SkillFolder
		var changed []string
		for _, dir := range dirs {
			sig := folderSignature(dir)
			if fs[dir] == sig {
				continue
			}
			f, err := transcript.ReadSkillFolder(src.Dir, dir)
			if err != nil {
				continue
			}
			folders = append(folders, f)
			changed = append(changed, dir)
		}
		if len(folders) == 0 {
			return nil
		}
		res, err := m.App.Skills.Import(ctx, followActor, app.SkillImportInput{Project: app.ProjectSlug(src.Project), Folders: folders,
			Source: src.Dir, Partial: true})
		if err != nil {
			return err
		}
		bad := map[string]string{}
		for _, p := range res.Problems {
			bad[p.Where] = p.Message
		}
		for i, dir := range changed {
			rel := folders[i].Where
			if msg, ok := bad[rel]; ok {
				_ = m.Store.SetSourceFileError(ctx, src.ID, filepath.ToSlash(filepath.Join(rel, governance.SkillFileName)), msg)
				continue
			}
			fs[dir] = folderSignature(dir)
		}
		return nil
	}
}

// folderSignature is the names, sizes and modification times of a
// folder's files.
func folderSignature(dir string) string {
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(&b, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// seedSkills imports a demo project's skill folders as the seed's
// administrator: the clean ones active, the others waiting for a reviewer.
func (m *Main) seedSkills(ctx context.Context, project string, folders []governance.SkillFolder) error {
	_, err := m.App.Skills.Import(ctx, cliActor, app.SkillImportInput{Project: app.ProjectSlug(project), Folders: folders,
		Source: "demo", Activate: true})
	return err
}
