package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// SourceStore keeps the followed directories and their checkpoints.
type SourceStore interface {
	EnsureSource(ctx context.Context, src *governance.FollowSource) error
	FindSources(ctx context.Context) ([]*governance.FollowSource, error)
	StopSource(ctx context.Context, id int64, actor string) (*governance.FollowSource, error)
	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
}

// Sources are the use cases of follow mode: the directories of agent
// session files the console ingests as they grow. Administrators only.
type Sources struct {
	store    SourceStore
	projects Projects
	// roots, when not nil, are the only directories (and their
	// subdirectories) Ensure accepts: an administrator in the browser
	// must not turn the server's files into memory (RestrictFollowRoots).
	roots []string
}

// RestrictFollowRoots makes Sources.Ensure accept only directories under
// one of roots (after symbolic links are resolved), and none when roots is
// empty. The console's server sets it from --follow-root; the CLI's watch,
// run by the operator on the machine, is not restricted.
func (a *App) RestrictFollowRoots(roots []string) {
	a.Sources.roots = make([]string, 0, len(roots))
	for _, r := range roots {
		if r = strings.TrimSpace(r); r != "" {
			a.Sources.roots = append(a.Sources.roots, filepath.Clean(r))
		}
	}
}

// Roots returns the directories under which Ensure follows, nil when any
// directory may be followed.
func (ss Sources) Roots() []string { return ss.roots }

// allowed reports whether dir lies under one of the roots, comparing the
// paths with their symbolic links resolved (a link inside a root may not
// lead out of it). A root that does not exist allows nothing.
func (ss Sources) allowed(dir string) bool {
	if ss.roots == nil {
		return true
	}
	_, ok := transcript.UnderRoot(dir, ss.roots)
	return ok
}

// List lists the followed directories with each file's checkpoint and
// last problem, and which files are databases (their checkpoint is a row
// id, not a byte offset).
func (ss Sources) List(ctx context.Context, actor governance.Actor) ([]*governance.FollowSource, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	sources, err := ss.store.FindSources(ctx)
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		for _, f := range src.Files {
			f.Database = transcript.FollowsAsDatabase(transcript.Format(src.Format), f.Path)
		}
	}
	return sources, nil
}

// SourceInput is a directory to follow, as the sources page or console
// watch gives it.
type SourceInput struct {
	// Project is the project's slug.
	Project string
	// Dir is the absolute path of a directory this process can read.
	Dir string
	// Format is a format's name ("auto" or "" detects each file's; a
	// Hermes state.db in the directory is followed too).
	Format string
	// SubjectID is the subject of events whose file names none.
	SubjectID string
}

// Ensure follows in.Dir for a project (or updates the format and subject
// of the directory already followed there). Bad input is FieldErrors on
// project, format, dir and subject; the source is returned with its id.
func (ss Sources) Ensure(ctx context.Context, actor governance.Actor, in SourceInput) (*governance.FollowSource, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	errs := FieldErrors{}
	var p *governance.Project
	if in.Project == "" {
		errs["project"] = governance.Say("Choose a project.")
	} else if found, err := ss.projects.store.FindProjectBySlug(ctx, in.Project); err == nil {
		p = found
	} else if governance.ErrorCode(err) == governance.ENOTFOUND {
		errs["project"] = governance.Say("Choose a project.")
	} else {
		return nil, err
	}
	format, err := transcript.ParseFormat(in.Format)
	if err != nil {
		errs["format"] = governance.Say("Choose a format.")
	}
	dir := filepath.Clean(in.Dir)
	if st, err := os.Stat(dir); strings.TrimSpace(in.Dir) == "" || !filepath.IsAbs(dir) || err != nil || !st.IsDir() {
		errs["dir"] = governance.Say("Give the absolute path of a directory the server can read.")
	} else if !ss.allowed(dir) {
		if len(ss.roots) == 0 {
			errs["dir"] = governance.Say("This console follows no directory from the browser; its operator can allow some with --follow-root.")
		} else {
			errs["dir"] = governance.Say("Directories are followed only under %s.", strings.Join(ss.roots, ", "))
		}
	}
	if len(in.SubjectID) > governance.MaxIDBytes {
		errs["subject"] = governance.Say("The subject id is too long.")
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if ss.roots != nil {
		// Kept with its links resolved, so it lies under its root by its
		// name: a link on the path retargeted later cannot carry the
		// directory out (transcript.Follower refuses it).
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
	}
	src := &governance.FollowSource{ProjectID: p.ID, Project: p.Slug, Dir: dir, Format: string(format), SubjectID: in.SubjectID}
	if err := ss.store.EnsureSource(ctx, src); err != nil {
		return nil, err
	}
	// Following a directory turns the files in it into memory: who chose
	// which directory is audited (its subject by its keyed reference).
	details, _ := json.Marshal(map[string]string{"dir": dir, "format": string(format)})
	if err := ss.store.AppendAudit(ctx, &governance.AuditEntry{Actor: actor.Name(), Action: "source.follow", ObjectType: "source",
		ObjectID: fmt.Sprint(src.ID), ProjectID: p.ID, Details: string(details), Subject: in.SubjectID}); err != nil {
		return nil, err
	}
	return src, nil
}

// Get returns one followed directory with its files (ENOTFOUND when it is
// not followed).
func (ss Sources) Get(ctx context.Context, actor governance.Actor, id int64) (*governance.FollowSource, error) {
	sources, err := ss.List(ctx, actor)
	if err != nil {
		return nil, err
	}
	for _, src := range sources {
		if src.ID == id {
			return src, nil
		}
	}
	return nil, governance.Errorf(governance.ENOTFOUND, "%s not found.", "Followed directory")
}

// Stop stops following a directory: the follow loop reads it no more from
// its next tick, and its files' checkpoints are deleted (following it
// again reads its files from the start, and the events already imported
// are skipped as duplicates). The events imported from it stay, and so do
// the memories made of them. Audited (source.stop).
func (ss Sources) Stop(ctx context.Context, actor governance.Actor, id int64) (*governance.FollowSource, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	return ss.store.StopSource(ctx, id, actor.Name())
}
