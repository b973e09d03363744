package outcome

import "sync"

// Batcher writes concurrent requests together, one transaction per batch
// (group commit): a request joins the pending batch, and the first caller
// with no batch being written becomes the leader, writes batches until
// its own request is written, then hands the lead to the oldest request
// still pending. Nothing runs in the background; each caller returns once
// its request was written, with its own error.
type Batcher[T any] struct {
	// Max bounds a batch (0: 256).
	Max int

	mu      sync.Mutex
	pending []*waiter[T]
	leading bool
}

type waiter[T any] struct {
	item T
	err  error
	// done gets true when the request was written (err set), false when
	// its caller is to lead.
	done chan bool
}

// Do writes item with the next batch. write gets the batch and returns one
// error per item, or one error for the whole batch (nothing written).
func (b *Batcher[T]) Do(item T, write func(items []T) ([]error, error)) error {
	w := &waiter[T]{item: item, done: make(chan bool, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, w)
	lead := !b.leading
	b.leading = true
	b.mu.Unlock()
	for !lead {
		if written := <-w.done; written {
			return w.err
		}
		lead = true
	}
	for {
		b.mu.Lock()
		limit := b.Max
		if limit <= 0 {
			limit = 256
		}
		batch := b.pending[:min(len(b.pending), limit)]
		b.pending = b.pending[len(batch):]
		b.mu.Unlock()
		items := make([]T, len(batch))
		for i, x := range batch {
			items[i] = x.item
		}
		errs, err := write(items)
		mine := false
		for i, x := range batch {
			switch {
			case err != nil:
				x.err = err
			case i < len(errs):
				x.err = errs[i]
			}
			if x == w {
				mine = true
				continue
			}
			x.done <- true
		}
		if !mine {
			continue
		}
		b.mu.Lock()
		if len(b.pending) == 0 {
			b.leading = false
			b.mu.Unlock()
			return w.err
		}
		next := b.pending[0]
		b.mu.Unlock()
		next.done <- false // next leads; it is still first in pending
		return w.err
	}
}
