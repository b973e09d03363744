package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strconv"
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
	// Roots are the follow roots (app.Sources.Roots; nil: none). A Dir
	// under one is opened through it each poll; one that lies under a
	// root by its name but has left it (a directory on its path replaced
	// by a link) is refused.
	Roots []string
}

// PollResult says what one poll did.
type PollResult struct {
	Files    int
	Inserted int
	Problems []governance.Text
}

// Poll reads every followed file once. Every file is opened through the
// directory (openDir), so no link leads a read out of it; a file that is
// not a regular file (a FIFO, a device) is skipped with its reason, so
// one file never blocks the poll, the other files or shutdown.
func (f *Follower) Poll(ctx context.Context) (*PollResult, error) {
	maxFiles := f.MaxFiles
	if maxFiles <= 0 {
		maxFiles = DefaultMaxFiles
	}
	root, real, err := f.openDir()
	if err != nil {
		return nil, fmt.Errorf("transcript: follow %s: %w", f.Dir, err)
	}
	defer root.Close()
	res := &PollResult{}
	var paths, skillDirs []string
	err = fs.WalkDir(root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == "." {
				return err
			}
			// An unreadable subdirectory: the rest is still followed.
			res.Problems = append(res.Problems, governance.Say("%s: %s", filepath.Join(f.Dir, path), err.Error()))
			return nil
		}
		if !d.IsDir() && (isLineFile(d.Name()) || f.isHermesFile(d.Name())) {
			paths = append(paths, path)
		}
		if f.Skills != nil && d.Type().IsRegular() && d.Name() == governance.SkillFileName {
			skillDirs = append(skillDirs, filepath.Join(f.Dir, filepath.FromSlash(pathpkg.Dir(path))))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("transcript: follow %s: %w", f.Dir, err)
	}
	slices.Sort(paths)
	if len(paths) > maxFiles {
		res.Problems = append(res.Problems, governance.Say("%d files; following the first %d", len(paths), maxFiles))
		paths = paths[:maxFiles]
	}
	for _, rel := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		n, problem, err := f.pollPath(ctx, root, real, rel)
		if err != nil {
			return res, err
		}
		res.Files++
		res.Inserted += n
		if !problem.IsZero() {
			res.Problems = append(res.Problems, governance.Say("%s: %s", filepath.Join(f.Dir, filepath.FromSlash(rel)), problem))
		}
	}
	if len(skillDirs) > 0 {
		if err := f.Skills(ctx, skillDirs); err != nil {
			return res, err
		}
	}
	return res, nil
}

// pollPath opens one followed file (rel, in the directory held by root,
// whose path with links resolved is real) and reads what it gained, or
// records why it is skipped. The problem is kept as a Text
// (governance.StoreText), which the Sources page translates.
func (f *Follower) pollPath(ctx context.Context, root *os.Root, real, rel string) (int, governance.Text, error) {
	ff, err := f.Store.FindSourceFile(ctx, f.SourceID, rel)
	if err != nil {
		return 0, governance.Text{}, err
	}
	fh, problem, err := openFollowed(root, rel)
	if err != nil {
		return 0, governance.Text{}, err
	}
	if fh == nil {
		if ff.LastError == governance.StoreText(problem) {
			return 0, problem, nil // recorded at an earlier poll
		}
		return 0, problem, f.setError(ctx, rel, problem)
	}
	defer fh.Close()
	path := filepath.Join(f.Dir, filepath.FromSlash(rel))
	if f.isHermesFile(filepath.Base(rel)) {
		// SQLite opens the database by name: the name with every link
		// resolved, checked to lie in the directory and to be the file
		// just opened through it.
		at, err := realPath(fh, filepath.Join(real, filepath.FromSlash(rel)))
		if err != nil {
			return 0, governance.Text{}, err
		}
		leadsOut := governance.Say(problemLeadsOut)
		if !Within(real, at) {
			return 0, leadsOut, f.setError(ctx, rel, leadsOut)
		}
		held, err1 := fh.Stat()
		named, err2 := os.Stat(at)
		if err1 != nil || err2 != nil || !os.SameFile(held, named) {
			return 0, leadsOut, f.setError(ctx, rel, leadsOut)
		}
		return f.pollHermes(ctx, ff, rel, path, at)
	}
	return f.pollFile(ctx, ff, fh, rel, path)
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

// pollHermes ingests what a followed Hermes state.db gained since its
// checkpoint (FollowHermes): new message rows and sessions that ended.
// path is the file's name in the followed directory, at where SQLite
// opens it.
func (f *Follower) pollHermes(ctx context.Context, ff *governance.FollowFile, rel, path, at string) (int, governance.Text, error) {
	opts := f.options(ctx, path, 0)
	var events []*governance.Event
	rep, next, err := FollowHermes(ctx, at, ff.FollowCheckpoint, opts, func(e *governance.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return 0, governance.Text{}, ctx.Err()
		}
		// A busy, locked or foreign database: say so on the Sources page and
		// try again at the next poll.
		msg := governance.Text{ID: err.Error()}
		if governance.ErrorCode(err) != governance.EINTERNAL {
			msg = governance.ErrorText(err)
		}
		return 0, msg, f.setError(ctx, rel, msg)
	}
	if len(events) == 0 && next == ff.FollowCheckpoint && rep.MalformedCount == 0 && rep.Clipped == 0 {
		return 0, governance.Text{}, nil
	}
	problem := malformedProblem(rep)
	ires, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, next, "", governance.StoreText(problem), emitAll(events))
	if err != nil {
		msg := governance.ErrorText(err)
		return 0, msg, f.setError(ctx, rel, msg)
	}
	return ires.Inserted, problem, nil
}

