package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// blockingEmbedder is an embeddings endpoint that answers nothing until
// released; entered is sent a value by every call as it starts waiting.
type blockingEmbedder struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingEmbedder) EmbedModel() string { return "slow-embed" }

func (b *blockingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0}
	}
	return out, nil
}

// TestRecallEmbedsOutsideHeavySlots: recalls waiting for a slow embeddings
// endpoint hold none of the heavy-read slots, so as many of them as there
// are slots still leave a search to run at once.
func TestRecallEmbedsOutsideHeavySlots(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "we always take the kayak")}); err != nil {
		t.Fatal(err)
	}
	emb := &blockingEmbedder{entered: make(chan struct{}), release: make(chan struct{})}
	s.Embedder = emb
	const recalls = 3 // store.heavyReads
	var wg sync.WaitGroup
	errs := make(chan error, recalls)
	for range recalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Recall(ctx, "agent", governance.RecallRequest{ProjectID: p.ID, SubjectID: "family-1", Task: "kayak trip", IncludeEvents: true})
			errs <- err
		}()
	}
	for range recalls {
		<-emb.entered
	}
	searched := make(chan error, 1)
	go func() {
		_, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "kayak"})
		searched <- err
	}()
	// Either the search finishes, or it queues for a slot the recalls hold.
	var release sync.Once
	var err error
wait:
	for {
		select {
		case err = <-searched:
			break wait
		default:
		}
		if s.QueueWaiting(store.QueueHeavy) > 0 {
			t.Errorf("a search waits for a heavy-read slot while %d recalls wait for the embeddings endpoint", recalls)
			release.Do(func() { close(emb.release) })
			err = <-searched
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	release.Do(func() { close(emb.release) })
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
