package evals

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Who owns a scratch project. A server run's scratch projects (slug
// RunScratchPrefix(id)) belong to its eval_runs row: while the run is
// queued or running its runner (this process or, after a restart, the
// next) removes them. A CLI run (RunSuite) has no row; it claims its
// prefix (cliPrefix + 8 random hex digits + "-") with a lease it renews
// while it runs and drops after removing its scratch projects. Whatever
// scratch project neither a live run nor a live lease owns was left by a
// process that died: OrphanScratch names them, for both stores.

// cliPrefix starts the slug of every scratch project of a CLI run.
const cliPrefix = ScratchPrefix + "cli-"

// DefaultScratchLease is how long a CLI run's claim on its scratch
// projects lasts unless renewed; the run renews it every third of that.
const DefaultScratchLease = time.Minute

// newCLIScratchPrefix is a fresh CLI run's prefix.
func newCLIScratchPrefix() string {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return cliPrefix + hex.EncodeToString(rnd[:]) + "-"
}

// ScratchOwner names the run a scratch slug (or prefix) belongs to: its
// prefix, and the server run's id (0 for a CLI run). ok is false for a
// slug neither kind of run makes.
func ScratchOwner(slug string) (prefix string, runID int64, ok bool) {
	if rest, found := strings.CutPrefix(slug, cliPrefix); found {
		hexPart, _, dash := strings.Cut(rest, "-")
		if !dash || len(hexPart) != 8 {
			return "", 0, false
		}
		if _, err := hex.DecodeString(hexPart); err != nil {
			return "", 0, false
		}
		return cliPrefix + hexPart + "-", 0, true
	}
	if rest, found := strings.CutPrefix(slug, ScratchPrefix+"r"); found {
		digits, _, dash := strings.Cut(rest, "-")
		id, err := strconv.ParseInt(digits, 10, 64)
		if !dash || err != nil || id <= 0 || strconv.FormatInt(id, 10) != digits {
			return "", 0, false
		}
		return RunScratchPrefix(id), id, true
	}
	return "", 0, false
}

// OrphanScratch returns the prefixes, each once and sorted, of the scratch
// slugs (and prefixes: a run's copy records name its prefix) no live run
// owns: a server run that is not in liveRuns (queued or running), a CLI
// run whose lease is missing or expired at now (leases maps prefix to
// expiry). A lease once expired is never renewed (RenewScratch), so a
// prefix found orphaned stays orphaned. Slugs of other shapes are left
// alone.
func OrphanScratch(slugs []string, liveRuns map[int64]bool, leases map[string]time.Time, now time.Time) []string {
	var out []string
	for _, slug := range slugs {
		prefix, runID, ok := ScratchOwner(slug)
		if !ok {
			continue
		}
		if runID != 0 && liveRuns[runID] {
			continue
		}
		if exp, held := leases[prefix]; runID == 0 && held && exp.After(now) {
			continue
		}
		out = append(out, prefix)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

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

// EventCopy is the copy of a live project's event that a run writes into
// its scratch project (fixtures.copy_events, Memory.CopyEvents): the same
// event without its place in the live project.
func EventCopy(e *governance.Event) *governance.Event {
	cp := *e
	cp.Seq, cp.ProjectID, cp.Project, cp.IngestedAt = 0, 0, "", time.Time{}
	return &cp
}
