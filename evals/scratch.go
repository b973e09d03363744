package evals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// A CLI run claims its scratch projects' prefix with a lease it renews
// while it runs (governance/evalrow, "Who owns a scratch project").

// DefaultScratchLease is how long a CLI run's claim on its scratch
// projects lasts unless renewed; the run renews it every third of that.
const DefaultScratchLease = time.Minute

// errScratchLost ends a CLI run whose lease expired before it could renew
// it: its scratch projects may have been removed as orphans meanwhile.
var errScratchLost = errors.New("evals: this run's claim on its scratch projects expired before it was renewed (the process was stopped or the database unreachable), so they may have been removed; run the suite again")

// claimScratch takes a fresh CLI prefix's lease and keeps it renewed
// until release is called (which drops it) or a renewal finds it lost,
// which cancels ctx with errScratchLost.
func claimScratch(ctx context.Context, mem Memory, prefix string, ttl time.Duration, lost context.CancelCauseFunc) (release func(context.Context), err error) {
	host, _ := os.Hostname()
	holder := fmt.Sprintf("console eval run, pid %d on %s", os.Getpid(), host)
	if err := mem.ClaimScratch(ctx, prefix, holder, ttl); err != nil {
		return nil, fmt.Errorf("evals: claim scratch projects %s: %w", prefix, err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// An error (a busy database) is not a loss: the next tick
			// tries again while the lease still runs.
			if held, err := mem.RenewScratch(ctx, prefix, ttl); err == nil && !held {
				lost(errScratchLost)
				return
			}
		}
	}()
	return func(ctx context.Context) {
		close(stop)
		<-done
		_ = mem.ReleaseScratch(ctx, prefix)
	}, nil
}
