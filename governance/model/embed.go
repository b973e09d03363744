package model

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	openai "github.com/sashabaranov/go-openai"
)

var _ governance.Embedder = (*Client)(nil)

// EmbedModel names the model the client embeds with (Config.Model).
func (c *Client) EmbedModel() string { return c.cfg.Model }

// Embed returns one vector per text, in the order of texts, through the
// endpoint's embeddings call (go-openai CreateEmbeddings), retried like a
// chat completion. A reply with a vector missing, repeated or of another
// length is an error, and so nothing of it is stored.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	req := openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(c.cfg.Model)}
	var resp openai.EmbeddingResponse
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
		var err error
		resp, err = c.api.CreateEmbeddings(actx, req)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("model: embed: %w", ctx.Err())
		}
		if attempt >= c.cfg.MaxRetries || !retryable(err) {
			return nil, fmt.Errorf("model: embed: %w", err)
		}
		delay := c.backoff(attempt)
		c.logger.Warn("model request failed, retrying",
			slog.String("op", "embed"), slog.String("model", c.cfg.Model),
			slog.Int("attempt", attempt+1), slog.Duration("delay", delay), slog.Any("error", err))
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("model: embed: %w", ctx.Err())
		case <-timer.C:
		}
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		switch {
		case d.Index < 0 || d.Index >= len(texts):
			return nil, invalidReply("embed", fmt.Errorf("vector index %d out of range", d.Index))
		case out[d.Index] != nil:
			return nil, invalidReply("embed", fmt.Errorf("vector %d repeated", d.Index))
		case len(d.Embedding) == 0 || len(d.Embedding) != len(resp.Data[0].Embedding):
			return nil, invalidReply("embed", errors.New("vectors of different lengths"))
		}
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, invalidReply("embed", fmt.Errorf("vector %d missing", i))
		}
	}
	return out, nil
}
