// Package semantic is recall's semantic channel as both stores run it:
// the task is embedded, the request's in-scope vectors are compared with
// it in Go (brute force within the scope; unit vectors, so a dot product
// is the cosine) and the closest memories of each kind join recall's
// input. Each backend gives it only the SQL (Source); the vectors are
// stored the same way on both (Encode), by the heartbeat's backfill.
package semantic

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// EmbedTimeout bounds the embedding of a task: past it recall ranks by
// words alone rather than keep an agent waiting.
const EmbedTimeout = 5 * time.Second

// Source reads one recall request's scope (its project, its subject and
// the project-wide memories) in one backend.
type Source interface {
	// Vectors calls fn with every in-scope vector of kind stored for model.
	Vectors(ctx context.Context, model string, kind governance.RecallKind, fn func(id int64, vector []byte)) error
	// Episodes calls add with the in-scope episodes of ids, by id.
	Episodes(ctx context.Context, ids []int64, add func(*governance.Episode)) error
	// Events calls add with the in-scope, unredacted message events of
	// seqs, by seq.
	Events(ctx context.Context, seqs []int64, add func(*governance.Event)) error
}

// Query is a task's vector, or why there is none.
type Query struct {
	Model  string
	Vector []float32 // unit length; nil when the task could not be embedded
}

// Embed embeds req's task with emb. A failed embedding call is no error:
// the query has no vector, the trace will say so and the words rank
// alone; only the end of ctx is an error. It holds nothing of the store
// while it waits for the endpoint: a backend calls it before it takes a
// slot for the queries of Find.
func Embed(ctx context.Context, emb governance.Embedder, req governance.RecallRequest) (*Query, error) {
	q := &Query{Model: emb.EmbedModel()}
	ectx, cancel := context.WithTimeout(ctx, EmbedTimeout)
	vecs, err := emb.Embed(ectx, []string{strings.TrimSpace(req.Task + " " + req.TaskType)})
	cancel()
	if err == nil && len(vecs) == 1 {
		q.Vector = governance.Normalized(vecs[0])
	}
	if q.Vector == nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return q, nil
}

// Load is Embed then Find.
func Load(ctx context.Context, emb governance.Embedder, src Source, req governance.RecallRequest, in *governance.RecallInput) error {
	q, err := Embed(ctx, emb, req)
	if err != nil {
		return err
	}
	return Find(ctx, q, src, req, in)
}

// Find finds, per kind, the in-scope memories whose vectors are closest to
// the query's (in.Semantic); episodes and events among them that the words
// did not find are added to in's candidates.
func Find(ctx context.Context, query *Query, src Source, req governance.RecallRequest, in *governance.RecallInput) error {
	model := query.Model
	in.Semantic = &governance.RecallSemantic{Model: model}
	w := governance.DefaultRecallWeights()
	if query.Vector == nil {
		in.Semantic.Error = "The task could not be embedded; relevance is the words' alone."
		return nil
	}
	var err error
	top := func(kind governance.RecallKind) ([]governance.SemanticHit, error) {
		return Similar(query.Vector, w.SemanticTopK, w.MinCosine, func(fn func(int64, []byte)) error {
			return src.Vectors(ctx, model, kind, fn)
		})
	}
	if in.Semantic.Rules, err = top(governance.RecallKindRule); err != nil {
		return err
	}
	if in.Semantic.Episodes, err = top(governance.RecallKindEpisode); err != nil {
		return err
	}
	have := map[int64]bool{}
	for _, e := range in.Episodes {
		have[e.Episode.ID] = true
	}
	if missing := notIn(in.Semantic.Episodes, have); len(missing) > 0 {
		if err := src.Episodes(ctx, missing, func(e *governance.Episode) {
			in.Episodes = append(in.Episodes, governance.RecallEpisode{Episode: e})
		}); err != nil {
			return err
		}
	}
	if !req.IncludeEvents {
		return nil
	}
	if in.Semantic.Events, err = top(governance.RecallKindEvent); err != nil {
		return err
	}
	clear(have)
	for _, e := range in.Events {
		have[e.Event.Seq] = true
	}
	if missing := notIn(in.Semantic.Events, have); len(missing) > 0 {
		return src.Events(ctx, missing, func(e *governance.Event) {
			in.Events = append(in.Events, governance.RecallEvent{Event: e})
		})
	}
	return nil
}

