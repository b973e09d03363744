package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/model"
)

// TestHeartbeatWithModel runs beats with the model extractor against an
// in-process OpenAI-compatible server: a broken answer fails the beat and
// leaves the checkpoint where it was; the next good answer advances it.
func TestHeartbeatWithModel(t *testing.T, open Opener) {
	ctx := context.Background()
	var broken atomic.Bool
	broken.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		content := "this is not JSON"
		if !broken.Load() {
			// Name the first event of the prompt (its seq) as support.
			seq := 0
			if i := strings.Index(string(body), `\"id\":`); i >= 0 {
				fmt.Sscanf(string(body)[i+len(`\"id\":`):], "%d", &seq)
			}
			out, _ := json.Marshal(map[string]any{
				"episode_summary": "The user asked for a lint rule.",
				"memory_items": []map[string]any{{"type": "user_preference", "statement": "Always run the linter before committing",
					"supported_event_ids": []int{seq}, "durable": true}},
			})
			content = string(out)
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "fake",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	}))
	defer srv.Close()

	s := OpenMemory(t, open)
	p := MustCreateProject(t, s, "dev")
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-2*time.Hour), true, "from now on always run the linter before committing")); err != nil {
		t.Fatal(err)
	}
	cons := heuristic.NewConsolidator(nil)
	cons.Extractor = model.New(model.Config{BaseURL: srv.URL + "/v1", APIKey: "test", Model: "fake", Timeout: 5 * time.Second},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	hb := &consolidate.Heartbeat{Store: s, Consolidator: cons, Idle: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}

	rec, err := hb.Beat(ctx, "test")
	if err == nil || rec == nil || rec.Errors == "" {
		t.Fatalf("beat with a broken model answer = %+v, %v; want an error recorded", rec, err)
	}
	if cp, _ := s.FindCheckpoint(ctx, p.ID); cp != 0 {
		t.Fatalf("checkpoint after a failed model call = %d, want 0", cp)
	}
	if next := hb.Status().Next; next.Sub(time.Now()) < governance.IntervalBusy {
		t.Fatalf("next beat in %s, want a back-off of at least %s", time.Until(next), governance.IntervalBusy)
	}

	broken.Store(false)
	rec, err = hb.Beat(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Proposals != 1 || rec.Tokens != 120 {
		t.Fatalf("beat = %+v, want 1 proposal and 120 tokens", rec.BeatStats)
	}
	if cp, _ := s.FindCheckpoint(ctx, p.ID); cp == 0 {
		t.Fatal("checkpoint did not advance after a good beat")
	}
	rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if len(rules) != 1 || rules[0].PromotionReason != governance.ReasonExplicit {
		t.Fatalf("rules = %+v", rules)
	}
}
