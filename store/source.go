package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// Source is a followed directory of agent session files.
type Source = governance.FollowSource

// SourceFile is how far one file of a source has been ingested.
type SourceFile = governance.FollowFile

// EnsureSource registers a followed directory (or returns the one already
// registered for the project and directory, with its format updated).
func (s *Store) EnsureSource(ctx context.Context, src *Source) error {
	tx, err := s.begin(ctx, "EnsureSource")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `
		INSERT INTO sources (project_id, dir, format, subject_id, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (project_id, dir) DO UPDATE SET format = excluded.format, subject_id = excluded.subject_id
		RETURNING id`, src.ProjectID, src.Dir, src.Format, src.SubjectID, formatTime(tx.now)).Scan(&src.ID)
	if err != nil {
		return fmt.Errorf("store: ensure source: %w", err)
	}
	return tx.Commit()
}

// FindSources lists the followed directories with their files.
func (s *Store) FindSources(ctx context.Context) ([]*Source, error) {
	var out []*Source
	byID := map[int64]*Source{}
	err := queryAll(ctx, s.read, `SELECT s.id, s.project_id, p.slug, s.dir, s.format, s.subject_id
		FROM sources s JOIN projects p ON p.id = s.project_id ORDER BY p.slug, s.dir`, nil, func(r scanner) error {
		src := &Source{}
		if err := r.Scan(&src.ID, &src.ProjectID, &src.Project, &src.Dir, &src.Format, &src.SubjectID); err != nil {
			return err
		}
		out = append(out, src)
		byID[src.ID] = src
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: find sources: %w", err)
	}
	err = queryAll(ctx, s.read, `SELECT source_id, `+sourceFileColumns+` FROM source_files ORDER BY source_id, path`, nil,
		func(r scanner) error {
			var id int64
			f := &SourceFile{}
			if err := r.Scan(append([]any{&id}, sourceFileFields(f)...)...); err != nil {
				return err
			}
			if src := byID[id]; src != nil {
				src.Files = append(src.Files, f)
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("store: find source files: %w", err)
	}
	return out, nil
}

// StopSource stops following a directory: the source and its files'
// checkpoints are deleted and a source.stop audit row written, in one
// transaction. The events already imported from it stay. It returns the
// source as it was, with its files; ENOTFOUND when there is none. A poll
// under way when it stops stores nothing more (its checkpoint has no
// source to belong to, so its chunk is rolled back).
func (s *Store) StopSource(ctx context.Context, id int64, actor string) (*Source, error) {
	tx, err := s.begin(ctx, "StopSource")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	src := &Source{ID: id}
	err = tx.QueryRowContext(ctx, `SELECT s.project_id, p.slug, s.dir, s.format, s.subject_id
		FROM sources s JOIN projects p ON p.id = s.project_id WHERE s.id = ?`, id).
		Scan(&src.ProjectID, &src.Project, &src.Dir, &src.Format, &src.SubjectID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, governance.Errorf(governance.ENOTFOUND, "%s not found.", "Followed directory")
	}
	if err != nil {
		return nil, fmt.Errorf("store: stop source: %w", err)
	}
	err = queryAll(ctx, tx, `SELECT `+sourceFileColumns+` FROM source_files WHERE source_id = ? ORDER BY path`, []any{id},
		func(r scanner) error {
			f := &SourceFile{}
			if err := r.Scan(sourceFileFields(f)...); err != nil {
				return err
			}
			src.Files = append(src.Files, f)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("store: stop source: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sources WHERE id = ?`, id); err != nil {
		return nil, fmt.Errorf("store: stop source: %w", err)
	}
	if err := appendAudit(ctx, tx, src.StopAudit(actor)); err != nil {
		return nil, err
	}
	return src, tx.Commit()
}

// FindSourceFile returns a file's checkpoint; a file never seen starts at 0.
func (s *Store) FindSourceFile(ctx context.Context, sourceID int64, path string) (*SourceFile, error) {
	f := &SourceFile{Path: path}
	err := s.db.QueryRowContext(ctx, `SELECT `+sourceFileColumns+` FROM source_files WHERE source_id = ? AND path = ?`,
		sourceID, path).Scan(sourceFileFields(f)...)
	if errors.Is(err, sql.ErrNoRows) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: find source file: %w", err)
	}
	return f, nil
}

// SetSourceFileError records a file's latest problem ("" clears it)
// without moving its checkpoint.
func (s *Store) SetSourceFileError(ctx context.Context, sourceID int64, path, problem string) error {
	tx, err := s.begin(ctx, "SetSourceFileError")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO source_files (source_id, path, last_error, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (source_id, path) DO UPDATE SET last_error = excluded.last_error, updated_at = excluded.updated_at`,
		sourceID, path, problem, formatTime(tx.now)); err != nil {
		return fmt.Errorf("store: set source file error: %w", err)
	}
	return tx.Commit()
}

// ImportChunk stores the events of a followed file's new lines and moves
// its checkpoint to cp in the same transaction: a crash before the commit
// leaves both where they were, so the lines are read again and stored
// once. problem is recorded as the file's last error. reopen is the id of
// the message left open by the previous poll (its OpenID), which this
// chunk reads again from its first line: when the chunk emits that id with
// a longer text, the stored event's text is replaced (unless a forget has
// redacted it) and counted as replaced, not skipped.
func (s *Store) ImportChunk(ctx context.Context, projectID, sourceID int64, path string, cp governance.FollowCheckpoint, reopen, problem string,
	produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.importStream(ctx, "ImportChunk", "", projectID, reopen, produce, func(ctx context.Context, tx *Tx, res *governance.ImportResult) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO source_files (source_id, path, offset, lines, open_id, open_offset, open_lines, ended_mark, events, last_error, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (source_id, path) DO UPDATE SET offset = excluded.offset, lines = excluded.lines,
				open_id = excluded.open_id, open_offset = excluded.open_offset, open_lines = excluded.open_lines,
				ended_mark = excluded.ended_mark, events = events + excluded.events, last_error = excluded.last_error,
				updated_at = excluded.updated_at`,
			sourceID, path, cp.Offset, cp.Lines, cp.OpenID, cp.OpenOffset, cp.OpenLines, cp.EndedMark, res.Inserted, problem, formatTime(tx.now))
		if err != nil {
			return fmt.Errorf("store: checkpoint source file: %w", err)
		}
		return nil
	})
}

// sourceFileColumns are read into a SourceFile by sourceFileFields.
const sourceFileColumns = `path, offset, lines, open_id, open_offset, open_lines, ended_mark, events, last_error, updated_at`

func sourceFileFields(f *SourceFile) []any {
	return []any{&f.Path, &f.Offset, &f.Lines, &f.OpenID, &f.OpenOffset, &f.OpenLines, &f.EndedMark, &f.Events, &f.LastError, &f.UpdatedAt}
}
