package store

import (
	"context"
	"runtime"
	"strings"
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
// the store's own background work (scrubber.run): a bounded set of names,
// never an argument.
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

// acquire waits for a slot of q's channel ch (a buffered channel used as a
// semaphore) until ctx ends; the returned func gives it back and reports
// the turn. When ctx ends first it returns ctx's cause.
func (s *Store) acquire(ctx context.Context, q Queue, ch chan struct{}) (func(), error) {
	observe := s.queues.observer.Load()
	var op string
	if observe != nil {
		op = queueOp()
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

// storePackage prefixes the functions of this package and its internal
// packages.
const storePackage = "github.com/mnemo-console/mnemo/store"

// queueOp names the operation a queue turn serves: the outermost function
// of the store (or of its internal packages) on the caller's stack, that
// is the method through which the caller entered the store (opName).
func queueOp() string {
	var pcs [48]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	name := ""
	for {
		f, more := frames.Next()
		rest, ok := strings.CutPrefix(f.Function, storePackage)
		if !ok || rest == "" || (rest[0] != '.' && rest[0] != '/') {
			break
		}
		name = f.Function
		if !more {
			break
		}
	}
	return opName(name)
}

// opName shortens a function's full name to its method ("IngestEvents"),
// or to receiver and method for an unexported method, work the store runs
// on a goroutine of its own ("scrubber.run").
func opName(fn string) string {
	if fn == "" {
		return "unknown"
	}
	fn = fn[strings.LastIndex(fn, "/")+1:] // pkg.(*T[...]).M.func1
	fn = strings.ReplaceAll(fn, "[...]", "")
	parts := strings.Split(fn, ".")[1:] // (*T), M, func1
	for len(parts) > 1 && generated(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	recv := ""
	if len(parts) > 1 {
		recv = strings.Trim(parts[0], "(*)")
	}
	method := parts[len(parts)-1]
	if recv == "" || recv == "Store" || method[0] >= 'A' && method[0] <= 'Z' {
		return method
	}
	return recv + "." + method
}

// generated reports whether a name part is the compiler's: a closure
// ("func2") or a go statement's wrapper ("gowrap1").
func generated(part string) bool {
	for _, prefix := range []string{"func", "gowrap"} {
		if rest, ok := strings.CutPrefix(part, prefix); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}
