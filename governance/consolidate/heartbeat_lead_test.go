package consolidate_test

import (
	"context"
	"errors"
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
}

func (s *beatLog) FindProjects(context.Context) ([]*governance.Project, error) {
	return []*governance.Project{{ID: 1, Slug: "a"}, {ID: 2, Slug: "b"}}, nil
}

func (s *beatLog) LoadConsolidateInput(_ context.Context, p *governance.Project, _ time.Duration) (*governance.ConsolidateInput, error) {
	s.loaded++
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
		h := &consolidate.Heartbeat{Store: st, Every: 5 * time.Second, Hold: func(context.Context) error {
			calls++
			if calls > 2 { // the beat, the first project, then lost
				return errLost
			}
			return nil
		}}
		before := time.Now()
		rec, err := h.Beat(ctx, "test")
		if !errors.Is(err, errLost) || rec == nil {
			t.Fatalf("rec, err = %v, %v; want the record and the lease error", rec, err)
		}
		if st.loaded != 1 || len(st.finished) != 1 || st.finished[0].Errors == "" {
			t.Fatalf("loaded %d projects, finished %d beats (errors %q); want 1 project and the beat closed with the error",
				st.loaded, len(st.finished), rec.Errors)
		}
		// A failed beat backs off from Every: twice it.
		if next := rec.NextBeatAt.Sub(before); next < 10*time.Second || next > 11*time.Second {
			t.Fatalf("next beat in %s, want 10s (Every 5s, one failure)", next)
		}
	})
	t.Run("Every", func(t *testing.T) {
		st := &beatLog{}
		h := &consolidate.Heartbeat{Store: st, Every: 3 * time.Second}
		before := time.Now()
		rec, err := h.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if next := rec.NextBeatAt.Sub(before); next < 3*time.Second || next > 4*time.Second {
			t.Fatalf("next beat in %s, want 3s", next)
		}
	})
}
