package store

import (
	"context"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// maxStreamSkippedIDs bounds the skipped ids listed by a streamed import
// (the count goes on).
const maxStreamSkippedIDs = 1000

// ImportStream stores the events produce emits, one at a time, in a single
// transaction: memory stays bounded whatever the number of events, and
// either every new event is written or none is. When produce returns an
// error (a rejected file), everything it emitted is rolled back. Events
// whose id already exists in the project (or earlier in the same stream)
// are skipped and counted. An "events.import" audit row naming the actor
// is written in the same transaction when actor is not empty.
func (s *Store) ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.importStream(ctx, actor, projectID, produce, nil)
}

// importStream is ImportStream with a hook run in the same transaction
// before the commit.
func (s *Store) importStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error,
	before func(context.Context, *Tx, *governance.ImportResult) error) (*governance.ImportResult, error) {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	last, err := beginBatchIndex(ctx, tx)
	if err != nil {
		return nil, err
	}
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO events (id, project_id, session_id, subject_id, turn, kind, role, text, tool, status, source, occurred_at, ingested_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id, id) DO NOTHING`)
	if err != nil {
		return nil, fmt.Errorf("store: prepare import: %w", err)
	}
	defer stmt.Close()
	res := &governance.ImportResult{}
	sessions := map[string]*governance.SessionInfo{}
	var order []string
	ingested := formatTime(tx.now)
	item := 0
	emit := func(e *governance.Event) error {
		item++
		if e == nil {
			return &governance.ImportError{Lines: []governance.LineError{{Line: item, Problems: []string{"event is null"}}}}
		}
		e.Normalize()
		if problems := e.Validate(); len(problems) > 0 {
			return &governance.ImportError{Lines: []governance.LineError{{Line: item, Problems: problems}}}
		}
		r, err := stmt.ExecContext(ctx, e.ID, projectID, e.SessionID, e.SubjectID, e.Turn, e.Kind, e.Role, e.Text,
			e.Tool, e.Status, e.Source, formatTime(e.OccurredAt), ingested)
		if err != nil {
			return mapError(err, "Event "+e.ID)
		}
		if n, _ := r.RowsAffected(); n == 0 {
			res.Skipped++
			if len(res.SkippedIDs) < maxStreamSkippedIDs {
				res.SkippedIDs = append(res.SkippedIDs, e.ID)
			}
			return nil
		}
		e.Seq, _ = r.LastInsertId()
		e.ProjectID, e.IngestedAt = projectID, tx.now
		res.Inserted++
		si := sessions[e.SessionID]
		if si == nil {
			si = &governance.SessionInfo{SessionID: e.SessionID, FirstAt: e.OccurredAt, LastAt: e.OccurredAt}
			sessions[e.SessionID] = si
			order = append(order, e.SessionID)
		}
		addToSession(si, e)
		return nil
	}
	if err := produce(emit); err != nil {
		return nil, err
	}
	if err := endBatchIndex(ctx, tx, last); err != nil {
		return nil, err
	}
	for _, id := range order {
		if err := upsertSession(ctx, tx, projectID, sessions[id]); err != nil {
			return nil, err
		}
	}
	if actor != "" {
		var slug string
		if err := tx.QueryRowContext(ctx, `SELECT slug FROM projects WHERE id = ?`, projectID).Scan(&slug); err != nil {
			return nil, fmt.Errorf("store: import project: %w", err)
		}
		if err := appendAudit(ctx, tx, &governance.AuditEntry{
			Actor: actor, Action: "events.import", ObjectType: "project", ObjectID: slug, ProjectID: projectID,
			Details: fmt.Sprintf(`{"inserted":%d,"skipped":%d}`, res.Inserted, res.Skipped),
		}); err != nil {
			return nil, err
		}
	}
	if before != nil {
		if err := before(ctx, tx, res); err != nil {
			return nil, err
		}
	}
	return res, tx.Commit()
}