// setError records problem as the file's last error, as a Text.
func (f *Follower) setError(ctx context.Context, rel string, problem governance.Text) error {
	return f.Store.SetSourceFileError(ctx, f.SourceID, rel, governance.StoreText(problem))
}

// malformedProblem summarises the malformed lines of a followed chunk and
// the texts it cut.
func malformedProblem(rep *Report) governance.Text {
	// One sentence a line, each with its format and values, so a page
	// shows the summary in the reader's language.
	var lines []governance.Text
	if rep.MalformedCount > 0 {
		lines = append(lines, governance.Say("%d malformed line(s) skipped:", rep.MalformedCount))
		for _, l := range rep.Malformed {
			lines = append(lines, governance.Say("line %d: %s", l.Line, governance.Joined(l.Sentences()...)))
		}
	}
	if rep.Clipped > 0 {
		lines = append(lines, ClippedSentence(rep))
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return governance.Text{Lines: lines}
}

// ClippedSentence says which texts a read cut to what an event holds
// (zero when none).
func ClippedSentence(rep *Report) governance.Text {
	if rep.Clipped == 0 {
		return governance.Text{}
	}
	return governance.Say("%d text(s) longer than %d KiB were cut to it: line(s) %s", rep.Clipped, governance.MaxEventTextBytes>>10, LineList(rep.ClippedLines))
}

// LineList lists line numbers for a sentence.
func LineList(lines []int) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ", ")
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
// fh is the file, opened through the directory; path is its name there.
func (f *Follower) pollFile(ctx context.Context, ff *governance.FollowFile, fh *os.File, rel, path string) (int, governance.Text, error) {
	cp := ff.FollowCheckpoint
	st, err := fh.Stat()
	if err != nil {
		return 0, governance.Text{}, err
	}
	if st.Size() < cp.Offset {
		// Truncated or replaced: read it again from the start; ids that are
		// already stored are skipped.
		cp = governance.FollowCheckpoint{}
	}
	if st.Size() == cp.Offset {
		return 0, governance.Text{}, nil
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
		return 0, governance.Text{}, fmt.Errorf("transcript: read %s: %w", path, err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if start+int64(end+1) <= cp.Offset {
		if st.Size()-cp.Offset < limit {
			return 0, governance.Text{}, nil // a line still being written
		}
		// No end of line within the limit: skip the over-long line.
		problem := governance.Say("line %d is longer than %d bytes; skipped", cp.Lines+1, limit)
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
		return 0, governance.Text{}, err
	}
	next := governance.FollowCheckpoint{Offset: start + int64(len(chunk)), Lines: startLines + bytes.Count(chunk, []byte{'\n'}), EndedMark: cp.EndedMark}
	if rep.OpenID != "" {
		next.OpenID, next.OpenLines = rep.OpenID, rep.OpenLine-1
		next.OpenOffset = start + int64(lineStart(chunk, rep.OpenLine-1-startLines))
	}
	problem := malformedProblem(rep)
	ires, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, next, reopen, governance.StoreText(problem), emitAll(events))
	if err != nil {
		msg := governance.ErrorText(err)
		return 0, msg, f.setError(ctx, rel, msg)
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
func (f *Follower) skipLongLine(ctx context.Context, fh *os.File, rel string, cp governance.FollowCheckpoint, problem governance.Text) error {
	buf := make([]byte, 64<<10)
	for pos := cp.Offset; ; {
		n, err := fh.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			next := governance.FollowCheckpoint{Offset: pos + int64(i) + 1, Lines: cp.Lines + 1, EndedMark: cp.EndedMark}
			_, err := f.Store.ImportChunk(ctx, f.ProjectID, f.SourceID, rel, next, "", governance.StoreText(problem),
				func(func(*governance.Event) error) error { return nil })
			return err
		}
		pos += int64(n)
		if err != nil {
			return f.setError(ctx, rel, problem) // the line's end is not written yet
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
