package store

import (
	"context"
	"fmt"
)

// heavyReads is how many full-text searches and recall loads run at once.
// Each can take seconds of CPU over a million events; unbounded, they held
// every pooled connection (eight) while the single writer and the cheap
// page reads (a session's timeline, the signed-in account) waited for one,
// and they shared the CPU among dozens of goroutines, so a millisecond
// page took seconds (the mixed load, cmd/mnemo-load). Queued here, at most
// heavyReads connections do such work and the others stay free.
const heavyReads = 3

// heavyRead waits for a slot for one full-text search or recall load of
// the store method op; the returned func gives it back. A waiter gives up
// when ctx ends.
func (s *Store) heavyRead(ctx context.Context, op string) (func(), error) {
	release, err := s.acquire(ctx, QueueHeavy, s.heavy, op)
	if err != nil {
		return nil, fmt.Errorf("store: waiting to search: %w", err)
	}
	return release, nil
}
