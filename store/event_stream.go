package store

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/ingest"
)

// ImportStream stores the events produce emits, one at a time, in a single
// transaction: memory stays bounded whatever the number of events, and
// either every new event is written or none is. When produce returns an
// error (a rejected file), everything it emitted is rolled back. Events
// whose id already exists in the project (or earlier in the same stream)
// are skipped and counted. An "events.import" audit row naming the actor
// is written in the same transaction when actor is not empty.
func (s *Store) ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error) {
	return s.importStream(ctx, "ImportStream", actor, projectID, "", produce, nil)
}

// importStream is ImportStream with a hook run in the same transaction
// before the commit; an event emitted with the id reopen replaces the
// stored text of that id (see ImportChunk).
func (s *Store) importStream(ctx context.Context, op, actor string, projectID int64, reopen string, produce func(emit func(*governance.Event) error) error,
	before func(context.Context, *Tx, *governance.ImportResult) error) (*governance.ImportResult, error) {
	tx, err := s.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	w, err := newEventWriter(ctx, tx, projectID, ingest.MaxStreamSkippedIDs)
	if err != nil {
		return nil, err
	}
	defer w.close()
	w.reopen = reopen
	emit := ingest.Emitter(func(e *governance.Event) error { return w.write(ctx, e) })
	if err := produce(emit); err != nil {
		return nil, err
	}
	if err := w.finish(ctx); err != nil {
		return nil, err
	}
	res := w.Res
	if err := auditImport(ctx, tx, actor, projectID, res); err != nil {
		return nil, err
	}
	if before != nil {
		if err := before(ctx, tx, res); err != nil {
			return nil, err
		}
	}
	return res, tx.Commit()
}
