package governance

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// Embedder turns texts into vectors: the semantic channel of recall, an
// embeddings endpoint (governance/model). Nil everywhere means the channel
// is off and recall ranks by words alone.
type Embedder interface {
	// Embed returns one vector per text, in order, all of one length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedModel names the model; vectors of different models are never
	// compared.
	EmbedModel() string
}

// EmbedItem is a memory waiting for its vector: a rule, an episode or a
// raw event of one project, with the text the vector is made of.
type EmbedItem struct {
	Kind      RecallKind
	ID        int64 // rule id, episode id or event seq
	SubjectID string
	Text      string
}

// EmbedBatch is what the heartbeat embeds in one model call: the items and
// the event checkpoint to store with their vectors.
type EmbedBatch struct {
	ProjectID int64
	Model     string
	Items     []EmbedItem
	// Checkpoint is the last event seq the batch covers; LastCheckpoint the
	// one it started from. Events up to Checkpoint that are not in Items
	// (tool calls, redacted or empty ones) need no vector.
	LastCheckpoint, Checkpoint int64
}

// EmbedStore keeps the vectors of one model per project and the event
// checkpoint of the backfill. A batch is saved whole or not at all.
type EmbedStore interface {
	// PendingEmbeddings returns up to limit items of the project without a
	// vector of model: rules and episodes without one, then events after the
	// checkpoint.
	PendingEmbeddings(ctx context.Context, projectID int64, model string, limit int) (*EmbedBatch, error)
	// SaveEmbeddings stores the vectors of batch's items (skipping an item
	// changed or removed meanwhile) and moves the checkpoint, in one
	// transaction.
	SaveEmbeddings(ctx context.Context, batch *EmbedBatch, vectors [][]float32) error
}

// Semantic channel defaults.
const (
	// DefaultEmbedBatch is how many items one embeddings call carries.
	DefaultEmbedBatch = 64
	// DefaultEmbedBatches bounds the calls per project and beat, so a large
	// backlog is worked off over several beats.
	DefaultEmbedBatches = 8
)

// Normalized returns v scaled to unit length (nil for a zero or empty
// vector), so a dot product of two is their cosine.
func Normalized(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// Dot is the dot product of two vectors of equal length (0 otherwise).
func Dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// SemanticHit is one memory's cosine with the task, on unit vectors.
type SemanticHit struct {
	ID     int64   `json:"id"`
	Cosine float64 `json:"cosine"`
}

// TopSemantic returns the k hits of highest cosine of at least minCosine,
// best first, ties to the lowest id.
func TopSemantic(hits []SemanticHit, k int, minCosine float64) []SemanticHit {
	hits = slices.DeleteFunc(hits, func(h SemanticHit) bool { return h.Cosine < minCosine })
	slices.SortFunc(hits, func(a, b SemanticHit) int {
		if c := cmp.Compare(b.Cosine, a.Cosine); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// RuleHit is a rule close in meaning to a search, with its cosine.
type RuleHit struct {
	Rule   *Rule
	Cosine float64
}

// SimilarQuery asks a store for the rules closest in meaning to a search:
// the search's vector (unit length) of Model, at most K rules of cosine at
// least MinCosine.
type SimilarQuery struct {
	Model     string
	Vector    []float32
	K         int
	MinCosine float64
}

// Semantic search of the rules list (the reviewers' rules page, when an
// embeddings model is configured): at most SimilarRulesK rules whose
// vector's cosine with the search is at least MinSearchCosine, beside the
// rules that hold every word of it.
const (
	SimilarRulesK   = 10
	MinSearchCosine = 0.3
)
