// Package ingest is the part of the event writers both stores share: what
// a batch or a streamed import counts (inserted, skipped with the ids
// listed, replaced) and how the sessions it touched add up, and the
// checks a streamed import runs on each event. Each store keeps its SQL.
package ingest

import "github.com/mnemo-console/mnemo/governance"

// MaxStreamSkippedIDs bounds the skipped ids listed by a streamed import
// (the count goes on: a re-import of a large file skips every line).
const MaxStreamSkippedIDs = 1000

// Tally is what an event writer counts.
type Tally struct {
	Res *governance.ImportResult
	// Sessions are the sessions the written events belong to, in Order.
	Sessions   map[string]*governance.SessionInfo
	Order      []string
	maxSkipped int // how many skipped ids to list (0: all)
}

// MaxSessions bounds the sessions a tally keeps counts for: past it the
// writer writes them out (FlushSessions) and counting starts again (the
// session upsert adds counts and widens times, so writing a session in
// several parts gives what writing it once would). An import of any
// number of sessions holds at most this many (plus one chunk's).
const MaxSessions = 256

// NewTally starts a tally that lists at most maxSkipped skipped ids (0: all).
func NewTally(maxSkipped int) *Tally {
	return &Tally{Res: &governance.ImportResult{}, Sessions: map[string]*governance.SessionInfo{}, maxSkipped: maxSkipped}
}

// Skip counts an event that was not written (its id is stored, or its
// tombstone is), listing its id while the list has room.
func (t *Tally) Skip(id string) {
	t.Res.Skipped++
	if t.maxSkipped == 0 || len(t.Res.SkippedIDs) < t.maxSkipped {
		t.Res.SkippedIDs = append(t.Res.SkippedIDs, id)
	}
}

// Insert counts a written event (its Seq set) and adds it to its session.
func (t *Tally) Insert(e *governance.Event) {
	t.Res.Inserted++
	si := t.Sessions[e.SessionID]
	if si == nil {
		si = &governance.SessionInfo{SessionID: e.SessionID, FirstAt: e.OccurredAt, LastAt: e.OccurredAt}
		t.Sessions[e.SessionID] = si
		t.Order = append(t.Order, e.SessionID)
	}
	if e.SubjectID != "" {
		si.SubjectID = e.SubjectID
	}
	if e.Kind == governance.KindSessionEnd {
		si.Ended = true
	} else {
		si.Events++
	}
	if e.Status == governance.StatusFailed {
		si.Failed++
	}
	if e.Source == governance.SourceExternal {
		si.External++
	}
	if e.OccurredAt.Before(si.FirstAt) {
		si.FirstAt = e.OccurredAt
	}
	if e.OccurredAt.After(si.LastAt) {
		si.LastAt = e.OccurredAt
	}
	si.LastSeq = max(si.LastSeq, e.Seq)
}

// Emitter is the emit function a streamed import hands its producer: each
// event is numbered, normalised and validated (a bad one stops the import
// with its number), then written.
func Emitter(write func(*governance.Event) error) func(*governance.Event) error {
	item := 0
	return func(e *governance.Event) error {
		item++
		if e == nil {
			return &governance.ImportError{Lines: []governance.LineError{{Line: item, Problems: []string{"event is null"}}}}
		}
		e.Normalize()
		if problems := e.Validate(); len(problems) > 0 {
			return &governance.ImportError{Lines: []governance.LineError{{Line: item, Problems: problems}}}
		}
		return write(e)
	}
}

// SessionsFull reports whether the tally holds MaxSessions sessions.
func (t *Tally) SessionsFull() bool { return len(t.Sessions) >= MaxSessions }

// FlushSessions writes the sessions counted so far, in order, with write,
// and starts counting them afresh.
func (t *Tally) FlushSessions(write func(*governance.SessionInfo) error) error {
	for _, id := range t.Order {
		if err := write(t.Sessions[id]); err != nil {
			return err
		}
	}
	clear(t.Sessions)
	t.Order = t.Order[:0]
	return nil
}
