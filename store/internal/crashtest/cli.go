package crashtest

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// CLILease is the CLI eval children's scratch lease: short, so a test
// waits little for a killed child's to expire; a live child renews it
// every third of it.
const CLILease = 1500 * time.Millisecond

// RunCLIEval is "console eval run" of EvalSuite over s in the child
// (evals.RunSuite: in this process, with no run row, a scratch lease of
// CLILease on s's clock); the second case's recall stops the process.
func RunCLIEval(ctx context.Context, s EvalStore) error {
	suite, err := evals.ParseSuite("crash.yaml", []byte(EvalSuite))
	if err != nil {
		return err
	}
	_, err = evals.RunSuite(ctx, evals.Deps{Memory: NewMemory(s), Concurrency: 1, ScratchLease: CLILease}, suite)
	return err
}

// RunCLIEvalAgain is the next "console eval run" of EvalSuite over s, to
// its end; it fails tb unless every case ran.
func RunCLIEvalAgain(tb testing.TB, s EvalStore) {
	tb.Helper()
	suite, err := evals.ParseSuite("crash.yaml", []byte(EvalSuite))
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := evals.RunSuite(context.Background(), evals.Deps{Memory: EvalServices(s), Concurrency: 1}, suite)
	if err != nil || len(rep.Cases) != 3 {
		tb.Fatalf("the next CLI run: %+v, %v", rep, err)
	}
}

// CLIPrefixes returns the prefixes of the CLI runs' scratch slugs; it
// fails tb on a slug that names no run.
func CLIPrefixes(tb testing.TB, slugs []string) map[string]bool {
	tb.Helper()
	out := map[string]bool{}
	for _, slug := range slugs {
		prefix, _, ok := evalrow.ScratchOwner(slug)
		if !ok {
			tb.Fatalf("CLI scratch slug %q names no run", slug)
		}
		out[prefix] = true
	}
	return out
}

// KillCLIEval starts a CLI eval child (env added to its environment) and
// leaves it alive mid-case until tb ends, then kills a second one
// mid-case; scratch lists the CLI runs' prefixes in the database. It
// returns the live run's prefixes and the killed run's once both runs
// have lasted longer than a lease since the kill: only the killed one
// stopped renewing.
func KillCLIEval(tb testing.TB, child string, env []string, scratch func() map[string]bool) (alive map[string]bool, killed string) {
	tb.Helper()
	StartMid(tb, child, env...)
	alive = scratch()
	if len(alive) != 1 {
		tb.Fatalf("CLI scratch prefixes with one run alive: %v", alive)
	}
	KillMid(tb, child, env...)
	killedAt := time.Now()
	for prefix := range scratch() {
		if !alive[prefix] {
			killed = prefix
		}
	}
	if killed == "" {
		tb.Fatal("the killed CLI run left no scratch project: the test needs it mid-case")
	}
	time.Sleep(time.Until(killedAt.Add(CLILease + 500*time.Millisecond)))
	return alive, killed
}

// CheckCLIScratch fails tb unless the CLI prefixes left are the live
// run's (alive) alone: the killed run's went, the live run's stayed.
func CheckCLIScratch(tb testing.TB, left, alive map[string]bool, killed string) {
	tb.Helper()
	if left[killed] {
		tb.Fatalf("the killed CLI run's scratch projects (%s…) are left", killed)
	}
	for prefix := range alive {
		if !left[prefix] {
			tb.Fatalf("the live CLI run's scratch projects (%s…) were removed", prefix)
		}
	}
	if len(left) != 1 {
		tb.Fatalf("CLI scratch prefixes left: %v; want only the live run's", left)
	}
}
