package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/semantic"
)

// The semantic channel's vectors (migration 0017; SQLite's 0028): the
// heartbeat's backfill reads what has no vector yet (PendingEmbeddings)
// and stores the model's answer (SaveEmbeddings); recall compares them in
// Go (store/internal/semantic), as on SQLite.

// SetEmbedder turns recall's semantic channel on (e not nil) or off; call
// it before the store serves.
func (s *Store) SetEmbedder(e governance.Embedder) { s.Embedder = e }

// PendingEmbeddings returns up to limit items of the project that have no
// vector of model: usable rules (active or stale) and episodes without
// one, then the message events after the project's embedding checkpoint
// (by seq; redacted and empty ones are passed over and covered by the
// checkpoint).
func (s *Store) PendingEmbeddings(ctx context.Context, projectID int64, model string, limit int) (*governance.EmbedBatch, error) {
	b := &governance.EmbedBatch{ProjectID: projectID, Model: model}
	if limit <= 0 {
		return b, nil
	}
	if err := queryAll(ctx, s.pool, `
		SELECT r.id, r.subject_id, r.text FROM rules r
		WHERE r.project_id = $1 AND r.status IN ('active', 'stale') AND r.text <> ''
			AND NOT EXISTS (SELECT 1 FROM embeddings m WHERE m.kind = 'rule' AND m.item_id = r.id AND m.model = $2)
		ORDER BY r.id LIMIT $3`, []any{projectID, model, limit}, semantic.PendingRow[pgx.Row](b, governance.RecallKindRule)); err != nil {
		return nil, fmt.Errorf("postgres: pending rule embeddings: %w", err)
	}
	if n := limit - len(b.Items); n > 0 {
		if err := queryAll(ctx, s.pool, `
			SELECT e.id, e.subject_id, e.summary FROM episodes e
			WHERE e.project_id = $1 AND e.summary <> ''
				AND NOT EXISTS (SELECT 1 FROM embeddings m WHERE m.kind = 'episode' AND m.item_id = e.id AND m.model = $2)
			ORDER BY e.id LIMIT $3`, []any{projectID, model, n}, semantic.PendingRow[pgx.Row](b, governance.RecallKindEpisode)); err != nil {
			return nil, fmt.Errorf("postgres: pending episode embeddings: %w", err)
		}
	}
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE((SELECT event_seq FROM embed_checkpoints WHERE project_id = $1 AND model = $2), 0)`,
		projectID, model).Scan(&b.LastCheckpoint); err != nil {
		return nil, fmt.Errorf("postgres: embedding checkpoint: %w", err)
	}
	b.Checkpoint = b.LastCheckpoint
	if n := limit - len(b.Items); n > 0 {
		if err := queryAll(ctx, s.pool, `
			SELECT seq, subject_id, text, kind = 'message' AND NOT redacted AND text <> '' FROM events
			WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, []any{projectID, b.LastCheckpoint, n}, semantic.PendingEventRow[pgx.Row](b)); err != nil {
			return nil, fmt.Errorf("postgres: pending event embeddings: %w", err)
		}
	}
	return b, nil
}

