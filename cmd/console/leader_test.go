package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
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
// beats; "run now" on the
// follower is forwarded to the leader; when the leader's session dies the
// follower takes over within two lease intervals; no beat runs beside
// another and every session is consolidated exactly once.
func TestLeaderElection(t *testing.T) {
	const interval = 300 * time.Millisecond
	ctx := context.Background()
	leaseURL := postgrestest.NewDatabase(t)
	dir := t.TempDir()
	start := func() (*Main, *postgres.Store) {
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
		if err := m.Open(ctx, io.Discard); err != nil {
			m.Close()
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m, pg
	}
	a, pgA := start()
	b, _ := start()
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
	if _, err := pgA.Pool().Exec(ctx, `SELECT pg_terminate_backend($1)`, int64(held.PID())); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	a.Close()
	took := waitFor(t, 10*time.Second, "the follower taking the lease", b.leading.Load)
	t.Logf("the follower led %s after the leader's session ended (lease interval %s)", took.Round(time.Millisecond), interval)
	if time.Since(killed) > 2*interval+time.Second {
		t.Errorf("takeover took %s, want within two lease intervals (%s) and scheduling slack", time.Since(killed), 2*interval)
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
// process; SIGKILL it and the other takes over within two beat intervals;
// no beat runs twice and no event is lost.
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
	if took > 2*interval+time.Second {
		t.Errorf("takeover took %s, want within two beat intervals (%s) and scheduling slack", took, 2*interval)
	}
	src.add(t, 1)
	waitFor(t, 30*time.Second, "the new leader consolidating", func() bool {
		in, err := b.Store.LoadConsolidateInput(ctx, p, time.Hour)
		return err == nil && in.NewEvents == 0
	})
	checkBeats(t, closeAndReopen(t, b), p, src.sessions)
}
