// Package model implements governance's Extractor and Merger, and the eval
// judge, on any OpenAI-compatible chat completions endpoint (go-openai).
//
// The model judges language only. Replies are asked for as JSON matching a
// schema and validated again by code: event ids it names must come from the
// input, merge groups must form a partition, verdicts must be one of the
// known results. Real servers differ, so the client copes: it asks for a
// strict JSON schema, and on a server that rejects that (a 400 or 422) it
// asks for JSON mode, then for JSON in words only, and keeps to what worked;
// it finds the JSON object in code fences, prose or trailing commentary,
// ignores unknown fields, reads common renamings, and keeps the complete
// items of a reply cut off at the token limit. Each request has its own
// timeout and is retried with exponential backoff on 429, 5xx and network
// errors, waiting as long as a Retry-After header asks.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	openai "github.com/sashabaranov/go-openai"
)

// Defaults for zero Config fields.
const (
	DefaultTimeout = 60 * time.Second
	DefaultBackoff = time.Second
	maxBackoff     = 30 * time.Second
	// maxRetryAfter bounds the wait a Retry-After header may ask for; a
	// longer one fails the request, and the heartbeat tries again later.
	maxRetryAfter = 2 * time.Minute
)

// ResponseFormat is how a reply's JSON form is asked for.
type ResponseFormat int32

const (
	// FormatJSONSchema sends response_format json_schema (strict).
	FormatJSONSchema ResponseFormat = iota
	// FormatJSONObject sends response_format json_object and the schema in
	// the prompt.
	FormatJSONObject
	// FormatPrompt sends no response_format, only the schema in the prompt.
	FormatPrompt
)

// Config says which endpoint and model to use and how patiently.
type Config struct {
	// BaseURL of the OpenAI-compatible API, e.g. "https://api.openai.com/v1"
	// (the default when empty) or "http://localhost:11434/v1".
	BaseURL string
	APIKey  string
	Model   string
	// Timeout bounds each request; a request that times out is retried like
	// a network error. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a failed request is retried; 0 means never.
	MaxRetries int
	// Backoff is the wait before the first retry, doubled for each further
	// one (at most 30 s) plus up to 25% jitter. 0 means DefaultBackoff.
	Backoff time.Duration
	// ResponseFormat is the first way a reply's form is asked for
	// (FormatJSONSchema by default); the client falls back to the next when
	// the server rejects it.
	ResponseFormat ResponseFormat
}

// Client talks to one model. It is safe for concurrent use.
type Client struct {
	api    *openai.Client
	cfg    Config
	logger *slog.Logger
	// format is the response format the server accepted last.
	format atomic.Int32
	// sleep waits between attempts (a test replaces it).
	sleep func(ctx context.Context, d time.Duration) error
}

var (
	_ governance.Extractor = (*Client)(nil)
	_ governance.Merger    = (*Client)(nil)
)

// New returns a client for cfg; a nil logger discards logs.
func New(cfg Config, logger *slog.Logger) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	cfg.MaxRetries = max(cfg.MaxRetries, 0)
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	oc.HTTPClient = &http.Client{Transport: retryAfterTransport{http.DefaultTransport}}
	c := &Client{api: openai.NewClientWithConfig(oc), cfg: cfg, logger: logger, sleep: sleepCtx}
	c.format.Store(int32(cfg.ResponseFormat))
	return c
}

// Name identifies the extractor and its prompts: "model/<model>@prompt<N>".
func (c *Client) Name() string { return "model/" + c.cfg.Model + "@prompt" + PromptVersion }

// call sends one chat completion whose reply must match schema and returns
// the reply's content, the tokens it used, and whether the reply was cut off
// at the token limit (its complete parts may still be used).
func (c *Client) call(ctx context.Context, op, system, user, schemaName, schema string) (string, int, bool, error) {
	var resp openai.ChatCompletionResponse
	for attempt := 0; ; attempt++ {
		format := ResponseFormat(c.format.Load())
		req := c.request(format, system, user, schemaName, schema)
		ra := &retryAfter{}
		var err error
		resp, err = c.attempt(context.WithValue(ctx, retryAfterKey{}, ra), req)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return "", 0, false, fmt.Errorf("model: %s: %w", op, ctx.Err())
		}
		if format < FormatPrompt && rejectsFormat(err) {
			// The server does not take this response_format: ask the next
			// way, and keep to it. Not a retry.
			c.format.CompareAndSwap(int32(format), int32(format+1))
			c.logger.Info("model server rejected the response format; asking for JSON another way",
				slog.String("op", op), slog.String("model", c.cfg.Model), slog.Int("format", int(format+1)))
			attempt--
			continue
		}
		if attempt >= c.cfg.MaxRetries || !retryable(err) {
			return "", 0, false, fmt.Errorf("model: %s: %w", op, err)
		}
		delay := c.backoff(attempt)
		if ra.d > 0 {
			if ra.d > maxRetryAfter {
				return "", 0, false, fmt.Errorf("model: %s: the server asks to wait %s: %w", op, ra.d, err)
			}
			delay = ra.d
		}
		c.logger.Warn("model request failed, retrying",
			slog.String("op", op), slog.String("model", c.cfg.Model),
			slog.Int("attempt", attempt+1), slog.Duration("delay", delay), slog.Any("error", err))
		if err := c.sleep(ctx, delay); err != nil {
			return "", 0, false, fmt.Errorf("model: %s: %w", op, err)
		}
	}

	tokens := resp.Usage.TotalTokens
	if len(resp.Choices) == 0 {
		return "", tokens, false, invalidReply(op, errors.New("no choices"))
	}
	choice := resp.Choices[0]
	switch {
	case choice.Message.Refusal != "":
		return "", tokens, false, invalidReply(op, errors.New("the model refused"))
	case strings.TrimSpace(choice.Message.Content) == "":
		return "", tokens, false, invalidReply(op, errors.New("empty reply"))
	}
	return choice.Message.Content, tokens, choice.FinishReason == openai.FinishReasonLength, nil
}