// SaveEmbeddings stores one vector per item of batch (semantic.Vector) and
// the batch's event checkpoint, in one transaction. An item whose text
// changed or went since it was read (a forget, an edit) gets no vector:
// the next beat reads it again. The forget generation's lock (as a beat's
// write takes it) makes a forget in flight and this write take turns, so
// a vector is never stored for a text the forget removed meanwhile.
func (s *Store) SaveEmbeddings(ctx context.Context, batch *governance.EmbedBatch, vectors [][]float32) error {
	if len(vectors) != len(batch.Items) {
		return fmt.Errorf("postgres: save embeddings: %d vectors for %d items", len(vectors), len(batch.Items))
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.rollback()
	if _, err := lockForgetGeneration(ctx, tx, batch.ProjectID); err != nil {
		return err
	}
	for i, it := range batch.Items {
		var source string
		switch it.Kind {
		case governance.RecallKindRule:
			source = `SELECT id AS item_id, project_id, subject_id FROM rules WHERE id = $4 AND project_id = $5 AND text = $6 AND status IN ('active', 'stale')`
		case governance.RecallKindEpisode:
			source = `SELECT id AS item_id, project_id, subject_id FROM episodes WHERE id = $4 AND project_id = $5 AND summary = $6`
		case governance.RecallKindEvent:
			source = `SELECT seq AS item_id, project_id, subject_id FROM events WHERE seq = $4 AND project_id = $5 AND text = $6 AND NOT redacted`
		default:
			return fmt.Errorf("postgres: save embeddings: unknown kind %q", it.Kind)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO embeddings (kind, item_id, model, project_id, subject_id, vector)
			SELECT $1, s.item_id, $2, s.project_id, s.subject_id, $3 FROM (`+source+`) s
			ON CONFLICT (kind, item_id, model) DO UPDATE SET project_id = excluded.project_id, subject_id = excluded.subject_id,
				vector = excluded.vector`,
			string(it.Kind), batch.Model, semantic.Vector(vectors[i]), it.ID, batch.ProjectID, it.Text); err != nil {
			return fmt.Errorf("postgres: save embedding %s:%d: %w", it.Kind, it.ID, err)
		}
	}
	if batch.Checkpoint != batch.LastCheckpoint {
		if _, err := tx.Exec(ctx, `INSERT INTO embed_checkpoints (project_id, model, event_seq) VALUES ($1, $2, $3)
			ON CONFLICT (project_id, model) DO UPDATE SET event_seq = GREATEST(embed_checkpoints.event_seq, excluded.event_seq)`,
			batch.ProjectID, batch.Model, batch.Checkpoint); err != nil {
			return fmt.Errorf("postgres: embedding checkpoint: %w", err)
		}
	}
	return tx.Commit(ctx)
}

// recallSemantic is semantic.Source in PostgreSQL for one request.
type recallSemantic recallSource

func (r recallSemantic) Vectors(ctx context.Context, model string, kind governance.RecallKind, fn func(int64, []byte)) error {
	err := queryAll(ctx, r.s.pool, `
		SELECT item_id, vector FROM embeddings
		WHERE project_id = $1 AND model = $2 AND kind = $3 AND subject_id IN ('', $4)`,
		[]any{r.req.ProjectID, model, string(kind), r.req.SubjectID}, semantic.VectorRow[pgx.Row](fn))
	if err != nil {
		return fmt.Errorf("postgres: recall %s vectors: %w", kind, err)
	}
	return nil
}

func (r recallSemantic) Episodes(ctx context.Context, ids []int64, add func(*governance.Episode)) error {
	err := queryAll(ctx, r.s.pool, `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.id = ANY($1) AND e.project_id = $2 AND e.subject_id IN ('', $3) ORDER BY e.id`,
		[]any{ids, r.req.ProjectID, r.req.SubjectID}, func(row pgx.Row) error {
			e, err := scanEpisode(row)
			if err == nil {
				add(e)
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("postgres: recall episodes by vector: %w", err)
	}
	return nil
}

func (r recallSemantic) Events(ctx context.Context, seqs []int64, add func(*governance.Event)) error {
	err := queryAll(ctx, r.s.pool, `SELECT `+eventColumns+` FROM events e
		WHERE e.seq = ANY($1) AND e.project_id = $2 AND e.subject_id IN ('', $3)
			AND NOT e.redacted AND e.kind = 'message' ORDER BY e.seq`,
		[]any{seqs, r.req.ProjectID, r.req.SubjectID}, func(row pgx.Row) error {
			e, err := scanEvent(row)
			if err == nil {
				add(e)
			}
			return err
		})
	if err != nil {
		return fmt.Errorf("postgres: recall events by vector: %w", err)
	}
	return nil
}

// SimilarRules returns at most q.K of the rules f selects (its Query
// aside) whose vectors of q.Model have a cosine of at least q.MinCosine
// with q.Vector, best first; a rule without such a vector is not among
// them.
func (s *Store) SimilarRules(ctx context.Context, f governance.RuleFilter, q governance.SimilarQuery) ([]governance.RuleHit, error) {
	f.Query = ""
	w := ruleWhere(f)
	w.add("m.model = ?", q.Model)
	hits, err := semantic.Similar(q.Vector, q.K, q.MinCosine, func(fn func(int64, []byte)) error {
		return queryAll(ctx, s.pool, `SELECT r.id, m.vector FROM rules r
			JOIN embeddings m ON m.kind = 'rule' AND m.item_id = r.id
			WHERE `+w.String(), w.args, semantic.VectorRow[pgx.Row](fn))
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: similar rules: %w", err)
	}
	return semantic.RuleHits(ctx, hits, s.FindRulesByIDs)
}
