package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/model"
	openai "github.com/sashabaranov/go-openai"
)

// fakeLLM is an in-process OpenAI-compatible endpoint. It answers the n-th
// request with the n-th reply (the last one repeats) and records requests.
type fakeLLM struct {
	srv     *httptest.Server
	mu      sync.Mutex
	replies []http.HandlerFunc
	reqs    []openai.ChatCompletionRequest
	auth    []string
}

func newFakeLLM(t *testing.T, replies ...http.HandlerFunc) *fakeLLM {
	t.Helper()
	f := &fakeLLM{replies: replies}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatCompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		reply := f.replies[min(len(f.reqs), len(f.replies))-1]
		f.mu.Unlock()
		reply(w, r)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// requests returns the requests seen so far.
func (f *fakeLLM) requests() []openai.ChatCompletionRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), f.reqs...)
}

// client returns a client of the fake with fast retries; edit adjusts the config.
func (f *fakeLLM) client(logs *bytes.Buffer, edit ...func(*model.Config)) *model.Client {
	cfg := model.Config{
		BaseURL:    f.srv.URL + "/v1",
		APIKey:     "test-key",
		Model:      "test-model",
		Timeout:    5 * time.Second,
		MaxRetries: 2,
		Backoff:    time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return model.New(cfg, logger)
}

// reply answers with one choice whose content is content.
func reply(content string, totalTokens int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"test-model",
			"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			content, totalTokens-totalTokens/4, totalTokens/4, totalTokens)
	}
}

// replyJSON answers with v encoded as the content.
func replyJSON(t *testing.T, v any, totalTokens int) http.HandlerFunc {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return reply(string(b), totalTokens)
}

// status answers with an HTTP error; an OpenAI error envelope when apiErr.
func status(code int, apiErr bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if apiErr {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":{"message":"fake error %d","type":"server_error"}}`, code)
			return
		}
		http.Error(w, "slow down", code)
	}
}

// hang answers only when the client gives up.
func hang(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}

var judgeOK = map[string]any{"result": "satisfied", "evidence": "The output books an aisle seat."}

func TestClient_Request(t *testing.T) {
	f := newFakeLLM(t, replyJSON(t, judgeOK, 30))
	c := f.client(nil)
	if _, _, err := c.Judge(context.Background(), "Book aisle seats.", "Booked seat 14C (aisle)."); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if got, want := req.Model, "test-model"; got != want {
		t.Errorf("model: got %q, want %q", got, want)
	}
	if got, want := f.auth[0], "Bearer test-key"; got != want {
		t.Errorf("authorization: got %q, want %q", got, want)
	}
	rf := req.ResponseFormat
	if rf == nil || rf.Type != openai.ChatCompletionResponseFormatTypeJSONSchema || rf.JSONSchema == nil {
		t.Fatalf("response_format: got %+v, want json_schema", rf)
	}
	if !rf.JSONSchema.Strict || rf.JSONSchema.Name != "verdict" {
		t.Errorf("json_schema: got name %q strict %v", rf.JSONSchema.Name, rf.JSONSchema.Strict)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != openai.ChatMessageRoleSystem || req.Messages[1].Role != openai.ChatMessageRoleUser {
		t.Fatalf("messages: got %+v, want system and user", req.Messages)
	}
}

func TestClient_Retry(t *testing.T) {
	ctx := context.Background()

	t.Run("RateLimitedThenOK", func(t *testing.T) {
		f := newFakeLLM(t, status(http.StatusTooManyRequests, false), replyJSON(t, judgeOK, 30))
		v, tokens, err := f.client(nil).Judge(ctx, "rule", "output")
		if err != nil {
			t.Fatal(err)
		}
		if v.Result != model.ResultSatisfied || tokens != 30 {
			t.Errorf("got %+v %d", v, tokens)
		}
		if got := len(f.requests()); got != 2 {
			t.Errorf("got %d requests, want 2", got)
		}
	})

	t.Run("ServerErrorThreeTimes", func(t *testing.T) {
		f := newFakeLLM(t, status(http.StatusInternalServerError, true))
		_, _, err := f.client(nil).Judge(ctx, "rule", "output")
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusInternalServerError {
			t.Fatalf("got %v, want an API error with status 500", err)
		}
		if got := len(f.requests()); got != 3 {
			t.Errorf("got %d requests, want 3 (one and two retries)", got)
		}
	})

	t.Run("ClientErrorNotRetried", func(t *testing.T) {
		f := newFakeLLM(t, status(http.StatusUnauthorized, true), replyJSON(t, judgeOK, 30))
		if _, _, err := f.client(nil).Judge(ctx, "rule", "output"); err == nil {
			t.Fatal("got nil error, want the 401")
		}
		if got := len(f.requests()); got != 1 {
			t.Errorf("got %d requests, want 1", got)
		}
	})

	t.Run("BadRequestTriesEveryFormatOnce", func(t *testing.T) {
		// A 400 may be a response_format the server does not take: each
		// way of asking is tried once, then the error stands; no retries.
		f := newFakeLLM(t, status(http.StatusBadRequest, true))
		if _, _, err := f.client(nil).Judge(ctx, "rule", "output"); err == nil {
			t.Fatal("got nil error, want the 400")
		}
		if got := len(f.requests()); got != 3 {
			t.Errorf("got %d requests, want 3 (json_schema, json_object, none)", got)
		}
	})

	t.Run("Timeout", func(t *testing.T) {
		f := newFakeLLM(t, hang)
		c := f.client(nil, func(cfg *model.Config) { cfg.Timeout = 50 * time.Millisecond; cfg.MaxRetries = 1 })
		start := time.Now()
		_, _, err := c.Judge(ctx, "rule", "output")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want context.DeadlineExceeded", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("took %v", elapsed)
		}
		if got := len(f.requests()); got != 2 {
			t.Errorf("got %d requests, want 2 (a timed-out request is retried)", got)
		}
	})

	t.Run("CancelledWhileBackingOff", func(t *testing.T) {
		f := newFakeLLM(t, status(http.StatusServiceUnavailable, true))
		c := f.client(nil, func(cfg *model.Config) { cfg.Backoff = time.Minute })
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := c.Judge(ctx, "rule", "output")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want the context's error", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("took %v, want the wait to end with the context", elapsed)
		}
		if got := len(f.requests()); got != 1 {
			t.Errorf("got %d requests, want 1", got)
		}
	})
}

// requireInvalid fails unless err is an EINVALID error.
func requireInvalid(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("got nil error, want EINVALID")
	}
	if got := governance.ErrorCode(err); got != governance.EINVALID {
		t.Fatalf("got code %q (%v), want %q", got, err, governance.EINVALID)
	}
}

// requireNotLogged fails if the logs contain s.
func requireNotLogged(t *testing.T, logs *bytes.Buffer, s string) {
	t.Helper()
	if strings.Contains(logs.String(), s) {
		t.Fatalf("logs contain %q:\n%s", s, logs)
	}
}
