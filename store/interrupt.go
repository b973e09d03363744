package store

import (
	"context"
	"fmt"
	"time"
)

// InterruptedMessage is recorded on work the console stopped in the middle
// of (a shutdown or a crash).
const InterruptedMessage = "interrupted: the console stopped before this finished"

// RepairInterrupted closes the records a crash left open: beats without a
// finish time are finished and marked interrupted. (Eval runs left
// "running" are not touched: the runner resumes them at startup, keeping
// the results already stored. Imports and forgets are single transactions
// and leave no record half-done.) Call it once at startup of the serving
// process, before the heartbeat starts; it returns how many rows it closed.
func (s *Store) RepairInterrupted(ctx context.Context) (int64, error) {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	now := formatTime(tx.now.UTC().Truncate(time.Second))
	var total int64
	for _, q := range []struct{ what, sql string }{
		{"beats", `UPDATE beats SET finished_at = ?, errors = CASE WHEN errors = '' THEN ? ELSE errors || '; ' || ? END
			WHERE finished_at IS NULL`},
	} {
		res, err := tx.ExecContext(ctx, q.sql, now, InterruptedMessage, InterruptedMessage)
		if err != nil {
			return 0, fmt.Errorf("store: repair interrupted %s: %w", q.what, err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	// A crash between a forget's commit and its WAL checkpoint left the
	// old pages in the database file and the new ones in the log: finish
	// the checkpoint now, so the forgotten bytes are overwritten.
	if err := s.checkpointAfterForget(ctx); err != nil {
		return total, err
	}
	return total, nil
}
