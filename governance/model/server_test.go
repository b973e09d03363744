package model_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
	openai "github.com/sashabaranov/go-openai"
)

// Replies as real OpenAI-compatible servers send them, each against the
// in-process fake (modeltest.Chat).

const okExtraction = `{"episode_summary": "Booked a flight.", "memory_items": [{"type": "user_preference", "statement": "The user wants aisle seats.", "supported_event_ids": [10], "durable": true}]}`

func chatClient(c *modeltest.Chat, logs *bytes.Buffer) *model.Client {
	logger := discard()
	if logs != nil {
		logger = textLogger(logs)
	}
	return model.New(model.Config{BaseURL: c.URL(), APIKey: "k", Model: "local", Timeout: 5 * time.Second, MaxRetries: 2, Backoff: time.Millisecond}, logger)
}

func wantAisle(t *testing.T, ex *governance.Extraction, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Items) != 1 || ex.Items[0].Statement != "The user wants aisle seats." || !ex.Items[0].Durable || ex.Items[0].SupportSeqs[0] != 10 {
		t.Fatalf("items = %+v, want the aisle-seat preference", ex.Items)
	}
}

func TestServerReplies(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ name, content string }{
		{"CodeFence", "```json\n" + okExtraction + "\n```"},
		{"ProseAround", "Sure! Here is the JSON you asked for:\n" + okExtraction + "\nLet me know if you need anything else {really}."},
		{"ThinkBlock", "<think>The user said {aisle}; from now on.</think>\n" + okExtraction},
		{"ExtraFields", `{"episode_summary": "Booked.", "confidence": 0.9, "memory_items": [{"type": "user_preference", "statement": "The user wants aisle seats.", "supported_event_ids": [10], "durable": true, "reason": "said so"}]}`},
		{"RenamedFields", `{"summary": "Booked.", "memories": [{"kind": "preference", "text": "The user wants aisle seats.", "event_ids": ["10"], "durable": "true"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := modeltest.NewChat(t, modeltest.LaxServer, modeltest.Reply{Content: c.content, Tokens: 100})
			ex, err := chatClient(f, nil).Extract(ctx, session())
			wantAisle(t, ex, err)
		})
	}

	t.Run("MissingFields", func(t *testing.T) {
		// No summary, an item without durable: read as none and false.
		f := modeltest.NewChat(t, modeltest.LaxServer, modeltest.Reply{Content: `{"memory_items": [{"type": "fact", "statement": "The team uses Go.", "supported_event_ids": [10]}]}`})
		ex, err := chatClient(f, nil).Extract(ctx, session())
		if err != nil || ex.Summary != "" || len(ex.Items) != 1 || ex.Items[0].Durable {
			t.Fatalf("got %+v, %v", ex, err)
		}
	})

	t.Run("UnknownEventIDs", func(t *testing.T) {
		var logs bytes.Buffer
		f := modeltest.NewChat(t, modeltest.LaxServer, modeltest.Reply{Content: `{"episode_summary": "x", "memory_items": [
			{"type": "fact", "statement": "Invented.", "supported_event_ids": [999]},
			{"type": "user_preference", "statement": "The user wants aisle seats.", "supported_event_ids": [10, 998], "durable": true}]}`})
		ex, err := chatClient(f, &logs).Extract(ctx, session())
		wantAisle(t, ex, err)
		if !strings.Contains(logs.String(), "998") {
			t.Errorf("the dropped id is not logged: %s", logs.String())
		}
	})

	t.Run("CutOffKeepsCompleteItems", func(t *testing.T) {
		cut := `{"episode_summary": "Booked a flight.", "memory_items": [{"type": "user_preference", "statement": "The user wants aisle seats.", "supported_event_ids": [10], "durable": true}, {"type": "lesson", "statement": "Run the migra`
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Content: cut, FinishReason: "length"})
		ex, err := chatClient(f, nil).Extract(ctx, session())
		wantAisle(t, ex, err)
	})

	t.Run("CutOffBeforeAnyItem", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Content: `{"episode_summary": "Booked a fl`, FinishReason: "length"})
		_, err := chatClient(f, nil).Extract(ctx, session())
		requireInvalid(t, err)
	})

	t.Run("Refusal", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Refusal: "I can't help with that."})
		_, err := chatClient(f, nil).Extract(ctx, session())
		requireInvalid(t, err)
		if got := len(f.Requests()); got != 1 {
			t.Errorf("%d requests, want 1 (a refusal is not retried)", got)
		}
	})

	t.Run("NoJSON", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.LaxServer, modeltest.Reply{Content: "The user likes aisle seats."})
		_, err := chatClient(f, nil).Extract(ctx, session())
		requireInvalid(t, err)
	})

	t.Run("MergeFencedStringIDs", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.LaxServer, modeltest.Reply{Content: "```\n{\"groups\": [[\"-1\", \"-2\"], [-3]]}\n```"})
		groups, _, err := chatClient(f, nil).Partition(ctx, []governance.MergeItem{
			{ID: -1, Type: governance.TypeFact, Statement: "a"}, {ID: -2, Type: governance.TypeFact, Statement: "a'"}, {ID: -3, Type: governance.TypeFact, Statement: "b"}})
		if err != nil || len(groups) != 2 || len(groups[0]) != 2 {
			t.Fatalf("groups %v, %v", groups, err)
		}
	})
}

