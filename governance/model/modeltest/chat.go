package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// ServerKind is how a fake chat endpoint treats response_format, after the
// OpenAI-compatible servers Mnemo is pointed at.
type ServerKind int

const (
	// SchemaServer honours response_format json_schema (OpenAI; vLLM and
	// recent llama.cpp and Ollama builds constrain decoding to it).
	SchemaServer ServerKind = iota
	// JSONModeServer answers a json_schema response_format with 400 and
	// takes json_object (JSON mode only, as older Ollama and llama.cpp
	// server builds, or a llama.cpp server started with a grammar).
	JSONModeServer
	// PlainServer answers any response_format with 400 (a proxy or an old
	// server that knows no such field): the form is asked for in words.
	PlainServer
	// LaxServer takes any response_format and enforces none (as Ollama's
	// hosted endpoint does): the reply is whatever the script says.
	LaxServer
)

// Reply is one scripted answer of the fake.
type Reply struct {
	// Content is the message content; FinishReason defaults to "stop".
	Content, FinishReason string
	// Refusal, when set, is a refusal instead of content.
	Refusal string
	// Status, when set, answers with that HTTP error (an OpenAI error
	// envelope), and RetryAfter with that Retry-After header.
	Status     int
	RetryAfter string
	Tokens     int
}

// Chat is an in-process OpenAI-compatible chat completions endpoint. It
// answers the n-th request it accepts with the n-th reply (the last one
// repeats); a request whose response_format the kind rejects gets a 400 and
// uses no reply. It records every request.
type Chat struct {
	srv     *httptest.Server
	kind    ServerKind
	mu      sync.Mutex
	replies []Reply
	served  int
	reqs    []openai.ChatCompletionRequest
}

// NewChat starts the fake; it stops when tb ends. Point a model.Client at
// URL().
func NewChat(tb testing.TB, kind ServerKind, replies ...Reply) *Chat {
	tb.Helper()
	if len(replies) == 0 {
		tb.Fatal("modeltest: NewChat needs a reply")
	}
	c := &Chat{kind: kind, replies: replies}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", c.serve)
	c.srv = httptest.NewServer(mux)
	tb.Cleanup(c.srv.Close)
	return c
}

// URL is the API's base (".../v1").
func (c *Chat) URL() string { return c.srv.URL + "/v1" }

// Requests returns the requests seen so far.
func (c *Chat) Requests() []openai.ChatCompletionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]openai.ChatCompletionRequest(nil), c.reqs...)
}

func (c *Chat) serve(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	format := ""
	if req.ResponseFormat != nil {
		format = string(req.ResponseFormat.Type)
	}
	if c.kind == JSONModeServer && format == string(openai.ChatCompletionResponseFormatTypeJSONSchema) ||
		c.kind == PlainServer && format != "" {
		c.mu.Unlock()
		apiError(w, http.StatusBadRequest, fmt.Sprintf("response_format %q is not supported", format))
		return
	}
	rep := c.replies[min(c.served, len(c.replies)-1)]
	c.served++
	c.mu.Unlock()
	if rep.Status != 0 {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		apiError(w, rep.Status, "fake error")
		return
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	if rep.Refusal != "" {
		msg = map[string]any{"role": "assistant", "content": nil, "refusal": rep.Refusal}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": rep.Tokens, "completion_tokens": 0, "total_tokens": rep.Tokens},
	})
}

func apiError(w http.ResponseWriter, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error", "code": code}})
}
