package evalrow

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Who owns a scratch project. A server run's scratch projects (slug
// RunScratchPrefix(id)) belong to its eval_runs row: while the run is
// queued or running its runner (this process or, after a restart, the
// next) removes them. A CLI run has no row; it claims its prefix
// (NewCLIScratchPrefix: cliPrefix + 8 random hex digits + "-") with a
// lease it renews while it runs and drops after removing its scratch
// projects. Whatever scratch project neither a live run nor a live lease
// owns was left by a process that died: OrphanScratch names them, for
// both stores.

// ScratchPrefix starts the slug of every project evals creates. It only
// names them: what makes a project scratch is its flag, set when it is
// created, never its slug.
const ScratchPrefix = "eval-"

// cliPrefix starts the slug of every scratch project of a CLI run.
const cliPrefix = ScratchPrefix + "cli-"

// RunScratchPrefix starts the slug of every scratch project of a run.
func RunScratchPrefix(runID int64) string { return fmt.Sprintf("%sr%d-", ScratchPrefix, runID) }

// NewCLIScratchPrefix is a fresh CLI run's prefix.
func NewCLIScratchPrefix() string {
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

// EventCopy is the copy of a live project's event that a run writes into
// its scratch project (fixtures.copy_events, Memory.CopyEvents): the same
// event without its place in the live project.
func EventCopy(e *governance.Event) *governance.Event {
	cp := *e
	cp.Seq, cp.ProjectID, cp.Project, cp.IngestedAt = 0, 0, "", time.Time{}
	return &cp
}
