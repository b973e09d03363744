// Package modeltest serves in-process OpenAI-compatible endpoints for tests
// and benchmarks, over real HTTP so go-openai runs end to end without a
// model: embeddings with deterministic vectors (Embeddings), and chat
// completions that answer from a script the way real servers differ
// (Chat: JSON schema honoured, JSON mode only, no response_format, none
// enforced).
package modeltest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
	openai "github.com/sashabaranov/go-openai"
)

// EmbedDims is the length of the fake's vectors.
const EmbedDims = 256

// Embeddings is a fake embeddings endpoint. Each text's vector is its
// hashed bag of terms (the tokenizer's English stems and CJK characters and
// pairs, each adding 1 to one of EmbedDims buckets picked by its FNV-1a
// hash, its sign by another bit), so texts sharing terms point the same way.
type Embeddings struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls int
	texts int
	fail  bool
}

// NewEmbeddings starts the fake; it stops when tb ends. Point a
// model.Client at URL() (the API's base, ".../v1").
func NewEmbeddings(tb testing.TB) *Embeddings {
	tb.Helper()
	f := &Embeddings{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", f.serve)
	f.srv = httptest.NewServer(mux)
	tb.Cleanup(f.srv.Close)
	return f
}

// URL is the base URL of the fake's API.
func (f *Embeddings) URL() string { return f.srv.URL + "/v1" }

// Fail makes every following call fail with 400 (true) or succeed (false).
func (f *Embeddings) Fail(fail bool) {
	f.mu.Lock()
	f.fail = fail
	f.mu.Unlock()
}

// Calls returns how many calls succeeded and how many texts they embedded.
func (f *Embeddings) Calls() (calls, texts int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, f.texts
}

func (f *Embeddings) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	fail := f.fail
	if !fail {
		f.calls++
		f.texts += len(req.Input)
	}
	f.mu.Unlock()
	if fail {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"the fake was told to fail","type":"invalid_request_error"}}`))
		return
	}
	resp := openai.EmbeddingResponse{Object: "list", Model: openai.EmbeddingModel(req.Model)}
	for i, text := range req.Input {
		resp.Data = append(resp.Data, openai.Embedding{Object: "embedding", Index: i, Embedding: Vector(text)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// Vector is the fake's vector of text.
func Vector(text string) []float32 {
	v := make([]float32, EmbedDims)
	tokenizer.Tokens(text, func(t string, _ int) {
		h := fnv.New64a()
		h.Write([]byte(t))
		x := h.Sum64()
		if x>>63 == 1 {
			v[x%EmbedDims]--
		} else {
			v[x%EmbedDims]++
		}
	})
	return v
}
