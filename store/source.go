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
	tx, err := s.BeginTx(ctx, nil)
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
	err = queryAll(ctx, s.read, `SELECT source_id, path, offset, lines, events, last_error, updated_at FROM source_files ORDER BY source_id, path`, nil,
		func(r scanner) error {
			var id int64
			f := &SourceFile{}
			if err := r.Scan(&id, &f.Path, &f.Offset, &f.Lines, &f.Events, &f.LastError, &f.UpdatedAt); err != nil {
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

// FindSourceFile returns a file's checkpoint; a file never seen starts at 0.
func (s *Store) FindSourceFile(ctx context.Context, sourceID int64, path string) (*SourceFile, error) {
	f := &SourceFile{Path: path}
	err := s.db.QueryRowContext(ctx, `SELECT offset, lines, events, last_error, updated_at FROM source_files WHERE source_id = ? AND path = ?`,
		sourceID, path).Scan(&f.Offset, &f.Lines, &f.Events, &f.LastError, &f.UpdatedAt)
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
	tx, err := s.BeginTx(ctx, nil)
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
// its checkpoint to offset and lines in the same transaction: a crash
// before the commit leaves both where they were, so the lines are read
// again and stored once. problem is recorded as the file's last error.
func (s *Store) ImportChunk(ctx context.Context, projectID, sourceID int64, path string, offset int64, lines int, problem string,
	produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.importStream(ctx, "", projectID, produce, func(ctx context.Context, tx *Tx, res *governance.ImportResult) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO source_files (source_id, path, offset, lines, events, last_error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (source_id, path) DO UPDATE SET offset = excluded.offset, lines = excluded.lines,
				events = events + excluded.events, last_error = excluded.last_error, updated_at = excluded.updated_at`,
			sourceID, path, offset, lines, res.Inserted, problem, formatTime(tx.now))
		if err != nil {
			return fmt.Errorf("store: checkpoint source file: %w", err)
		}
		return nil
	})
}

// FindSourceFileOffset returns a file's checkpoint: the byte offset after
// the last ingested line and the number of lines before it.
func (s *Store) FindSourceFileOffset(ctx context.Context, sourceID int64, path string) (int64, int, error) {
	f, err := s.FindSourceFile(ctx, sourceID, path)
	if err != nil {
		return 0, 0, err
	}
	return f.Offset, f.Lines, nil
}
