package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// FollowStore keeps a followed file's checkpoint with its events
// (store.Store implements it).
type FollowStore interface {
	FindSourceFileOffset(ctx context.Context, sourceID int64, path string) (offset int64, lines int, err error)
	ImportChunk(ctx context.Context, projectID, sourceID int64, path string, offset int64, lines int, problem string,
		produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error)
	SetSourceFileError(ctx context.Context, sourceID int64, path, problem string) error
}

// Limits of follow mode.
const (
	// DefaultMaxFiles bounds the files followed in one directory tree.
	DefaultMaxFiles = 2000
	// DefaultMaxChunkBytes bounds what one poll reads of one file (the rate
	// limit: a large backlog is read over several polls).
	DefaultMaxChunkBytes = 8 << 20
)

// Follower follows a directory of JSON Lines session files (Claude Code
// transcripts, Codex rollouts, any line format): each poll reads what was
// appended to each file since its checkpoint, up to the last complete line,
// and stores the events and the new checkpoint in one transaction. A
// restart resumes at the checkpoint, so no line is lost or stored twice.
// Malformed lines are skipped and recorded as the file's last error (a
// live file cannot be rejected whole). Sessions end by the heartbeat's idle
// time, or by the source's own end events.
type Follower struct {
	Store     FollowStore
	SourceID  int64
	ProjectID int64
	Dir       string
	Options   Options
	// MaxFiles and MaxChunkBytes default to DefaultMaxFiles and
	// DefaultMaxChunkBytes.
	MaxFiles      int
	MaxChunkBytes int64
}

// PollResult says what one poll did.
type PollResult struct {
	Files    int
	Inserted int
	Problems []string
}

// Poll reads every followed file once.
func (f *Follower) Poll(ctx context.Context) (*PollResult, error) {
	maxFiles := f.MaxFiles
	if maxFiles <= 0 {
		maxFiles = DefaultMaxFiles
	}
	var paths []string
	err := filepath.WalkDir(f.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") && !strings.HasSuffix(d.Name(), ".ndjson") {
			return nil
		}
		paths = append(paths, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("transcript: follow %s: %w", f.Dir, err)
	}
	slices.Sort(paths)
	res := &PollResult{}
	if len(paths) > maxFiles {
		res.Problems = append(res.Problems, fmt.Sprintf("%d files; following the first %d", len(paths), maxFiles))
		paths = paths[:maxFiles]
	}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		n, problem, err := f.pollFile(ctx, p)
		if err != nil {
			return res, err
		}
		res.Files++
		res.Inserted += n
		if problem != "" {
			res.Problems = append(res.Problems, p+": "+problem)
		}
	}
	return res, nil
}

// pollFile ingests what was appended to one file since its checkpoint.
func (f *Follower) pollFile(ctx context.Context, path string) (int, string, error) {
	rel, err := filepath.Rel(f.Dir, path)
	if err != nil {
		rel = path
	}
	rel = filepath.ToSlash(rel)
	offset, lineCount, err := f.Store.FindSourceFileOffset(ctx, f.SourceID, rel)
	if err != nil {
		return 0, "", err
	}
	fh, err := os.Open(path)
	if err != nil {
		return 0, err.Error(), f.Store.SetSourceFileError(ctx, f.SourceID, rel, err.Error())
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, "", err
	}
	if st.Size() < offset {
		// Truncated or replaced: read it again from the start; ids that are
		// already stored are skipped.
		offset, lineCount = 0, 0
	}
	if st.Size() == offset {
		return 0, "", nil
	}
	limit := f.MaxChunkBytes
	if limit <= 0 {
		limit = DefaultMaxChunkBytes
	}
	avail := st.Size() - offset
	buf := make([]byte, min(limit, avail))
	n, err := fh.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, "", fmt.Errorf("transcript: read %s: %w", path, err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	problem := ""
	if end < 0 {
		if avail < limit {
			return 0, "", nil // a line still being written
		}
		// No end of line within the limit: skip the over-long line.
		problem = fmt.Sprintf("line %d is longer than %d bytes; skipped", lineCount+1, len(buf))
		return 0, problem, f.skipLongLine(ctx, fh, rel, offset+int64(n), lineCount, problem)
	}
	chunk := buf[:end+1]
	newLines := lineCount + bytes.Count(chunk, []byte{'\n'})
	opts := f.Options
	opts.Name, opts.LineOffset, opts.SkipMalformed = path, lineCount, true
	var rep *Report
	ires, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, offset+int64(len(chunk)), newLines, "",
		func(emit func(*governance.Event) error) error {
			var perr error
			rep, perr = Parse(ctx, bytes.NewReader(chunk), opts, emit)
			if perr != nil {
				return perr
			}
			if rep.MalformedCount > 0 {
				var b strings.Builder
				fmt.Fprintf(&b, "%d malformed line(s) skipped:", rep.MalformedCount)
				for _, l := range rep.Malformed {
					fmt.Fprintf(&b, " line %d (%s);", l.Line, strings.Join(l.Problems, "; "))
				}
				problem = strings.TrimSuffix(b.String(), ";")
			}
			return nil
		})
	if err != nil {
		msg := governance.ErrorMessage(err)
		return 0, msg, f.Store.SetSourceFileError(ctx, f.SourceID, rel, msg)
	}
	if problem != "" {
		if err := f.Store.SetSourceFileError(ctx, f.SourceID, rel, problem); err != nil {
			return 0, "", err
		}
	}
	return ires.Inserted, problem, nil
}

// skipLongLine moves the checkpoint past the next end of line after from.
func (f *Follower) skipLongLine(ctx context.Context, fh *os.File, rel string, from int64, lineCount int, problem string) error {
	buf := make([]byte, 64<<10)
	for pos := from; ; {
		n, err := fh.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			_, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, pos+int64(i)+1, lineCount+1, problem,
				func(func(*governance.Event) error) error { return nil })
			return err
		}
		pos += int64(n)
		if err != nil {
			return f.Store.SetSourceFileError(ctx, f.SourceID, rel, problem) // the line's end is not written yet
		}
	}
}

// Run polls every interval until ctx is cancelled; report receives each
// poll's result (or error), which never stops the loop.
func (f *Follower) Run(ctx context.Context, interval time.Duration, report func(*PollResult, error)) error {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		res, err := f.Poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if report != nil {
			report(res, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