// TestServerKinds: the response format is asked for the way the server
// takes it, found out once and kept.
func TestServerKinds(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		kind     modeltest.ServerKind
		want     []string // response_format of each request
		reformat bool     // the schema is asked for in the system prompt
	}{
		{"Schema", modeltest.SchemaServer, []string{"json_schema", "json_schema"}, false},
		{"JSONModeOnly", modeltest.JSONModeServer, []string{"json_schema", "json_object", "json_object"}, true},
		{"NoResponseFormat", modeltest.PlainServer, []string{"json_schema", "json_object", "", ""}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := modeltest.NewChat(t, c.kind, modeltest.Reply{Content: okExtraction})
			cl := chatClient(f, nil)
			for range 2 {
				ex, err := cl.Extract(ctx, session())
				wantAisle(t, ex, err)
			}
			reqs := f.Requests()
			var got []string
			for _, r := range reqs {
				format := ""
				if r.ResponseFormat != nil {
					format = string(r.ResponseFormat.Type)
				}
				got = append(got, format)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("response formats %q, want %q", got, c.want)
			}
			last := reqs[len(reqs)-1].Messages[0].Content
			if has := strings.Contains(last, `"memory_items"`); has != c.reformat {
				t.Errorf("schema in the system prompt: %t, want %t", has, c.reformat)
			}
		})
	}
}

