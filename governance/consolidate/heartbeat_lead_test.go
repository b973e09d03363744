package consolidate_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
)

// beatLog is a HeartbeatStore with two empty projects that records what
// the heartbeat asked of it.
type beatLog struct {
	started, loaded int
	finished        []*governance.BeatRecord
	// load, when set, answers LoadConsolidateInput instead.
	load func(ctx context.Context, p *governance.Project) error
}

func (s *beatLog) FindProjects(context.Context) ([]*governance.Project, error) {
	return []*governance.Project{{ID: 1, Slug: "a"}, {ID: 2, Slug: "b"}}, nil
}

func (s *beatLog) LoadConsolidateInput(ctx context.Context, p *governance.Project, _ time.Duration) (*governance.ConsolidateInput, error) {
	s.loaded++
	if s.load != nil {
		if err := s.load(ctx, p); err != nil {
			return nil, err
		}
	}
	return &governance.ConsolidateInput{Project: p}, nil
}

func (s *beatLog) ApplyBeatPlan(context.Context, *governance.BeatPlan) error { return nil }

func (s *beatLog) StartBeat(_ context.Context, trigger string) (*governance.BeatRecord, error) {
	s.started++
	return &governance.BeatRecord{ID: int64(s.started), Trigger: trigger}, nil
}

func (s *beatLog) FinishBeat(_ context.Context, b *governance.BeatRecord) error {
	s.finished = append(s.finished, b)
	return nil
}

// t0 is the time of the tests' clock, far from the wall clock's.
var t0 = time.Date(2020, 3, 1, 9, 0, 0, 0, time.UTC)

func clock() time.Time { return t0 }

// TestHeartbeatHold: a heartbeat whose instance does not lead starts no
// beat; one that loses the lead during a beat stops before the next
// project and records why; Every fixes the time to the next beat.
func TestHeartbeatHold(t *testing.T) {
	ctx := context.Background()
	errLost := errors.New("lease lost")
	t.Run("NotLeading", func(t *testing.T) {
		st := &beatLog{}
		h := &consolidate.Heartbeat{Store: st, Hold: func(context.Context) error { return errLost }}
		if _, err := h.Beat(ctx, "test"); !errors.Is(err, errLost) {
			t.Fatalf("err = %v, want the lease error", err)
		}
		if st.started != 0 || st.loaded != 0 {
			t.Fatalf("started %d beats, loaded %d projects; want none", st.started, st.loaded)
		}
	})
	t.Run("LostDuringTheBeat", func(t *testing.T) {
		st := &beatLog{}
		calls := 0
		h := &consolidate.Heartbeat{Store: st, Every: 5 * time.Second, Now: clock, Hold: func(context.Context) error {
			calls++
			if calls > 2 { // the beat, the first project, then lost
				return errLost
			}
			return nil
		}}
		rec, err := h.Beat(ctx, "test")
		if !errors.Is(err, errLost) || rec == nil {
			t.Fatalf("rec, err = %v, %v; want the record and the lease error", rec, err)
		}
		if st.loaded != 1 || len(st.finished) != 1 || st.finished[0].Errors == "" {
			t.Fatalf("loaded %d projects, finished %d beats (errors %q); want 1 project and the beat closed with the error",
				st.loaded, len(st.finished), rec.Errors)
		}
		// A failed beat backs off from Every: twice it.
		if next := rec.NextBeatAt.Sub(t0); next != 10*time.Second {
			t.Fatalf("next beat in %s, want 10s (Every 5s, one failure)", next)
		}
	})
	t.Run("Every", func(t *testing.T) {
		st := &beatLog{}
		h := &consolidate.Heartbeat{Store: st, Every: 3 * time.Second, Now: clock}
		rec, err := h.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if next := rec.NextBeatAt.Sub(t0); next != 3*time.Second {
			t.Fatalf("next beat in %s, want 3s", next)
		}
	})
}

// logLines is a slog handler that keeps the records' levels and messages.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, r.Level.String()+" "+r.Message)
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

func (l *logLines) at(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.HasPrefix(line, level.String()+" ") {
			out = append(out, line)
		}
	}
	return out
}

// TestHeartbeatCancelled: a beat whose context is cancelled (a shutdown)
// during one project walks no further, logs no error, says once that it
// was interrupted, and still closes its record.
func TestHeartbeatCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &beatLog{load: func(ctx context.Context, p *governance.Project) error {
		cancel()
		return ctx.Err()
	}}
	var log logLines
	h := &consolidate.Heartbeat{Store: st, Now: clock, Logger: slog.New(&log)}
	_, err := h.Beat(ctx, "test")
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want interrupted", err)
	}
	if st.loaded != 1 || len(st.finished) != 1 {
		t.Fatalf("loaded %d projects, finished %d beats; want 1 and 1", st.loaded, len(st.finished))
	}
	if errs := log.at(slog.LevelError); len(errs) != 0 {
		t.Fatalf("errors logged: %q", errs)
	}
	if infos := log.at(slog.LevelInfo); len(infos) != 1 {
		t.Fatalf("info lines: %q, want one saying the beat was interrupted", infos)
	}
}

// TestHeartbeatRun: Run waits for the next beat on the heartbeat's own
// clock and timer (Every after a good beat, measured from Now, however
// far Now is from the wall clock), and logs a project's failure once.
func TestHeartbeatRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &beatLog{load: func(_ context.Context, p *governance.Project) error {
		if p.Slug == "b" {
			return errors.New("disk on fire")
		}
		return nil
	}}
	var log logLines
	waits := make(chan time.Duration)
	fire := make(chan time.Time)
	h := &consolidate.Heartbeat{Store: st, Every: 10 * time.Minute, Now: clock, Logger: slog.New(&log),
		After: func(d time.Duration) <-chan time.Time { waits <- d; return fire }}
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	// The first beat failed on b: it backs off to twice Every.
	if d := <-waits; d != 20*time.Minute {
		t.Fatalf("Run waits %s after a failed beat, want 20m (twice Every)", d)
	}
	if errs := log.at(slog.LevelError); len(errs) != 1 || len(log.at(slog.LevelWarn)) != 0 {
		t.Fatalf("logged errors %q and warnings %q; want the project's failure once", errs, log.at(slog.LevelWarn))
	}
	st.load = nil
	fire <- t0
	if d := <-waits; d != 10*time.Minute {
		t.Fatalf("Run waits %s after a good beat, want Every (10m)", d)
	}
	cancel()
	<-done
	if len(st.finished) != 2 {
		t.Fatalf("%d beats, want 2", len(st.finished))
	}
}
