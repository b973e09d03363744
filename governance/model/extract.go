package model

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/tokenizer"

	"github.com/mnemo-console/mnemo/governance"
)

// maxSummarySentences bounds an episode summary.
const maxSummarySentences = 3

// promptEvent is how an event is shown to the model.
type promptEvent struct {
	ID     int64  `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Role   string `json:"role,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Status string `json:"status,omitempty"`
	Source string `json:"source,omitempty"`
	Text   string `json:"text"`
}

// Extract asks the model for an episode summary and candidate memories of
// one session, then keeps only what holds up: known types, non-empty
// statements, and supporting ids that were in the input.
func (c *Client) Extract(ctx context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	if len(in.Events) == 0 {
		return &governance.Extraction{}, nil
	}
	events := make([]promptEvent, 0, len(in.Events))
	inputIDs := make(map[int64]bool, len(in.Events))
	for _, e := range in.Events {
		pe := promptEvent{ID: e.Seq, Role: string(e.Role), Tool: e.Tool, Status: e.Status, Source: string(e.Source), Text: e.Text}
		if e.Kind == governance.KindSessionEnd {
			pe.Kind = string(e.Kind)
		}
		events = append(events, pe)
		inputIDs[e.Seq] = true
	}
	user := "Events of the session:\n" + jsonLines(events)

	content, tokens, cut, err := c.call(ctx, "extract", extractSystemPrompt, user, "extraction", extractSchema)
	if err != nil {
		return nil, err
	}
	log := c.logger.With(slog.Int64("project_id", in.ProjectID), slog.String("session_id", in.SessionID))
	reply, err := readExtraction(content, cut)
	if err != nil {
		return nil, c.rejectReply("extract", content, err)
	}
	switch {
	case cut && len(reply.items) == 0:
		return nil, c.rejectReply("extract", content, errors.New("reply cut off at the token limit before any complete item"))
	case cut:
		log.Warn("model reply cut off at the token limit; kept its complete items", slog.Int("items", len(reply.items)))
	case reply.summary == nil && !reply.itemsFound:
		return nil, c.rejectReply("extract", content, errors.New("episode_summary and memory_items missing"))
	case !reply.itemsFound:
		log.Warn("model reply has no memory_items; read as none")
	}

	ex := &governance.Extraction{Tokens: tokens}
	if reply.summary != nil {
		ex.Summary = firstSentences(strings.TrimSpace(*reply.summary), maxSummarySentences)
	}
	for i, raw := range reply.items {
		it, err := readItem(raw)
		if err != nil {
			log.Warn("model memory item rejected", slog.Int("item", i), slog.String("reason", err.Error()))
			continue
		}
		if item, ok := c.checkItem(in, i, it, inputIDs); ok {
			ex.Items = append(ex.Items, item)
		}
	}
	return ex, nil
}

// checkItem validates one reply item. Rejections are logged without the
// statement, which may be personal.
func (c *Client) checkItem(in governance.ExtractInput, i int, it replyItem, inputIDs map[int64]bool) (governance.ExtractedItem, bool) {
	log := c.logger.With(slog.Int64("project_id", in.ProjectID), slog.String("session_id", in.SessionID), slog.Int("item", i))
	typ := memoryType(it.Type)
	if !typ.Valid() {
		log.Warn("model memory item rejected", slog.String("reason", "unknown type"), slog.String("type", clip(it.Type, 40)))
		return governance.ExtractedItem{}, false
	}
	statement := strings.TrimSpace(it.Statement)
	if statement == "" {
		log.Warn("model memory item rejected", slog.String("reason", "empty statement"))
		return governance.ExtractedItem{}, false
	}
	var kept, dropped []int64
	for _, id := range it.SupportedEventIDs {
		switch {
		case !inputIDs[id]:
			dropped = append(dropped, id)
		case !slices.Contains(kept, id):
			kept = append(kept, id)
		}
	}
	if len(dropped) > 0 {
		log.Warn("model named event ids not in the input", slog.Any("dropped_ids", dropped))
	}
	if len(kept) == 0 {
		log.Warn("model memory item rejected", slog.String("reason", "no supporting event from the input"))
		return governance.ExtractedItem{}, false
	}
	return governance.ExtractedItem{Type: typ, Statement: statement, SupportSeqs: kept, Durable: it.Durable}, true
}

// firstSentences returns the first n sentences of s (tokenizer.Sentences).
func firstSentences(s string, n int) string {
	out, count := s, 0
	tokenizer.Sentences(s, func(_, _, next int, _ bool) bool {
		if count++; count == n {
			out = strings.TrimSpace(s[:next])
			return false
		}
		return true
	})
	return out
}

// clip shortens a model-supplied string for a log attribute.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