// request builds a chat completion asking for the reply's form as format
// says.
func (c *Client) request(format ResponseFormat, system, user, schemaName, schema string) openai.ChatCompletionRequest {
	if format != FormatJSONSchema {
		system = withSchema(system, schema)
	}
	req := openai.ChatCompletionRequest{
		Model: c.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	}
	switch format {
	case FormatJSONSchema:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:   schemaName,
				Schema: json.RawMessage(schema),
				Strict: true,
			},
		}
	case FormatJSONObject:
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return req
}

// rejectsFormat reports whether a request failed because the server does
// not take its response_format: a 400 or 422 (llama.cpp, older Ollama and
// vLLM builds, proxies answer so for a field or a schema they do not know).
func rejectsFormat(err error) bool {
	code := 0
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		code = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		code = reqErr.HTTPStatusCode
	}
	return code == http.StatusBadRequest || code == http.StatusUnprocessableEntity
}

// retryAfter carries the wait a 429 or 503 asked for out of the transport.
type retryAfter struct{ d time.Duration }

type retryAfterKey struct{}

// retryAfterTransport records a Retry-After header (seconds or an HTTP
// date) of a 429 or 503 reply into the request's retryAfter.
type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return resp, err
	}
	if ra, ok := req.Context().Value(retryAfterKey{}).(*retryAfter); ok {
		ra.d = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return resp, nil
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// attempt sends one request under its own timeout.
func (c *Client) attempt(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	return c.api.CreateChatCompletion(ctx, req)
}

// backoff is the wait before retry number attempt+1.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.Backoff
	for range attempt {
		if d >= maxBackoff/2 {
			d = maxBackoff
			break
		}
		d *= 2
	}
	return d + rand.N(d/4+1)
}

// retryable reports whether a failed request may succeed if sent again:
// rate limits, server errors, and transport failures (timeouts included).
// Other 4xx errors and malformed responses are not retried.
func retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return retryableStatus(apiErr.HTTPStatusCode)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return retryableStatus(reqErr.HTTPStatusCode)
	}
	var urlErr *url.Error
	return errors.As(err, &urlErr) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// invalidReply is the error for a reply that does not match its schema.
// The reply itself is never part of the error.
func invalidReply(op string, detail error) error {
	return fmt.Errorf("model: %s: %w: %v", op,
		governance.Errorf(governance.EINVALID, "The model's reply did not match the expected format."), detail)
}

// jsonObject finds the JSON object of a reply: the whole reply, the
// object in a code fence, or the first object in prose, whatever comes
// after it ("Here you go: {...} Let me know!"). A reasoning block
// (<think>…</think>) is skipped.
func jsonObject(content string) (json.RawMessage, bool) {
	s := content
	for {
		i := strings.Index(s, "<think>")
		j := strings.Index(s, "</think>")
		if i < 0 || j < i {
			break
		}
		s = s[:i] + s[j+len("</think>"):]
	}
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], '{')
		if i < 0 {
			break
		}
		i += off
		var raw json.RawMessage
		if err := json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw); err == nil {
			return raw, true
		}
		off = i + 1
	}
	return nil, false
}

// rejectReply logs a rejected reply at Debug only (it may quote the user)
// and returns the error.
func (c *Client) rejectReply(op, content string, detail error) error {
	c.logger.Debug("model reply rejected", slog.String("op", op), slog.String("reply", content))
	return invalidReply(op, detail)
}

// jsonLines renders one JSON object per line, without HTML escaping, so the
// model sees text as quoted data.
func jsonLines[T any](items []T) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		// Encoding plain structs of strings and integers cannot fail.
		_ = enc.Encode(it)
	}
	return b.String()
}
