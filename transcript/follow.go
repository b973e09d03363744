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
	FindSourceFile(ctx context.Context, sourceID int64, path string) (*governance.FollowFile, error)
	ImportChunk(ctx context.Context, projectID, sourceID int64, path string, cp governance.FollowCheckpoint, reopen, problem string,
		produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error)
	SetSourceFileError(ctx context.Context, sourceID int64, path, problem string) error
	FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error)
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
// transcripts, Codex rollouts, any line format) and Hermes databases
// (state.db; see FollowHermes): each poll reads what was
// appended to each file since its checkpoint, up to the last complete line,
// and stores the events and the new checkpoint in one transaction. A
// restart resumes at the checkpoint, so no line is lost or stored twice.
// Malformed lines are skipped and recorded as the file's last error (a
// live file cannot be rejected whole). Sessions end by the source's own
// end signals where the format has them (Claude Code's /exit, /quit and
// /clear; Hermes's sessions.ended_at), otherwise by the heartbeat's idle
// time: a Codex rollout records the end of each turn but never the end of
// the session, and a resume appends to the same file (see parseCodex).
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
	// Skills, when set, is handed the skill folders (a folder holding a
	// SKILL.md) found under Dir on each poll (skills.go).
	Skills func(ctx context.Context, dirs []string) error
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
	var paths, skillDirs []string
	err := filepath.WalkDir(f.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (isLineFile(d.Name()) || f.isHermesFile(d.Name())) {
			paths = append(paths, path)
		}
		if f.Skills != nil && d.Type().IsRegular() && d.Name() == governance.SkillFileName {
			skillDirs = append(skillDirs, filepath.Dir(path))
		}
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
		poll := f.pollFile
		if f.isHermesFile(filepath.Base(p)) {
			poll = f.pollHermes
		}
		n, problem, err := poll(ctx, p)
		if err != nil {
			return res, err
		}
		res.Files++
		res.Inserted += n
		if problem != "" {
			res.Problems = append(res.Problems, p+": "+problem)
		}
	}
	if len(skillDirs) > 0 {
		if err := f.Skills(ctx, skillDirs); err != nil {
			return res, err
		}
	}
	return res, nil
}

func isLineFile(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".ndjson")
}

// isHermesFile reports whether a file is followed as a Hermes database:
// state.db (Hermes's name for it), or any .db when the format is hermes.
func (f *Follower) isHermesFile(name string) bool { return FollowsAsDatabase(f.Options.Format, name) }

// FollowsAsDatabase reports whether a followed directory of the given
// format reads the file of that name (a base name or a path) as a Hermes
// database, by row id, rather than as lines: state.db (Hermes's name for
// it) when the format is detected, any .db when it is hermes.
func FollowsAsDatabase(format Format, name string) bool {
	name = filepath.Base(name)
	switch format {
	case FormatHermes:
		return strings.HasSuffix(name, ".db")
	case FormatAuto:
		return name == "state.db"
	}
	return false
}

// options are the parse options of one poll of path: malformed lines are
// skipped (a live file cannot be rejected whole) and each session's turns
// continue from the last one stored, so a session read over many polls is
// numbered as a whole import numbers it.
func (f *Follower) options(ctx context.Context, path string, lineOffset int) Options {
	opts := f.Options
	opts.Name, opts.LineOffset, opts.SkipMalformed = path, lineOffset, true
	opts.LastTurn = func(session string) int {
		filter := governance.EventFilter{ProjectID: &f.ProjectID, SessionID: &session, Limit: 1}
		_, n, err := f.Store.FindEvents(ctx, filter)
		if err != nil || n == 0 {
			return 0
		}
		filter.Offset = n - 1 // in session order: the highest turn comes last
		last, _, err := f.Store.FindEvents(ctx, filter)
		if err != nil || len(last) == 0 {
			return n
		}
		return max(n, last[0].Turn)
	}
	return opts
}

// relPath is a followed file's path relative to the directory.
func (f *Follower) relPath(path string) string {
	rel, err := filepath.Rel(f.Dir, path)
	if err != nil {
		rel = path
	}
	return filepath.ToSlash(rel)
}

// pollHermes ingests what a followed Hermes state.db gained since its
// checkpoint (FollowHermes): new message rows and sessions that ended.
func (f *Follower) pollHermes(ctx context.Context, path string) (int, string, error) {
	rel := f.relPath(path)
	ff, err := f.Store.FindSourceFile(ctx, f.SourceID, rel)
	if err != nil {
		return 0, "", err
	}
	opts := f.options(ctx, path, 0)
	var events []*governance.Event
	rep, next, err := FollowHermes(ctx, path, ff.FollowCheckpoint, opts, func(e *governance.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		// A busy, locked or foreign database: say so on the Sources page and
		// try again at the next poll.
		msg := err.Error()
		if governance.ErrorCode(err) != governance.EINTERNAL {
			msg = governance.ErrorMessage(err)
		}
		return 0, msg, f.Store.SetSourceFileError(ctx, f.SourceID, rel, msg)
	}
	if len(events) == 0 && next == ff.FollowCheckpoint && rep.MalformedCount == 0 {
		return 0, "", nil
	}
	problem := malformedProblem(rep)
	ires, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, next, "", problem, emitAll(events))
	if err != nil {
		msg := governance.ErrorMessage(err)
		return 0, msg, f.Store.SetSourceFileError(ctx, f.SourceID, rel, msg)
	}
	return ires.Inserted, problem, nil
}

