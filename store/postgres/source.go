package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// EnsureSource registers a followed directory (or returns the one already
// registered for the project and directory, with its format updated).
func (s *Store) EnsureSource(ctx context.Context, src *governance.FollowSource) error {
	err := s.pool.QueryRow(ctx, `
		INSERT INTO sources (project_id, dir, format, subject_id, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (project_id, dir) DO UPDATE SET format = excluded.format, subject_id = excluded.subject_id
		RETURNING id`, src.ProjectID, src.Dir, src.Format, src.SubjectID, utc(s.Now())).Scan(&src.ID)
	if err != nil {
		return fmt.Errorf("postgres: ensure source: %w", mapError(err, "Source"))
	}
	return nil
}

// FindSources lists the followed directories with their files.
func (s *Store) FindSources(ctx context.Context) ([]*governance.FollowSource, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.id, s.project_id, p.slug, s.dir, s.format, s.subject_id
		FROM sources s JOIN projects p ON p.id = s.project_id ORDER BY p.slug COLLATE "C", s.dir COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres: find sources: %w", err)
	}
	defer rows.Close()
	var out []*governance.FollowSource
	byID := map[int64]*governance.FollowSource{}
	for rows.Next() {
		src := &governance.FollowSource{}
		if err := rows.Scan(&src.ID, &src.ProjectID, &src.Project, &src.Dir, &src.Format, &src.SubjectID); err != nil {
			return nil, fmt.Errorf("postgres: find sources: %w", err)
		}
		out = append(out, src)
		byID[src.ID] = src
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	frows, err := s.pool.Query(ctx, `SELECT source_id, `+sourceFileColumns+`
		FROM source_files ORDER BY source_id, path COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres: find source files: %w", err)
	}
	defer frows.Close()
	for frows.Next() {
		var (
			id      int64
			f       governance.FollowFile
			updated time.Time
		)
		if err := frows.Scan(append([]any{&id}, sourceFileFields(&f, &updated)...)...); err != nil {
			return nil, fmt.Errorf("postgres: find source files: %w", err)
		}
		f.UpdatedAt = formatTime(updated)
		if src := byID[id]; src != nil {
			src.Files = append(src.Files, &f)
		}
	}
	return out, frows.Err()
}

// StopSource stops following a directory: the source and its files'
// checkpoints are deleted and a source.stop audit row written, in one
// transaction. The events already imported from it stay. It returns the
// source as it was, with its files; ENOTFOUND when there is none. A poll
// under way when it stops stores nothing more (its checkpoint has no
// source to belong to, so its chunk is rolled back).
func (s *Store) StopSource(ctx context.Context, id int64, actor string) (*governance.FollowSource, error) {
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.rollback()
	// FOR UPDATE: two administrators stopping it at once write one audit row.
	src := &governance.FollowSource{ID: id}
	err = tx.QueryRow(ctx, `SELECT s.project_id, p.slug, s.dir, s.format, s.subject_id
		FROM sources s JOIN projects p ON p.id = s.project_id WHERE s.id = $1 FOR UPDATE OF s`, id).
		Scan(&src.ProjectID, &src.Project, &src.Dir, &src.Format, &src.SubjectID)
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "%s not found.", "Followed directory")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: stop source: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT `+sourceFileColumns+` FROM source_files WHERE source_id = $1 ORDER BY path COLLATE "C"`, id)
	if err != nil {
		return nil, fmt.Errorf("postgres: stop source: %w", err)
	}
	for rows.Next() {
		var (
			f       governance.FollowFile
			updated time.Time
		)
		if err := rows.Scan(sourceFileFields(&f, &updated)...); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres: stop source: %w", err)
		}
		f.UpdatedAt = formatTime(updated)
		src.Files = append(src.Files, &f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: stop source: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM sources WHERE id = $1`, id); err != nil {
		return nil, fmt.Errorf("postgres: stop source: %w", err)
	}
	if err := appendAudit(ctx, tx, src.StopAudit(actor)); err != nil {
		return nil, err
	}
	return src, tx.Commit(ctx)
}

// FindSourceFile returns a file's checkpoint; a file never seen starts at 0.
func (s *Store) FindSourceFile(ctx context.Context, sourceID int64, path string) (*governance.FollowFile, error) {
	f := &governance.FollowFile{Path: path}
	var updated time.Time
	err := s.pool.QueryRow(ctx, `SELECT `+sourceFileColumns+` FROM source_files WHERE source_id = $1 AND path = $2`,
		sourceID, path).Scan(sourceFileFields(f, &updated)...)
	if isNoRows(err) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find source file: %w", err)
	}
	f.UpdatedAt = formatTime(updated)
	return f, nil
}

// SetSourceFileError records a file's latest problem ("" clears it)
// without moving its checkpoint.
func (s *Store) SetSourceFileError(ctx context.Context, sourceID int64, path, problem string) error {
	_, err := s.pool.Exec(ctx, `
		INSERT INTO source_files (source_id, path, last_error, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (source_id, path) DO UPDATE SET last_error = excluded.last_error, updated_at = excluded.updated_at`,
		sourceID, path, problem, utc(s.Now()))
	if err != nil {
		return fmt.Errorf("postgres: set source file error: %w", mapError(err, "Source file"))
	}
	return nil
}

// ImportChunk stores the events of a followed file's new lines and moves
// its checkpoint to cp in the same transaction: a crash before the commit
// leaves both where they were, so the lines are read again and stored
// once. problem is recorded as the file's last error. An event emitted
// with the id reopen (the message the previous poll left open, read again
// from its first line) replaces the stored text when it extends it.
func (s *Store) ImportChunk(ctx context.Context, projectID, sourceID int64, path string, cp governance.FollowCheckpoint, reopen, problem string,
	produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.importStream(ctx, "", projectID, reopen, produce, func(ctx context.Context, tx *Tx, res *governance.ImportResult) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO source_files AS f (source_id, path, "offset", lines, open_id, open_offset, open_lines, ended_mark, events, last_error, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (source_id, path) DO UPDATE SET "offset" = excluded."offset", lines = excluded.lines,
				open_id = excluded.open_id, open_offset = excluded.open_offset, open_lines = excluded.open_lines,
				ended_mark = excluded.ended_mark, events = f.events + excluded.events, last_error = excluded.last_error,
				updated_at = excluded.updated_at`,
			sourceID, path, cp.Offset, cp.Lines, cp.OpenID, cp.OpenOffset, cp.OpenLines, cp.EndedMark, res.Inserted, problem, tx.now)
		if err != nil {
			return fmt.Errorf("postgres: checkpoint source file: %w", mapError(err, "Source file"))
		}
		return nil
	})
}

// sourceFileColumns are read into a FollowFile by sourceFileFields.
const sourceFileColumns = `path, "offset", lines, open_id, open_offset, open_lines, ended_mark, events, last_error, updated_at`

func sourceFileFields(f *governance.FollowFile, updated *time.Time) []any {
	return []any{&f.Path, &f.Offset, &f.Lines, &f.OpenID, &f.OpenOffset, &f.OpenLines, &f.EndedMark, &f.Events, &f.LastError, updated}
}

// formatTime is the text form of a time in the domain's string fields:
// UTC RFC 3339, as the SQLite store keeps it.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
