// Package crashtest runs a store operation in a child process and kills
// it with SIGKILL from inside the operation, for the fault tests of both
// stores: the child is the test binary itself, running only the test
// named child (which does nothing unless its environment asks it to),
// and it prints the line "mid" where it is to be killed (KillMid), or
// where it waits, alive, while the test works beside it (StartMid). The
// eval runs both stores' tests kill, and the checks after their restart,
// are here too (eval.go, cli.go).
package crashtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"sync"
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
	StartMid(tb, child, env...).Kill()
}

// Child is a child process waiting where it printed Mid.
type Child struct {
	tb   testing.TB
	cmd  *exec.Cmd
	once sync.Once
}

// StartMid runs the test binary's test child with env added to its
// environment and returns once it prints Mid, leaving it waiting there
// (alive: its other goroutines go on) until Kill, which tb's cleanup
// also calls. It fails tb if the child never prints Mid.
func StartMid(tb testing.TB, child string, env ...string) *Child {
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
	c := &Child{tb: tb, cmd: cmd}
	lines := bufio.NewScanner(out)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if lines.Text() == Mid {
			tb.Cleanup(c.Kill)
			return c
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	tb.Fatalf("the child never reached the middle of its operation (%v): %v\n%s", env, err, strings.Join(seen, "\n"))
	return nil
}

// Kill kills the child with SIGKILL (once) and fails tb unless the signal
// is what ended it.
func (c *Child) Kill() {
	c.once.Do(func() {
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			c.tb.Error(err)
			return
		}
		_ = c.cmd.Wait()
		if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			c.tb.Errorf("child state = %v, want killed by SIGKILL", c.cmd.ProcessState)
		}
	})
}
