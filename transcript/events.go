package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// dupes finds ids repeated inside one file, remembering 8 bytes per id.
type dupes map[uint64]int

func (d dupes) check(id string, line int) (first int, dup bool) {
	h := fnv.New64a()
	h.Write([]byte(id))
	k := h.Sum64()
	if f, ok := d[k]; ok {
		return f, true
	}
	d[k] = line
	return 0, false
}

// parseMnemo reads Mnemo's own JSON Lines events (the fields of
// governance.Event, unknown fields rejected, occurred_at required).
func parseMnemo(ctx context.Context, br *bufio.Reader, opts Options, rep *Report, emit Emit) error {
	seen := dupes{}
	return lines(ctx, br, rep, opts.LineOffset, func(n int, line []byte) error {
		var e governance.Event
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			rep.bad(n, governance.Say("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: ")))
			return nil
		}
		if dec.More() {
			rep.bad(n, governance.Say("more than one JSON value on the line"))
			return nil
		}
		e.Normalize()
		if problems := e.ValidateTexts(); len(problems) > 0 {
			rep.bad(n, problems...)
			return nil
		}
		if first, dup := seen.check(e.ID, n); dup {
			rep.bad(n, governance.Say("id duplicates line %d", first))
			return nil
		}
		if e.SubjectID == "" {
			e.SubjectID = opts.Subject
		}
		rep.Events++
		return emit(&e)
	})
}

// seedEvent is one line of the seed pipeline's event JSON Lines: event_id is
// the id, project_id names the project, timestamps are optional.
type seedEvent struct {
	EventID    string `json:"event_id"`
	ProjectID  string `json:"project_id"`
	SessionID  string `json:"session_id"`
	SubjectID  string `json:"subject_id"`
	Turn       int    `json:"turn"`
	Kind       string `json:"kind"`
	Role       string `json:"role"`
	Text       string `json:"text"`
	Tool       string `json:"tool"`
	Status     string `json:"status"`
	Source     string `json:"source"`
	OccurredAt string `json:"occurred_at"`
	Timestamp  string `json:"timestamp"`
}

// PeekProject returns the project_id of the first line of a seed-format
// file without consuming it, so a caller can select the target project.
func PeekProject(br *bufio.Reader) string {
	head, _ := br.Peek(64 << 10)
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		var s seedEvent
		if json.Unmarshal(bytes.TrimSpace(line), &s) == nil && s.ProjectID != "" {
			return s.ProjectID
		}
	}
	return ""
}

// parseSeed reads the seed pipeline's events. Every line's project_id must
// name the target project (opts.Project); when no project was given the
// first line's project_id is reported as the project and the others must
// match it. A missing occurred_at is the import time plus the line number
// in milliseconds, so the file order is kept and timestamps stay distinct.
func parseSeed(ctx context.Context, br *bufio.Reader, opts Options, rep *Report, emit Emit) error {
	p := newParser(opts, rep, emit)
	seen := dupes{}
	project := opts.Project
	return lines(ctx, br, rep, opts.LineOffset, func(n int, line []byte) error {
		p.line = n
		var s seedEvent
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			rep.bad(n, governance.Say("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: ")))
			return nil
		}
		switch {
		case s.ProjectID == "":
		case project == "":
			project = s.ProjectID
			rep.Project = project
		case s.ProjectID != project:
			rep.bad(n, governance.Say("project_id %q is not the target project %q", s.ProjectID, project))
			return nil
		}
		e := &governance.Event{
			ID: s.EventID, SessionID: s.SessionID, SubjectID: s.SubjectID, Turn: s.Turn,
			Kind: governance.EventKind(s.Kind), Role: governance.Role(s.Role), Text: s.Text,
			Tool: s.Tool, Status: s.Status, Source: governance.Source(s.Source),
		}
		at := s.OccurredAt
		if at == "" {
			at = s.Timestamp
		}
		if at != "" {
			t, err := time.Parse(time.RFC3339Nano, at)
			if err != nil {
				rep.bad(n, governance.Say("occurred_at is not an RFC 3339 time"))
				return nil
			}
			e.OccurredAt = t.UTC()
		}
		if e.ID != "" {
			if first, dup := seen.check(e.ID, n); dup {
				rep.bad(n, governance.Say("event_id duplicates line %d", first))
				return nil
			}
		} else {
			rep.bad(n, governance.Say("event_id is required"))
			return nil
		}
		return p.send(e)
	})
}
