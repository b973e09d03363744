// Package crashtest runs a store operation in a child process and kills
// it with SIGKILL from inside the operation, for the fault tests of both
// stores: the child is the test binary itself, running only the test
// named child (which does nothing unless its environment asks it to),
// and it prints the line "mid" where it is to be killed.
package crashtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Mid is the line the child prints, then waits, where it is to be killed.
const Mid = "mid"

// KillMid runs the test binary's test child with env added to its
// environment, kills it with SIGKILL once it prints Mid, and fails tb if
// it never does or was not killed by the signal.
func KillMid(tb testing.TB, child string, env ...string) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var seen []string
	mid := false
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if lines.Text() == Mid {
			mid = true
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	err = cmd.Wait()
	if !mid {
		tb.Fatalf("the child never reached the middle of its operation (%v): %v\n%s", env, err, strings.Join(seen, "\n"))
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		tb.Fatalf("child state = %v, want killed by SIGKILL", cmd.ProcessState)
	}
}
