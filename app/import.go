package app

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// ImportStore stores a stream of events all or nothing, with an
// "events.import" audit row when an actor is named (transcript.Sink), and
// restores full project exports.
type ImportStore interface {
	ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error)
	ImportExport(ctx context.Context, r io.Reader, opts governance.ImportOptions) (*governance.Project, *governance.ExportStats, error)
}

// Imports are the use cases that bring events in from files: an agent's
// session file or a JSON Lines file (the import page, the agent API's
// ?format= body, console import) and portable memory (MCP import_memory).
type Imports struct {
	store    ImportStore
	projects Projects
	events   Events
}

// MaxMemoryLines bounds one portable memory import.
const MaxMemoryLines = 500

// importAuditName is the actor named in an import's audit row: a signed-in
// account as "account:<name>", a process actor without a stored account
// (the CLI) by its name; a token's imports, like its ingests, are not
// audited.
func importAuditName(actor governance.Actor) string {
	switch {
	case actor.Account != nil && actor.Account.ID != 0:
		return "account:" + actor.Account.Username
	case actor.Account != nil:
		return actor.Account.Username
	}
	return ""
}

// importProject loads project projectID if actor may import into it: a
// token with the ingest scope (its own project) or an admin.
func (is Imports) importProject(ctx context.Context, actor governance.Actor, projectID int64) (*governance.Project, error) {
	return is.events.ingestProject(ctx, actor, projectID)
}

// Transcript imports r — a session file of any transcript format, or
// Mnemo's JSON Lines — into project projectID in one transaction: a file
// with a malformed line is rejected whole (a *governance.ImportError, the
// Result still listing the lines) unless opts.SkipMalformed; nothing is
// written then. opts.Project is set to the project's slug (a seed file
// naming another project is refused by the parser).
func (is Imports) Transcript(ctx context.Context, actor governance.Actor, projectID int64, r io.Reader, opts transcript.Options) (*transcript.Result, error) {
	p, err := is.importProject(ctx, actor, projectID)
	if err != nil {
		return nil, err
	}
	opts.Project = p.Slug
	return transcript.Import(ctx, is.store, importAuditName(actor), p.ID, r, opts)
}

// UploadInput is the import page's form: a file uploaded for a project.
type UploadInput struct {
	// Project is the project's slug.
	Project string
	// Format is a format's name ("" and "auto" detect it).
	Format        string
	SkipMalformed bool
	// File is the uploaded file, nil when none was chosen; Name and Size
	// are its name and size in bytes.
	File io.Reader
	Name string
	Size int64
}

// Upload imports the import page's uploaded file into a project, like
// Transcript: administrators only. Bad input is FieldErrors on project,
// format and file (no project, an unknown one, an unknown format, no file,
// an empty one, one the parser refuses or one holding no events); a file
// with malformed lines is a *governance.ImportError. Nothing is written
// then. It returns the project imported into.
func (is Imports) Upload(ctx context.Context, actor governance.Actor, in UploadInput) (*transcript.Result, *governance.Project, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, nil, err
	}
	errs := FieldErrors{}
	var p *governance.Project
	if slug := strings.TrimSpace(in.Project); slug == "" {
		errs["project"] = governance.Say("Choose a project.")
	} else if found, err := is.projects.store.FindProjectBySlug(ctx, slug); err == nil {
		p = found
	} else if governance.ErrorCode(err) == governance.ENOTFOUND {
		errs["project"] = governance.Say("There is no such project.")
	} else {
		return nil, nil, err
	}
	format, err := transcript.ParseFormat(in.Format)
	if err != nil {
		errs["format"] = governance.ErrorText(err)
	}
	switch {
	case in.File == nil:
		errs["file"] = governance.Say("Choose a file.")
	case in.Size == 0:
		errs["file"] = governance.Say("The file is empty.")
	}
	if err := errs.err(); err != nil {
		return nil, nil, err
	}
	res, err := is.Transcript(ctx, actor, p.ID, in.File, transcript.Options{Format: format, Name: in.Name, SkipMalformed: in.SkipMalformed})
	var rejected *governance.ImportError
	switch {
	case errors.As(err, &rejected):
		return res, p, err
	case err != nil:
		return res, p, onField(err, "file")
	case res.Inserted+res.Skipped == 0 && res.MalformedCount == 0:
		return res, p, FieldErrors{"file": governance.Say("The file holds no events.")}
	}
	return res, p, nil
}