// malformedProblem summarises the malformed lines of a followed chunk.
func malformedProblem(rep *Report) string {
	if rep.MalformedCount == 0 {
		return ""
	}
	// One sentence a line, each a catalog format, so a page can show the
	// summary in the reader's language (locale translates line by line).
	var b strings.Builder
	fmt.Fprintf(&b, "%d malformed line(s) skipped:", rep.MalformedCount)
	for _, l := range rep.Malformed {
		b.WriteString("\n")
		fmt.Fprintf(&b, "line %d: %s", l.Line, strings.Join(l.Problems, "; "))
	}
	return b.String()
}

func emitAll(events []*governance.Event) func(emit func(*governance.Event) error) error {
	return func(emit func(*governance.Event) error) error {
		for _, e := range events {
			if err := emit(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// pollFile ingests what was appended to one file since its checkpoint.
// When the previous poll ended inside a message that may still grow (a
// Claude Code assistant message written over several lines), it reads
// again from that message's first line, so the message's event gets every
// part (the store completes its text; the id stays the message's).
func (f *Follower) pollFile(ctx context.Context, path string) (int, string, error) {
	rel := f.relPath(path)
	ff, err := f.Store.FindSourceFile(ctx, f.SourceID, rel)
	if err != nil {
		return 0, "", err
	}
	cp := ff.FollowCheckpoint
	fh, err := os.Open(path)
	if err != nil {
		return 0, err.Error(), f.Store.SetSourceFileError(ctx, f.SourceID, rel, err.Error())
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, "", err
	}
	if st.Size() < cp.Offset {
		// Truncated or replaced: read it again from the start; ids that are
		// already stored are skipped.
		cp = governance.FollowCheckpoint{}
	}
	if st.Size() == cp.Offset {
		return 0, "", nil
	}
	start, startLines, reopen := cp.Offset, cp.Lines, ""
	if cp.OpenID != "" && cp.OpenOffset <= cp.Offset {
		start, startLines, reopen = cp.OpenOffset, cp.OpenLines, cp.OpenID
	}
	limit := f.MaxChunkBytes
	if limit <= 0 {
		limit = DefaultMaxChunkBytes
	}
	avail := st.Size() - start
	buf := make([]byte, min(limit+cp.Offset-start, avail))
	n, err := fh.ReadAt(buf, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, "", fmt.Errorf("transcript: read %s: %w", path, err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if start+int64(end+1) <= cp.Offset {
		if st.Size()-cp.Offset < limit {
			return 0, "", nil // a line still being written
		}
		// No end of line within the limit: skip the over-long line.
		problem := fmt.Sprintf("line %d is longer than %d bytes; skipped", cp.Lines+1, limit)
		return 0, problem, f.skipLongLine(ctx, fh, rel, cp, problem)
	}
	chunk := buf[:end+1]
	opts := f.options(ctx, path, startLines)
	// The chunk is parsed before the transaction opens (its events are at
	// most MaxChunkBytes of text): the checkpoint depends on where the
	// parse ended.
	var events []*governance.Event
	rep, err := Parse(ctx, bytes.NewReader(chunk), opts, func(e *governance.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	next := governance.FollowCheckpoint{Offset: start + int64(len(chunk)), Lines: startLines + bytes.Count(chunk, []byte{'\n'}), EndedMark: cp.EndedMark}
	if rep.OpenID != "" {
		next.OpenID, next.OpenLines = rep.OpenID, rep.OpenLine-1
		next.OpenOffset = start + int64(lineStart(chunk, rep.OpenLine-1-startLines))
	}
	problem := malformedProblem(rep)
	ires, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, next, reopen, problem, emitAll(events))
	if err != nil {
		msg := governance.ErrorMessage(err)
		return 0, msg, f.Store.SetSourceFileError(ctx, f.SourceID, rel, msg)
	}
	return ires.Inserted + ires.Replaced, problem, nil
}

// lineStart is the byte offset in chunk where the line after the first k
// lines begins.
func lineStart(chunk []byte, k int) int {
	pos := 0
	for range k {
		i := bytes.IndexByte(chunk[pos:], '\n')
		if i < 0 {
			return len(chunk)
		}
		pos += i + 1
	}
	return pos
}

// skipLongLine moves the checkpoint past the next end of line after the
// checkpoint (closing any open message: its next part is what is skipped).
func (f *Follower) skipLongLine(ctx context.Context, fh *os.File, rel string, cp governance.FollowCheckpoint, problem string) error {
	buf := make([]byte, 64<<10)
	for pos := cp.Offset; ; {
		n, err := fh.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			next := governance.FollowCheckpoint{Offset: pos + int64(i) + 1, Lines: cp.Lines + 1, EndedMark: cp.EndedMark}
			_, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, next, "", problem,
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
