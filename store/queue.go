package store

import (
	"context"
	"sync/atomic"
	"time"
)

// The store's two queues — the writer (one writing transaction or
// statement at a time, lockWriter) and the heavy-read slots (heavy.go) —
// report each turn to an observer when one is set (ObserveQueues): which
// store operation took it, how long it waited and how long it held it.
// cmd/console feeds them to /metrics; cmd/mnemo-load prints them.

// Queue names a store queue in a QueueTurn.
type Queue string

// The queues.
const (
	QueueWriter Queue = "writer"
	QueueHeavy  Queue = "heavy"
)

// QueueTurn is one turn of a queue. Op is the store method the caller
// entered the store through (IngestEvents, Recall, ForgetSubject, …), or
// the store's own background work (scrubber.run, sweepPages): a bounded
// set of names, each written where the turn is taken, never an argument.
type QueueTurn struct {
	Queue  Queue
	Op     string
	Waited time.Duration
	Held   time.Duration
}

// queueStats is what the store keeps of its queues: how many wait now,
// and the observer of finished turns.
type queueStats struct {
	waiting  [2]atomic.Int64 // by queueIndex
	observer atomic.Pointer[func(QueueTurn)]
}

func queueIndex(q Queue) int {
	if q == QueueHeavy {
		return 1
	}
	return 0
}

// ObserveQueues has fn called after every turn of the writer and of the
// heavy-read slots, once the turn has ended (it runs outside the queue);
// nil stops it. fn must be cheap and safe for concurrent use.
func (s *Store) ObserveQueues(fn func(QueueTurn)) {
	if fn == nil {
		s.queues.observer.Store(nil)
		return
	}
	s.queues.observer.Store(&fn)
}

// QueueWaiting is how many callers wait for q now (not counting the ones
// holding it).
func (s *Store) QueueWaiting(q Queue) int {
	return int(s.queues.waiting[queueIndex(q)].Load())
}

// Every turn is named where it is taken: lockWriter, begin, exec and
// heavyRead take the name of the store method they serve, a constant
// (never an argument). A method that reaches the queues through other
// store methods names its turns as one with withQueueOp (Recall's load
// and trace are Recall's).

// queueOpKey keys the name withQueueOp gives the turns taken under a
// context.
type queueOpKey struct{}

// withQueueOp names op every queue turn taken under the returned context,
// unless ctx already names one (the outermost method names its turns).
func withQueueOp(ctx context.Context, op string) context.Context {
	if _, named := ctx.Value(queueOpKey{}).(string); named {
		return ctx
	}
	return context.WithValue(ctx, queueOpKey{}, op)
}

// acquire waits for a slot of q's channel ch (a buffered channel used as a
// semaphore) until ctx ends, for the store method op (or the one ctx
// names, withQueueOp); the returned func gives it back and reports the
// turn. When ctx ends first it returns ctx's cause.
func (s *Store) acquire(ctx context.Context, q Queue, ch chan struct{}, op string) (func(), error) {
	observe := s.queues.observer.Load()
	if outer, ok := ctx.Value(queueOpKey{}).(string); ok && observe != nil {
		op = outer
	}
	start := time.Now()
	waiting := &s.queues.waiting[queueIndex(q)]
	waiting.Add(1)
	select {
	case ch <- struct{}{}:
		waiting.Add(-1)
	case <-ctx.Done():
		waiting.Add(-1)
		return nil, context.Cause(ctx)
	}
	if observe == nil {
		return func() { <-ch }, nil
	}
	got := time.Now()
	return func() {
		held := time.Since(got)
		<-ch
		(*observe)(QueueTurn{Queue: q, Op: op, Waited: got.Sub(start), Held: held})
	}, nil
}
