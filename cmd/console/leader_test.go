package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/postgres/postgrestest"
)

// eventSource ingests complete sessions (a statement and its end) into one
// project, numbering them, so a test knows how many sessions there are.
type eventSource struct {
	mu       sync.Mutex
	st       Store
	project  int64
	sessions int
}

func (s *eventSource) add(t *testing.T, n int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	for range n {
		s.sessions++
		id := fmt.Sprintf("s%d", s.sessions)
		if _, err := s.st.IngestEvents(context.Background(), s.project, []*governance.Event{
			{ID: id + "-1", SessionID: id, SubjectID: "u1", Turn: 1, Role: governance.RoleUser,
				Text: fmt.Sprintf("From now on, always tag release %d with the build number.", s.sessions), OccurredAt: at},
			{ID: id + "-2", SessionID: id, SubjectID: "u1", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitFor polls cond every 20 ms until it holds or limit passes.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// checkBeats: no two beats ran at once (the beats table's spans, whole
// seconds, do not overlap), every beat finished, and the ingested sessions
// were each consolidated once (episodes over all beats = sessions) with no
// event left behind.
func checkBeats(t *testing.T, st Store, project *governance.Project, sessions int) {
	t.Helper()
	ctx := context.Background()
	beats, err := st.FindBeats(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(beats, func(a, b *governance.BeatRecord) int { return int(a.ID - b.ID) })
	episodes := 0
	for i, b := range beats {
		if b.FinishedAt == nil {
			t.Fatalf("beat %d never finished", b.ID)
		}
		if i > 0 && b.StartedAt.Before(*beats[i-1].FinishedAt) {
			t.Errorf("beat %d started at %s, before beat %d finished at %s: two beats ran at once",
				b.ID, b.StartedAt, beats[i-1].ID, *beats[i-1].FinishedAt)
		}
		episodes += b.Episodes
	}
	if episodes != sessions {
		t.Errorf("the beats consolidated %d episodes, want one per session (%d): an event was lost or consolidated twice", episodes, sessions)
	}
	in, err := st.LoadConsolidateInput(ctx, project, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if in.NewEvents != 0 || len(in.Sessions) != 0 {
		t.Errorf("%d events and %d sessions were never consolidated", in.NewEvents, len(in.Sessions))
	}
}

// leaseTries stands between an instance and its elector. Once ended is
// set (the leader's session is over), it counts the tries for the
// leader's lease begun afterwards that did not take it; once dead the
// instance never takes that lease again (the death of a leader staged
// in-process: it must not lead again while the test watches the other).
type leaseTries struct {
	elector
	ended, dead atomic.Bool
	lateMisses  atomic.Int32
}

// watchLease puts a leaseTries before m's elector; call it before m.Open.
func watchLease(m *Main) *leaseTries {
	w := &leaseTries{elector: m.elector}
	m.elector = w
	return w
}

func (w *leaseTries) TryLead(ctx context.Context, job string) (lease, error) {
	if job == leaderJob && w.dead.Load() {
		return nil, nil
	}
	late := job == leaderJob && w.ended.Load()
	l, err := w.elector.TryLead(ctx, job)
	if late && l == nil {
		w.lateMisses.Add(1)
	}
	return l, err
}

// closeAndReopen stops m (no more beats) and opens its database again for
// the checks.
func closeAndReopen(t *testing.T, m *Main) Store {
	t.Helper()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	st, _, err := openStore(context.Background(), m.Config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestLeaderElection runs two consoles whose lease is a PostgreSQL advisory
// lock and whose data is one SQLite file — the election on its own, with
// the leader's death staged by ending its lease session: only the leader
// beats; "run now" on the follower is forwarded to the leader; once the
// leader's session has ended, the follower's next try for the lease (one
// every lease interval) takes it: no try begun after the end fails; no beat runs beside another and every
// session is consolidated exactly once. Tries are counted, not timed: a
// loaded machine delays them, it does not change which one succeeds.
func TestLeaderElection(t *testing.T) {
	const interval = 300 * time.Millisecond
	ctx := context.Background()
	leaseURL := postgrestest.NewDatabase(t)
	dir := t.TempDir()
	start := func() (*Main, *postgres.Store, *leaseTries) {
		t.Helper()
		pg, err := postgres.Open(ctx, leaseURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		cfg := DefaultConfig()
		cfg.Addr, cfg.DataDir, cfg.LogLevel, cfg.NoDemo, cfg.BeatInterval = "127.0.0.1:0", dir, "error", true, interval
		m, err := openMain(ctx, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		m.elector = pgElector{pg}
		w := watchLease(m)
		if err := m.Open(ctx, io.Discard); err != nil {
			m.Close()
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m, pg, w
	}
	a, pgA, triesA := start()
	b, _, triesB := start()
	if !a.leading.Load() || b.leading.Load() {
		t.Fatalf("leading: a %t, b %t; want only the first", a.leading.Load(), b.leading.Load())
	}
	p := &governance.Project{Slug: "ops", Name: "ops"}
	if err := b.Store.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	src := &eventSource{st: b.Store, project: p.ID}
	src.add(t, 3)
	beatWith := func(trigger string) func() bool {
		return func() bool {
			beats, err := b.Store.FindBeats(ctx, 50)
			return err == nil && slices.ContainsFunc(beats, func(r *governance.BeatRecord) bool {
				return r.Trigger == trigger && r.FinishedAt != nil
			})
		}
	}

	// "Run now" on the follower runs on the leader.
	clusterHeartbeat{b}.NudgeBy("manual:account:rita")
	waitFor(t, 10*time.Second, "the forwarded beat", beatWith("manual:account:rita"))
	if st := b.Heartbeat.Status(); st.Last != nil {
		t.Fatalf("the follower beat itself (beat %d)", st.Last.ID)
	}

	// The leader dies: its lease session ends and its process stops.
	src.add(t, 2)
	held, ok := a.currentLease().(*postgres.Lease)
	if !ok {
		t.Fatalf("the leader holds %T, want its PostgreSQL lease", a.currentLease())
	}
	triesA.dead.Store(true)
	var ended bool
	// With a timeout, pg_terminate_backend returns once the session has
	// ended (and its advisory locks with it).
	if err := pgA.Pool().QueryRow(ctx, `SELECT pg_terminate_backend($1, 60000)`, int64(held.PID())).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the leader's lease session: %t, %v", ended, err)
	}
	triesB.ended.Store(true)
	a.Close()
	waitFor(t, time.Minute, "the follower taking the lease", b.leading.Load)
	if n := triesB.lateMisses.Load(); n > 0 {
		t.Errorf("the follower tried for the lease %d times after the leader's session ended without taking it; want it taken at the first try", n)
	}
	src.add(t, 2)
	b.Heartbeat.NudgeBy("manual:after-failover")
	waitFor(t, 10*time.Second, "a beat by the new leader", beatWith("manual:after-failover"))
	checkBeats(t, closeAndReopen(t, b), p, src.sessions)
}

// The failover test proper runs the leader as a child process of the test
// binary, so it can be killed for real (SIGKILL).
const childEnv = "MNEMO_TEST_CHILD_SERVE"

// TestFailoverChild is the child console: it serves with the configuration
// its environment gives until it is killed. It does nothing in a normal run.
func TestFailoverChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as the child of TestFailover")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := run(ctx, []string{"serve"}, os.Getenv, nil, os.Stdout, os.Stderr); err != nil {
		t.Fatal(err)
	}
}

// TestFailover: two consoles on one PostgreSQL database, the leader a child
// process; SIGKILL it and the other takes over (how soon is
// TestLeaderElection's, counted in tries; here the figure is only
// logged); no beat runs twice and no event is lost. Before the kill, "console
// heartbeat --once" beside the leader is forwarded to it and runs there.
func TestFailover(t *testing.T) {
	const interval = 500 * time.Millisecond
	dbURL := postgrestest.NewDatabase(t)
	ctx := context.Background()
	child := exec.Command(os.Args[0], "-test.run=^TestFailoverChild$", "-test.v")
	child.Env = append(os.Environ(), childEnv+"=1", "MNEMO_DATABASE_URL="+dbURL, "MNEMO_ADDR=127.0.0.1:0",
		"MNEMO_DATA_DIR="+filepath.Join(t.TempDir(), "unused"), "MNEMO_NO_DEMO=true", "MNEMO_LOG_LEVEL=warn",
		"MNEMO_BEAT_INTERVAL="+interval.String())
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	started := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`Mnemo console: (http://\S+)/`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				started <- m[1]
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the child console did not start")
	}
	b := testConsole(t, dbURL, t.TempDir(), true, func(c *Config) { c.BeatInterval = interval })
	if b.leading.Load() {
		t.Fatal("the second console leads while the first runs")
	}
	p := &governance.Project{Slug: "ops", Name: "ops"}
	if err := b.Store.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	src := &eventSource{st: b.Store, project: p.ID}
	src.add(t, 3)
	// The leader beats the sessions.
	waitFor(t, 30*time.Second, "the leader consolidating", func() bool {
		in, err := b.Store.LoadConsolidateInput(ctx, p, time.Hour)
		return err == nil && in.NewEvents == 0
	})
	// "console heartbeat --once" while another instance leads asks it.
	var cliOut bytes.Buffer
	if err := run(ctx, []string{"heartbeat", "--once", "--database", dbURL}, env(nil), nil, &cliOut, &cliOut); err != nil ||
		!strings.Contains(cliOut.String(), "Another console instance leads the heartbeat") {
		t.Fatalf("heartbeat --once beside a leader: %v\n%s", err, cliOut.String())
	}
	waitFor(t, 30*time.Second, "the leader running the CLI's beat", func() bool {
		beats, err := b.Store.FindBeats(ctx, 50)
		return err == nil && slices.ContainsFunc(beats, func(r *governance.BeatRecord) bool { return r.Trigger == "cli" && r.FinishedAt != nil })
	})
	// Keep ingesting while the leader is killed.
	src.add(t, 2)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	src.add(t, 2)
	waitFor(t, 30*time.Second, "the second console taking over", b.leading.Load)
	took := time.Since(killed)
	t.Logf("the second console led %s after the leader was killed (beat interval %s)", took.Round(time.Millisecond), interval)
	src.add(t, 1)
	waitFor(t, 30*time.Second, "the new leader consolidating", func() bool {
		in, err := b.Store.LoadConsolidateInput(ctx, p, time.Hour)
		return err == nil && in.NewEvents == 0
	})
	checkBeats(t, closeAndReopen(t, b), p, src.sessions)
}