// TranscriptFile is Transcript for a file on disk (any format, a Hermes
// state.db included), for the CLI.
func (is Imports) TranscriptFile(ctx context.Context, actor governance.Actor, projectID int64, path string, opts transcript.Options) (*transcript.Result, error) {
	p, err := is.importProject(ctx, actor, projectID)
	if err != nil {
		return nil, err
	}
	opts.Project = p.Slug
	return transcript.ImportFile(ctx, is.store, importAuditName(actor), p.ID, path, opts)
}

// ProjectExport restores a full project export (Exports.JSONL of a whole
// project) as a new project, named slug when slug is set (the store
// validates it): all or nothing.
// Administrators only.
func (is Imports) ProjectExport(ctx context.Context, actor governance.Actor, r io.Reader, slug string) (*governance.Project, *governance.ExportStats, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, nil, err
	}
	return is.store.ImportExport(ctx, r, governance.ImportOptions{Slug: slug, Actor: actor.Name()})
}

// MemoryImportSession is the session of actor's memory imports on the UTC
// day of now: "memory-import-" and a hash of the actor's name (a token's
// "token:<id>", an account's username) and the day.
func MemoryImportSession(actor governance.Actor, now time.Time) string {
	h := sha256.Sum256([]byte(actor.Name()))
	return "memory-import-" + hex.EncodeToString(h[:6]) + "-" + now.UTC().Format("20060102")
}

// MemoryImport is what a portable memory import recorded.
type MemoryImport struct {
	*governance.ImportResult
	// Session is the session the memories were recorded in.
	Session string
}

// Memory records portable memory (MemoryLine JSON Lines) as raw events,
// one per memory, so they pass through the heartbeat like any other write:
// the write gate, the extractor and the promotion channels decide what
// becomes a rule; nothing is activated here. An agent's import is not the
// person's own words: its events are external content, which never
// promotes a rule alone (the person saying it in a conversation, or a
// reviewer, must confirm it). One caller's imports of one UTC day are one
// session however many calls they take (MemoryImportSession), and a
// memory's id derives from its statement as Fingerprint reads it (case,
// width, spacing and punctuation aside), so importing it again, reworded
// only so, is skipped: calls cannot manufacture repetition. A malformed
// line rejects the import whole. Ingest's authorization applies.
func (is Imports) Memory(ctx context.Context, actor governance.Actor, projectID int64, jsonl string) (*MemoryImport, error) {
	if _, err := is.importProject(ctx, actor, projectID); err != nil {
		return nil, err
	}
	var (
		lines []MemoryLine
		bad   []governance.LineError
	)
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(make([]byte, 0, 64<<10), governance.MaxEventTextBytes+4096)
	for n := 1; sc.Scan(); n++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var m MemoryLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			bad = append(bad, governance.LineError{Line: n, Problems: []string{"invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}})
			continue
		}
		switch governance.MemoryType(m.Kind) {
		case governance.TypePreference, governance.TypeFact, governance.TypeLesson:
		default:
			bad = append(bad, governance.LineError{Line: n, Problems: []string{fmt.Sprintf("kind %q is not one of user_preference, fact, lesson", m.Kind)}})
			continue
		}
		if strings.TrimSpace(m.Text) == "" {
			bad = append(bad, governance.LineError{Line: n, Problems: []string{"text is required"}})
			continue
		}
		lines = append(lines, m)
		if len(lines) > MaxMemoryLines {
			return nil, governance.Errorf(governance.ETOOLARGE, "At most %d memories per call.", MaxMemoryLines)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, governance.Errorf(governance.EINVALID, "A line is too long: %s.", err)
	}
	if len(bad) > 0 {
		return nil, &governance.ImportError{Lines: bad}
	}
	if len(lines) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "The input holds no memories.")
	}
	now := time.Now().UTC()
	session := MemoryImportSession(actor, now)
	turn := 0
	if info, err := is.events.store.FindSession(ctx, projectID, session); err == nil {
		turn = info.Events
	} else if governance.ErrorCode(err) != governance.ENOTFOUND {
		return nil, err
	}
	now = now.Truncate(time.Second)
	events := make([]*governance.Event, 0, len(lines))
	for i, m := range lines {
		h := sha256.Sum256([]byte(m.Kind + "\x00" + m.SubjectID + "\x00" + governance.Fingerprint(m.Text)))
		events = append(events, &governance.Event{
			ID: "mem:" + hex.EncodeToString(h[:12]), SessionID: session, SubjectID: m.SubjectID, Turn: turn + i + 1,
			Role: governance.RoleUser, Source: governance.SourceExternal, Text: m.Text,
			OccurredAt: now.Add(time.Duration(i) * time.Millisecond),
		})
	}
	res, err := is.events.Ingest(ctx, actor, projectID, events)
	if err != nil {
		return nil, err
	}
	return &MemoryImport{ImportResult: res, Session: session}, nil
}
