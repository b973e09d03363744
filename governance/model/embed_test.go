package model_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
)

// TestEmbed sends texts to an OpenAI-compatible embeddings endpoint over
// HTTP and gets one vector per text in order; a reply that does not give
// exactly one vector of one length per text is refused, a 400 is not
// retried.
func TestEmbed(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		fake := modeltest.NewEmbeddings(t)
		c := model.New(model.Config{BaseURL: fake.URL(), Model: "fake-embed"}, nil)
		texts := []string{"run the linter", "孩子下午午睡", "run the linter"}
		vecs, err := c.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(vecs) != 3 || !slices.Equal(vecs[0], vecs[2]) || !slices.Equal(vecs[1], modeltest.Vector(texts[1])) {
			t.Errorf("vectors out of order: %d", len(vecs))
		}
		if cos := governance.Dot(governance.Normalized(vecs[0]), governance.Normalized(vecs[1])); cos > 0.5 {
			t.Errorf("unrelated texts have cosine %.2f", cos)
		}
		if c.EmbedModel() != "fake-embed" {
			t.Errorf("model = %q", c.EmbedModel())
		}
	})
	t.Run("ErrBadReply", func(t *testing.T) {
		for name, body := range map[string]string{
			"Missing":       `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}]}`,
			"Repeated":      `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]},{"object":"embedding","index":0,"embedding":[0,1]}]}`,
			"OtherLength":   `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]},{"object":"embedding","index":1,"embedding":[1]}]}`,
			"IndexTooLarge": `{"object":"list","data":[{"object":"embedding","index":5,"embedding":[1,0]}]}`,
		} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(body))
			}))
			c := model.New(model.Config{BaseURL: srv.URL, Model: "m"}, nil)
			if _, err := c.Embed(ctx, []string{"a", "b"}); governance.ErrorCode(err) != governance.EINVALID {
				t.Errorf("%s: err = %v", name, err)
			}
			srv.Close()
		}
	})
	t.Run("ErrNotRetried", func(t *testing.T) {
		fake := modeltest.NewEmbeddings(t)
		fake.Fail(true)
		c := model.New(model.Config{BaseURL: fake.URL(), Model: "m", MaxRetries: 3, Backoff: time.Millisecond}, nil)
		if _, err := c.Embed(ctx, []string{"a"}); err == nil {
			t.Error("a failing endpoint gave vectors")
		}
	})
}
