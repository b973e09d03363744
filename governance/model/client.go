// Package model implements governance's Extractor and Merger, and the eval
// judge, on any OpenAI-compatible chat completions endpoint (go-openai).
//
// The model judges language only. Every reply must match a strict JSON
// schema and is validated again by code: event ids it names must come from
// the input, merge groups must form a partition, verdicts must be one of the
// known results. Each request has its own timeout and is retried with
// exponential backoff on 429, 5xx and network errors.
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
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	openai "github.com/sashabaranov/go-openai"
)

// Defaults for zero Config fields.
const (
	DefaultTimeout = 60 * time.Second
	DefaultBackoff = time.Second
	maxBackoff     = 30 * time.Second
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
}

// Client talks to one model. It is safe for concurrent use.
type Client struct {
	api    *openai.Client
	cfg    Config
	logger *slog.Logger
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
	oc.HTTPClient = &http.Client{}
	return &Client{api: openai.NewClientWithConfig(oc), cfg: cfg, logger: logger}
}

// Name identifies the extractor: "model/<model>".
func (c *Client) Name() string { return "model/" + c.cfg.Model }

// call sends one chat completion whose reply must match schema and returns
// the reply's content and the tokens it used.
func (c *Client) call(ctx context.Context, op, system, user, schemaName, schema string) (string, int, error) {
	req := openai.ChatCompletionRequest{
		Model: c.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:   schemaName,
				Schema: json.RawMessage(schema),
				Strict: true,
			},
		},
	}
	var resp openai.ChatCompletionResponse
	for attempt := 0; ; attempt++ {
		var err error
		resp, err = c.attempt(ctx, req)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return "", 0, fmt.Errorf("model: %s: %w", op, ctx.Err())
		}
		if attempt >= c.cfg.MaxRetries || !retryable(err) {
			return "", 0, fmt.Errorf("model: %s: %w", op, err)
		}
		delay := c.backoff(attempt)
		c.logger.Warn("model request failed, retrying",
			slog.String("op", op), slog.String("model", c.cfg.Model),
			slog.Int("attempt", attempt+1), slog.Duration("delay", delay), slog.Any("error", err))
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", 0, fmt.Errorf("model: %s: %w", op, ctx.Err())
		case <-timer.C:
		}
	}

	tokens := resp.Usage.TotalTokens
	if len(resp.Choices) == 0 {
		return "", tokens, invalidReply(op, errors.New("no choices"))
	}
	choice := resp.Choices[0]
	switch {
	case choice.Message.Refusal != "":
		return "", tokens, invalidReply(op, errors.New("the model refused"))
	case choice.FinishReason == openai.FinishReasonLength:
		return "", tokens, invalidReply(op, errors.New("reply cut off at the token limit"))
	}
	return choice.Message.Content, tokens, nil
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

// decodeReply decodes content strictly into v: one JSON value, no unknown
// fields, nothing after it. A rejected reply is logged at Debug only.
func (c *Client) decodeReply(op, content string, v any) error {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, tokErr := dec.Token(); tokErr != io.EOF {
			err = errors.New("data after the JSON value")
		}
	}
	if err != nil {
		c.logger.Debug("model reply rejected", slog.String("op", op), slog.String("reply", content))
		return invalidReply(op, err)
	}
	return nil
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
