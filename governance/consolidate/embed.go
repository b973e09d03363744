package consolidate

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// Backfill embeds the project's pending items in at most maxBatches calls
// of batch items each, and returns how many items got a vector. A failed
// model call stops it with the checkpoint where the last saved batch left
// it.
func Backfill(ctx context.Context, st governance.EmbedStore, e governance.Embedder, projectID int64, batch, maxBatches int) (int, error) {
	if batch <= 0 {
		batch = governance.DefaultEmbedBatch
	}
	if maxBatches <= 0 {
		maxBatches = governance.DefaultEmbedBatches
	}
	done := 0
	for range maxBatches {
		b, err := st.PendingEmbeddings(ctx, projectID, e.EmbedModel(), batch)
		if err != nil {
			return done, err
		}
		if len(b.Items) == 0 && b.Checkpoint == b.LastCheckpoint {
			return done, nil
		}
		var vecs [][]float32
		if len(b.Items) > 0 {
			texts := make([]string, len(b.Items))
			for i, it := range b.Items {
				texts[i] = it.Text
			}
			if vecs, err = e.Embed(ctx, texts); err != nil {
				return done, err
			}
			if len(vecs) != len(texts) {
				return done, governance.Errorf(governance.EINVALID, "The embeddings endpoint returned %d vectors for %d texts.", len(vecs), len(texts))
			}
		}
		if err := st.SaveEmbeddings(ctx, b, vecs); err != nil {
			return done, err
		}
		done += len(b.Items)
	}
	return done, nil
}
