package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/semantic"
)

var _ governance.EmbedStore = (*Store)(nil)

// SetEmbedder turns recall's semantic channel on (e not nil) or off; call
// it before the store serves.
func (s *Store) SetEmbedder(e governance.Embedder) { s.Embedder = e }

// PendingEmbeddings returns up to limit items of the project that have no
// vector of model: in-scope usable rules (active or stale) and episodes
// without one, then the message events after the project's embedding
// checkpoint (by seq; redacted and empty ones are passed over and covered
// by the checkpoint).
func (s *Store) PendingEmbeddings(ctx context.Context, projectID int64, model string, limit int) (*governance.EmbedBatch, error) {
	b := &governance.EmbedBatch{ProjectID: projectID, Model: model}
	if limit <= 0 {
		return b, nil
	}
	err := queryAll(ctx, s.read, `
		SELECT r.id, r.subject_id, r.text FROM rules r
		WHERE r.project_id = ? AND r.status IN ('active', 'stale') AND r.text <> ''
			AND NOT EXISTS (SELECT 1 FROM embeddings m WHERE m.kind = 'rule' AND m.item_id = r.id AND m.model = ?)
		ORDER BY r.id LIMIT ?`, []any{projectID, model, limit}, semantic.PendingRow[scanner](b, governance.RecallKindRule))
	if err != nil {
		return nil, fmt.Errorf("store: pending rule embeddings: %w", err)
	}
	if n := limit - len(b.Items); n > 0 {
		err = queryAll(ctx, s.read, `
			SELECT e.id, e.subject_id, e.summary FROM episodes e
			WHERE e.project_id = ? AND e.summary <> ''
				AND NOT EXISTS (SELECT 1 FROM embeddings m WHERE m.kind = 'episode' AND m.item_id = e.id AND m.model = ?)
			ORDER BY e.id LIMIT ?`, []any{projectID, model, n}, semantic.PendingRow[scanner](b, governance.RecallKindEpisode))
		if err != nil {
			return nil, fmt.Errorf("store: pending episode embeddings: %w", err)
		}
	}
	err = s.read.QueryRowContext(ctx, `SELECT COALESCE((SELECT event_seq FROM embed_checkpoints WHERE project_id = ? AND model = ?), 0)`,
		projectID, model).Scan(&b.LastCheckpoint)
	if err != nil {
		return nil, fmt.Errorf("store: embedding checkpoint: %w", err)
	}
	b.Checkpoint = b.LastCheckpoint
	if n := limit - len(b.Items); n > 0 {
		err = queryAll(ctx, s.read, `
			SELECT seq, subject_id, text, kind = 'message' AND redacted = 0 AND text <> '' FROM events
			WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?`, []any{projectID, b.LastCheckpoint, n}, semantic.PendingEventRow[scanner](b))
		if err != nil {
			return nil, fmt.Errorf("store: pending event embeddings: %w", err)
		}
	}
	return b, nil
}

// SaveEmbeddings stores one vector per item of batch (unit length, so a dot
// product is the cosine) and the batch's event checkpoint, in one
// transaction. An item whose text changed or went since it was read
// (a forget, an edit) gets no vector: the next beat reads it again.
func (s *Store) SaveEmbeddings(ctx context.Context, batch *governance.EmbedBatch, vectors [][]float32) error {
	if len(vectors) != len(batch.Items) {
		return fmt.Errorf("store: save embeddings: %d vectors for %d items", len(vectors), len(batch.Items))
	}
	tx, err := s.begin(ctx, "SaveEmbeddings")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, it := range batch.Items {
		var source string
		switch it.Kind {
		case governance.RecallKindRule:
			source = `SELECT id AS item_id, project_id, subject_id FROM rules WHERE id = ? AND project_id = ? AND text = ? AND status IN ('active', 'stale')`
		case governance.RecallKindEpisode:
			source = `SELECT id AS item_id, project_id, subject_id FROM episodes WHERE id = ? AND project_id = ? AND summary = ?`
		case governance.RecallKindEvent:
			source = `SELECT seq AS item_id, project_id, subject_id FROM events WHERE seq = ? AND project_id = ? AND text = ? AND redacted = 0`
		default:
			return fmt.Errorf("store: save embeddings: unknown kind %q", it.Kind)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO embeddings (kind, item_id, model, project_id, subject_id, vector)
			SELECT ?, s.item_id, ?, s.project_id, s.subject_id, ? FROM (`+source+`) s`, string(it.Kind), batch.Model, semantic.Vector(vectors[i]), it.ID, batch.ProjectID, it.Text); err != nil {
			return fmt.Errorf("store: save embedding %s:%d: %w", it.Kind, it.ID, err)
		}
	}
	if batch.Checkpoint != batch.LastCheckpoint {
		if _, err := tx.ExecContext(ctx, `INSERT INTO embed_checkpoints (project_id, model, event_seq) VALUES (?, ?, ?)
			ON CONFLICT (project_id, model) DO UPDATE SET event_seq = max(event_seq, excluded.event_seq)`,
			batch.ProjectID, batch.Model, batch.Checkpoint); err != nil {
			return fmt.Errorf("store: embedding checkpoint: %w", err)
		}
	}
	return tx.Commit()
}

// SimilarRules returns at most q.K of the rules f selects (its Query
// aside) whose vectors of q.Model have a cosine of at least q.MinCosine
// with q.Vector, best first; a rule without such a vector is not among
// them.
func (s *Store) SimilarRules(ctx context.Context, f governance.RuleFilter, q governance.SimilarQuery) ([]governance.RuleHit, error) {
	f.Query = ""
	where, args := ruleWhere(f)
	hits, err := semantic.Similar(q.Vector, q.K, q.MinCosine, func(fn func(int64, []byte)) error {
		return queryAll(ctx, s.read, `SELECT r.id, m.vector FROM rules r
			JOIN embeddings m ON m.kind = 'rule' AND m.item_id = r.id AND m.model = ?
			WHERE `+strings.Join(where, " AND "), append([]any{q.Model}, args...), semantic.VectorRow[scanner](fn))
	})
	if err != nil {
		return nil, fmt.Errorf("store: similar rules: %w", err)
	}
	return semantic.RuleHits(ctx, hits, s.FindRulesByIDs)
}
