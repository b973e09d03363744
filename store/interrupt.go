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
// finish time are finished and marked interrupted. Eval runs left
// "running" are not touched: the runner resumes them at startup, keeping
// the results already stored and their scratch projects; the scratch
// projects of a run that will not resume (cancelled, or ended, while its
// process was down) and of a CLI run whose lease expired (it was killed)
// are removed here (RemoveOrphanScratch). Imports and forgets are single
// transactions and leave no record half-done; a forget's WAL checkpoint,
// which runs after its commit, is finished here. Call it once at startup
// of the serving process, before the heartbeat and the eval runner start;
// it returns how many beats it closed and scratch projects it removed.
func (s *Store) RepairInterrupted(ctx context.Context) (int64, error) {
	tx, err := s.begin(ctx, "RepairInterrupted")
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
	// Subjects forgotten before keyed audit references still have their
	// id in their forget's audit row (audit_rechain.go).
	if _, err := s.rechainForgottenSubjects(ctx); err != nil {
		return total, err
	}
	removed, err := s.RemoveOrphanScratch(ctx)
	total += removed
	if err != nil {
		return total, err
	}
	// A crash between a forget's commit and its WAL checkpoint left the
	// old pages in the database file and the new ones in the log: finish
	// the checkpoint now, so the forgotten bytes are overwritten.
	if err := s.checkpointAfterForget(ctx, "RepairInterrupted"); err != nil {
		return total, err
	}
	return total, nil
}