// TestServerBusy: 429 waits what Retry-After says, 5xx backs off; both are
// retried.
func TestServerBusy(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		first modeltest.Reply
		wait  time.Duration // 0: the exponential backoff
	}{
		{"RetryAfterSeconds", modeltest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "7"}, 7 * time.Second},
		{"RetryAfterDate", modeltest.Reply{Status: http.StatusTooManyRequests, RetryAfter: time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}, 0},
		{"ServiceUnavailable", modeltest.Reply{Status: http.StatusServiceUnavailable}, 0},
		{"BadGateway", modeltest.Reply{Status: http.StatusBadGateway}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := modeltest.NewChat(t, modeltest.SchemaServer, c.first, modeltest.Reply{Content: okExtraction})
			cl := chatClient(f, nil)
			var mu sync.Mutex
			var waits []time.Duration
			model.SetSleep(cl, func(_ context.Context, d time.Duration) error {
				mu.Lock()
				defer mu.Unlock()
				waits = append(waits, d)
				return nil
			})
			ex, err := cl.Extract(ctx, session())
			wantAisle(t, ex, err)
			if len(waits) != 1 {
				t.Fatalf("waits %v, want one", waits)
			}
			switch {
			case c.wait > 0 && waits[0] != c.wait:
				t.Errorf("waited %s, want %s (Retry-After)", waits[0], c.wait)
			case c.name == "RetryAfterDate" && (waits[0] < 80*time.Second || waits[0] > 90*time.Second):
				t.Errorf("waited %s, want about 90s (Retry-After date)", waits[0])
			case c.wait == 0 && c.name != "RetryAfterDate" && waits[0] > 10*time.Millisecond:
				t.Errorf("waited %s, want the millisecond backoff", waits[0])
			}
		})
	}

	t.Run("RetryAfterTooLong", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "3600"})
		cl := chatClient(f, nil)
		model.SetSleep(cl, func(context.Context, time.Duration) error { t.Error("slept"); return nil })
		_, err := cl.Extract(ctx, session())
		var apiErr *openai.APIError
		if err == nil || !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusTooManyRequests {
			t.Fatalf("err = %v, want the 429 at once", err)
		}
	})
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func textLogger(b *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// TestServerMerge: the merger copes with what real servers return as the
// extractor does — the groups found in prose, after a <think> block and
// before commentary; a reply cut off at the token limit or a refusal is no
// partition (EINVALID, so the caller merges another way); a server without
// response_format is asked in words; a 429 waits its Retry-After.
func TestServerMerge(t *testing.T) {
	ctx := context.Background()
	items := []governance.MergeItem{
		{ID: -1, Type: governance.TypePreference, Statement: "The user wants aisle seats."},
		{ID: -2, Type: governance.TypePreference, Statement: "Aisle seats for the user, always."},
		{ID: -3, Type: governance.TypeFact, Statement: "The team uses Go."},
	}
	wantGroups := func(t *testing.T, groups [][]int64, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(groups) != 2 || len(groups[0]) != 2 || groups[0][0] != -1 || groups[0][1] != -2 || len(groups[1]) != 1 || groups[1][0] != -3 {
			t.Fatalf("groups %v, want [[-1 -2] [-3]]", groups)
		}
	}

	t.Run("ThinkProseCommentary", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.LaxServer, modeltest.Reply{Content: "<think>-1 and -2 are {the same}.</think>\nHere are the groups:\n" +
			`{"groups": [[-1, -2], [-3]]}` + "\nThe first two both ask for aisle seats {ok}."})
		groups, _, err := chatClient(f, nil).Partition(ctx, items)
		wantGroups(t, groups, err)
	})

	t.Run("CutOff", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Content: `{"groups": [[-1, -2], [-3]]}`, FinishReason: "length"})
		_, _, err := chatClient(f, nil).Partition(ctx, items)
		requireInvalid(t, err)
	})

	t.Run("Refusal", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Refusal: "I can't help with that."})
		_, _, err := chatClient(f, nil).Partition(ctx, items)
		requireInvalid(t, err)
		if got := len(f.Requests()); got != 1 {
			t.Errorf("%d requests, want 1 (a refusal is not retried)", got)
		}
	})

	t.Run("NoResponseFormat", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.PlainServer, modeltest.Reply{Content: `{"groups": [["-1", "-2"], ["-3"]]}`})
		groups, _, err := chatClient(f, nil).Partition(ctx, items)
		wantGroups(t, groups, err)
		reqs := f.Requests()
		if last := reqs[len(reqs)-1]; last.ResponseFormat != nil || !strings.Contains(last.Messages[0].Content, `"groups"`) {
			t.Errorf("last request: response_format %v, schema in the prompt %t; want none and true",
				last.ResponseFormat, strings.Contains(last.Messages[0].Content, `"groups"`))
		}
	})

	t.Run("RetryAfter", func(t *testing.T) {
		f := modeltest.NewChat(t, modeltest.SchemaServer, modeltest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "3"},
			modeltest.Reply{Content: `{"groups": [[-1, -2], [-3]]}`})
		cl := chatClient(f, nil)
		var waits []time.Duration
		model.SetSleep(cl, func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil })
		groups, _, err := cl.Partition(ctx, items)
		wantGroups(t, groups, err)
		if len(waits) != 1 || waits[0] != 3*time.Second {
			t.Errorf("waits %v, want [3s]", waits)
		}
	})
}
