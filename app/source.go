package app

import (
	"context"
	"path/filepath"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// SourceStore keeps the followed directories and their checkpoints.
type SourceStore interface {
	EnsureSource(ctx context.Context, src *governance.FollowSource) error
	FindSources(ctx context.Context) ([]*governance.FollowSource, error)
}

// Sources are the use cases of follow mode: the directories of agent
// session files the console ingests as they grow. Administrators only.
type Sources struct {
	store    SourceStore
	projects Projects
}

// List lists the followed directories with each file's checkpoint and
// last problem.
func (ss Sources) List(ctx context.Context, actor governance.Actor) ([]*governance.FollowSource, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	return ss.store.FindSources(ctx)
}

// Ensure follows src.Dir for project src.ProjectID (or updates the format
// and subject of the directory already followed there) and sets src.ID.
// The directory must be an absolute path and the format a line format (a
// Hermes state.db is imported, not followed). Whether the directory exists
// is the caller's to check: the server and the CLI see different files.
func (ss Sources) Ensure(ctx context.Context, actor governance.Actor, src *governance.FollowSource) error {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return err
	}
	format, err := transcript.ParseFormat(src.Format)
	if err != nil {
		return err
	}
	if format == transcript.FormatHermes {
		return governance.Errorf(governance.EINVALID, "A Hermes state.db is imported, not followed.")
	}
	if src.Dir == "" || !filepath.IsAbs(src.Dir) {
		return governance.Errorf(governance.EINVALID, "Give the absolute path of a directory.")
	}
	if len(src.SubjectID) > governance.MaxIDBytes {
		return governance.Errorf(governance.EINVALID, "The subject id is too long.")
	}
	if _, err := ss.projects.store.FindProjectByID(ctx, src.ProjectID); err != nil {
		return err
	}
	src.Dir, src.Format = filepath.Clean(src.Dir), string(format)
	return ss.store.EnsureSource(ctx, src)
}
