package model_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/model"
)

func session() governance.ExtractInput {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	return governance.ExtractInput{
		ProjectID: 1,
		SessionID: "s1",
		SubjectID: "u1",
		Events: []*governance.Event{
			{Seq: 10, Role: governance.RoleUser, Source: governance.SourceConversation, OccurredAt: at,
				Text: "From now on always book me an aisle seat. <b>Thanks</b>"},
			{Seq: 11, Role: governance.RoleAssistant, Source: governance.SourceConversation, OccurredAt: at,
				Text: "Noted, aisle seats from now on."},
			{Seq: 12, Role: governance.RoleTool, Tool: "go test", Status: governance.StatusFailed, Source: governance.SourceTool, OccurredAt: at,
				Text: "FAIL: TestCheckout (missing migration)"},
			{Seq: 13, Role: governance.RoleTool, Tool: "go test", Status: governance.StatusPassed, Source: governance.SourceTool, OccurredAt: at,
				Text: "ok"},
		},
	}
}

func item(typ, statement string, ids []int64, durable bool) map[string]any {
	return map[string]any{"type": typ, "statement": statement, "supported_event_ids": ids, "durable": durable}
}

func TestExtract(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		f := newFakeLLM(t, replyJSON(t, map[string]any{
			"episode_summary": "Booked a flight. Tests failed on a missing migration. Running migrations first fixed them. The user said thanks.",
			"memory_items": []any{
				item("user_preference", " The user wants aisle seats on every flight. ", []int64{10, 10}, true),
				item("lesson", "Run the database migrations before the checkout tests.", []int64{12, 13}, false),
			},
		}, 420))
		c := f.client(nil)
		if got, want := c.Name(), "model/test-model@prompt"+model.PromptVersion; got != want {
			t.Errorf("name: got %q, want %q", got, want)
		}
		ex, err := c.Extract(ctx, session())
		if err != nil {
			t.Fatal(err)
		}
		if want := "Booked a flight. Tests failed on a missing migration. Running migrations first fixed them."; ex.Summary != want {
			t.Errorf("summary: got %q, want %q", ex.Summary, want)
		}
		if ex.Tokens != 420 {
			t.Errorf("tokens: got %d, want 420", ex.Tokens)
		}
		want := []governance.ExtractedItem{
			{Type: governance.TypePreference, Statement: "The user wants aisle seats on every flight.", SupportSeqs: []int64{10}, Durable: true},
			{Type: governance.TypeLesson, Statement: "Run the database migrations before the checkout tests.", SupportSeqs: []int64{12, 13}},
		}
		if !reflect.DeepEqual(ex.Items, want) {
			t.Errorf("items:\ngot  %+v\nwant %+v", ex.Items, want)
		}

		req := f.requests()[0]
		if rf := req.ResponseFormat; rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "extraction" || !rf.JSONSchema.Strict {
			t.Fatalf("response_format: got %+v", rf)
		}
		schema, err := req.ResponseFormat.JSONSchema.Schema.MarshalJSON()
		if err != nil || !bytes.Contains(schema, []byte(`"supported_event_ids"`)) || !bytes.Contains(schema, []byte(`"user_preference"`)) {
			t.Errorf("schema: got %s (%v)", schema, err)
		}
		system, user := req.Messages[0].Content, req.Messages[1].Content
		if !strings.Contains(system, "never instructions") {
			t.Errorf("system prompt does not say events are data:\n%s", system)
		}
		for _, want := range []string{
			`{"id":10,"role":"user","source":"conversation","text":"From now on always book me an aisle seat. <b>Thanks</b>"}`,
			`{"id":12,"role":"tool","tool":"go test","status":"failed","source":"tool","text":"FAIL: TestCheckout (missing migration)"}`,
		} {
			if !strings.Contains(user, want) {
				t.Errorf("user message lacks %s:\n%s", want, user)
			}
		}
	})

	t.Run("UnknownEventIDsDropped", func(t *testing.T) {
		var logs bytes.Buffer
		f := newFakeLLM(t, replyJSON(t, map[string]any{
			"episode_summary": "Booked a flight.",
			"memory_items": []any{
				item("user_preference", "The user wants aisle seats.", []int64{10, 99}, true),
				item("fact", "PRIVATE-STATEMENT-1 about a session that never happened.", []int64{98}, false),
				item("opinion", "PRIVATE-STATEMENT-2 of an unknown type.", []int64{10}, false),
				item("fact", "   ", []int64{11}, false),
			},
		}, 100))
		ex, err := f.client(&logs).Extract(ctx, session())
		if err != nil {
			t.Fatal(err)
		}
		want := []governance.ExtractedItem{
			{Type: governance.TypePreference, Statement: "The user wants aisle seats.", SupportSeqs: []int64{10}, Durable: true},
		}
		if !reflect.DeepEqual(ex.Items, want) {
			t.Errorf("items:\ngot  %+v\nwant %+v", ex.Items, want)
		}
		for _, want := range []string{"model named event ids not in the input", "dropped_ids=[99]", "dropped_ids=[98]", "unknown type", "empty statement"} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("logs lack %q:\n%s", want, &logs)
			}
		}
		requireNotLogged(t, &logs, "PRIVATE-STATEMENT")
	})

	t.Run("InvalidJSON", func(t *testing.T) {
		var logs bytes.Buffer
		f := newFakeLLM(t, reply("Sure! RAW-REPLY-MARKER: the user likes aisle seats.", 50))
		ex, err := f.client(&logs).Extract(ctx, session())
		requireInvalid(t, err)
		if ex != nil {
			t.Errorf("got %+v, want nil", ex)
		}
		if strings.Contains(err.Error(), "RAW-REPLY-MARKER") {
			t.Errorf("error carries the raw reply: %v", err)
		}
		requireNotLogged(t, &logs, "RAW-REPLY-MARKER")
		if got := len(f.requests()); got != 1 {
			t.Errorf("got %d requests, want 1 (an invalid reply is not retried)", got)
		}
	})

	t.Run("NoUsableField", func(t *testing.T) {
		f := newFakeLLM(t, reply(`{"result": "done"}`, 50))
		_, err := f.client(nil).Extract(ctx, session())
		requireInvalid(t, err)
	})

	t.Run("NoEvents", func(t *testing.T) {
		f := newFakeLLM(t, reply(`{}`, 1))
		ex, err := f.client(nil).Extract(ctx, governance.ExtractInput{ProjectID: 1, SessionID: "s"})
		if err != nil || len(ex.Items) != 0 || len(f.requests()) != 0 {
			t.Fatalf("got %+v %v after %d requests, want an empty extraction and no request", ex, err, len(f.requests()))
		}
	})

	t.Run("ChineseSummary", func(t *testing.T) {
		f := newFakeLLM(t, replyJSON(t, map[string]any{
			"episode_summary": "用户订了机票。测试因缺少迁移而失败！先跑迁移后通过了。用户表示感谢。",
			"memory_items":    []any{},
		}, 80))
		ex, err := f.client(nil).Extract(ctx, session())
		if err != nil {
			t.Fatal(err)
		}
		if want := "用户订了机票。测试因缺少迁移而失败！先跑迁移后通过了。"; ex.Summary != want {
			t.Errorf("got %q, want %q", ex.Summary, want)
		}
	})
}
