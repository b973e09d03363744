package store

import (
	"context"
	"sync"
	"time"
)

// scrubber finishes, in the background, the WAL truncation a forget could
// not complete at once because readers still held snapshots from before
// it (forget.go, checkpointAfterForget). Wakes coalesce: one truncation
// serves every forget committed before it.
type scrubber struct {
	once   sync.Once
	wakeup chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (sc *scrubber) init() {
	sc.wakeup = make(chan struct{}, 1)
	sc.ctx, sc.cancel = context.WithCancel(context.Background())
}

// wake asks for a truncation; the goroutine starts with the first request.
func (sc *scrubber) wake(s *Store) {
	sc.once.Do(func() {
		sc.wg.Add(1)
		go sc.run(s)
	})
	select {
	case sc.wakeup <- struct{}{}:
	default:
	}
}

// run truncates the log after each wake, retrying with growing pauses
// (writers run in between) until no reader holds an older snapshot.
func (sc *scrubber) run(s *Store) {
	defer sc.wg.Done()
	for {
		select {
		case <-sc.ctx.Done():
			return
		case <-sc.wakeup:
		}
		for pause := 20 * time.Millisecond; ; pause = min(2*pause, time.Second) {
			if done, err := s.truncateWAL(sc.ctx, "scrubber.run"); done || sc.ctx.Err() != nil {
				break
			} else if err != nil {
				pause = time.Second
			}
			select {
			case <-sc.ctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}
}

// stop ends the goroutine; Close then truncates the log itself.
func (sc *scrubber) stop() {
	sc.cancel()
	sc.wg.Wait()
}

// truncateWAL takes the writer slot for one truncation attempt.
func (s *Store) truncateWAL(ctx context.Context, op string) (bool, error) {
	unlock, err := s.lockWriter(ctx, op)
	if err != nil {
		return false, err
	}
	defer unlock()
	return s.truncateWALHeld(ctx, forgetScrubWait)
}