// Similar returns the k hits of highest cosine with query (unit length)
// of at least minCosine among the vectors that each calls fn with.
func Similar(query []float32, k int, minCosine float64, each func(fn func(id int64, vector []byte)) error) ([]governance.SemanticHit, error) {
	var hits []governance.SemanticHit
	if err := each(func(id int64, vec []byte) {
		hits = append(hits, governance.SemanticHit{ID: id, Cosine: Dot(query, vec)})
	}); err != nil {
		return nil, err
	}
	return governance.TopSemantic(hits, k, minCosine), nil
}

// RuleHits pairs hits with their rules, read by find, best first; a hit
// whose rule is gone is left out.
func RuleHits(ctx context.Context, hits []governance.SemanticHit, find func(context.Context, []int64) ([]*governance.Rule, error)) ([]governance.RuleHit, error) {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	rules, err := find(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*governance.Rule, len(rules))
	for _, r := range rules {
		byID[r.ID] = r
	}
	out := []governance.RuleHit{}
	for _, h := range hits {
		if r := byID[h.ID]; r != nil {
			out = append(out, governance.RuleHit{Rule: r, Cosine: h.Cosine})
		}
	}
	return out, nil
}

// Scanner reads one row's columns (a database/sql row, a pgx row).
type Scanner interface{ Scan(dest ...any) error }

// VectorRow reads (id, vector) rows for a backend's query loop, calling fn
// with each.
func VectorRow[R Scanner](fn func(id int64, vector []byte)) func(R) error {
	return func(row R) error {
		var (
			id  int64
			vec []byte
		)
		if err := row.Scan(&id, &vec); err != nil {
			return err
		}
		fn(id, vec)
		return nil
	}
}

// notIn returns the ids of hits that have does not hold.
func notIn(hits []governance.SemanticHit, have map[int64]bool) []int64 {
	var out []int64
	for _, h := range hits {
		if !have[h.ID] {
			out = append(out, h.ID)
		}
	}
	return out
}

// Vector returns what the store keeps of a model's vector: unit length
// (zeros when it has no direction, so it is close to nothing), encoded.
func Vector(v []float32) []byte {
	n := governance.Normalized(v)
	if n == nil {
		n = make([]float32, len(v))
	}
	return Encode(n)
}

// Encode is a vector as little-endian float32s.
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Dot is the dot product of q with an encoded vector of the same length (0
// otherwise), without decoding it into a slice.
func Dot(q []float32, b []byte) float64 {
	if len(b) != 4*len(q) {
		return 0
	}
	var s float64
	for i, x := range q {
		s += float64(x) * float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return s
}

// PendingRow reads (id, subject, text) rows of items of kind without a
// vector into b's items: the rules and episodes of PendingEmbeddings.
func PendingRow[R Scanner](b *governance.EmbedBatch, kind governance.RecallKind) func(R) error {
	return func(row R) error {
		it := governance.EmbedItem{Kind: kind}
		if err := row.Scan(&it.ID, &it.SubjectID, &it.Text); err != nil {
			return err
		}
		b.Items = append(b.Items, it)
		return nil
	}
}

// PendingEventRow reads (seq, subject, text, wanted) rows of the events
// after b's checkpoint: each moves the checkpoint, and a wanted one (an
// unredacted message with text) joins b's items.
func PendingEventRow[R Scanner](b *governance.EmbedBatch) func(R) error {
	return func(row R) error {
		var (
			it   = governance.EmbedItem{Kind: governance.RecallKindEvent}
			want bool
		)
		if err := row.Scan(&it.ID, &it.SubjectID, &it.Text, &want); err != nil {
			return err
		}
		b.Checkpoint = it.ID
		if want {
			b.Items = append(b.Items, it)
		}
		return nil
	}
}
