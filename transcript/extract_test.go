package transcript_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/transcript"
)

// TestExtractFromTranscript runs the offline extractor over an imported
// Claude Code session: the standing instructions are durable, the
// correction after the rejected force-push is one, and the lesson of the
// failed CI build names the fix that made it pass.
func TestExtractFromTranscript(t *testing.T) {
	events, _, err := parse(t, "claude-session.jsonl", transcript.Options{SkipMalformed: true})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string][]*governance.Event{}
	var order []string
	for i, e := range events {
		e.Seq = int64(i + 1)
		if sessions[e.SessionID] == nil {
			order = append(order, e.SessionID)
		}
		sessions[e.SessionID] = append(sessions[e.SessionID], e)
	}
	var items []governance.ExtractedItem
	for _, id := range order {
		ex, err := heuristic.NewExtractor().Extract(context.Background(), governance.ExtractInput{SessionID: id, Events: sessions[id]})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, ex.Items...)
	}
	find := func(typ governance.MemoryType, part string) *governance.ExtractedItem {
		for i := range items {
			if items[i].Type == typ && strings.Contains(items[i].Statement, part) {
				return &items[i]
			}
		}
		return nil
	}
	for _, part := range []string{"always run the unit tests before you push", "Never force-push to main", "Don't ever force-push"} {
		if it := find(governance.TypePreference, part); it == nil || !it.Durable {
			t.Errorf("no durable preference %q in %+v", part, items)
		}
	}
	lesson := find(governance.TypeLesson, "pin the Node version in .nvmrc")
	if lesson == nil {
		t.Fatalf("no lesson naming the fix in %+v", items)
	}
	for _, part := range []string{"When npm run ci:build fails", "wanted node >=20"} {
		if !strings.Contains(lesson.Statement, part) {
			t.Errorf("lesson %q does not name %q", lesson.Statement, part)
		}
	}
}

// TestNewUserSessions imports sessions the way a new user's agents write
// them — a Claude Code file holding two sessions (a /clear between them)
// and a subagent's sidechain, a Codex rollout, a Hermes state.db — with
// standing instructions phrased as people do, in English and Chinese,
// among ordinary chat, and runs the offline extractor over each session:
// every standing instruction is a durable preference, nothing the chat
// says is one, and the parent agent's prompt to its subagent is not the
// person's.
func TestNewUserSessions(t *testing.T) {
	ctx := context.Background()
	claude := strings.Join([]string{
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","type":"user","message":{"role":"user","content":"hey, quick one — from here on out, put new handlers in internal/http, not in cmd."},"uuid":"u1","timestamp":"2025-11-03T09:00:00Z"}`,
		`{"parentUuid":"u1","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"Move the handler.","signature":"x"},{"type":"text","text":"Moving it and running the tests."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./..."}}]},"uuid":"u2","timestamp":"2025-11-03T09:00:05Z"}`,
		`{"parentUuid":"u2","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"internal/http/routes.go:12: undefined: api.NewServer","is_error":true}]},"uuid":"u3","timestamp":"2025-11-03T09:00:09Z"}`,
		`{"parentUuid":"u3","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","type":"user","message":{"role":"user","content":"ugh. 以后跑测试之前都先 make generate。"},"uuid":"u4","timestamp":"2025-11-03T09:01:00Z"}`,
		`{"parentUuid":"u4","isSidechain":true,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","agentId":"ag1","type":"user","message":{"role":"user","content":"Always prefer the cached index when you search, and never read vendor/."},"uuid":"s1","timestamp":"2025-11-03T09:01:10Z"}`,
		`{"parentUuid":"u4","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","type":"user","message":{"role":"user","content":"thanks, that looks right"},"uuid":"u5","timestamp":"2025-11-03T09:02:00Z"}`,
		`{"type":"summary","summary":"Handlers moved","leafUuid":"u5"}`,
		`{"parentUuid":"u5","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"aa11","version":"2.0.14","type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"},"uuid":"u6","timestamp":"2025-11-03T09:03:00Z"}`,
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"bb22","version":"2.0.14","type":"user","message":{"role":"user","content":"Why is the linter so slow today?"},"uuid":"v1","timestamp":"2025-11-03T09:04:00Z"}`,
		`{"parentUuid":"v1","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"bb22","version":"2.0.14","type":"user","message":{"role":"user","content":"Also, keep PR titles under 60 characters from now on."},"uuid":"v2","timestamp":"2025-11-03T09:05:00Z"}`,
		`{"parentUuid":"v2","isSidechain":false,"userType":"external","cwd":"/home/dev/api","sessionId":"bb22","version":"2.0.14","type":"user","message":{"role":"user","content":"The build always breaks on Mondays, no idea why."},"uuid":"v3","timestamp":"2025-11-03T09:06:00Z"}`,
	}, "\n") + "\n"
	codex := strings.Join([]string{
		`{"timestamp":"2025-11-04T10:00:00.000Z","type":"session_meta","payload":{"id":"019a4b2c-0000-7000-8000-00000000c0de","timestamp":"2025-11-04T10:00:00.000Z","cwd":"/home/dev/api","originator":"codex_cli_rs","cli_version":"0.58.0"}}`,
		`{"timestamp":"2025-11-04T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Never hand-edit the generated protobuf files; regenerate them with buf."}]}}`,
		`{"timestamp":"2025-11-04T10:00:01.001Z","type":"event_msg","payload":{"type":"user_message","message":"Never hand-edit the generated protobuf files; regenerate them with buf.","images":[]}}`,
		`{"timestamp":"2025-11-04T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Understood."}]}}`,
		`{"timestamp":"2025-11-04T10:00:06.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"1","last_agent_message":"Understood."}}`,
		`{"timestamp":"2025-11-04T10:01:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"can you check the flaky test in pkg/queue?"}]}}`,
		`{"timestamp":"2025-11-04T10:02:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"这个仓库里所有时间都按 UTC 存，记好了。"}]}}`,
	}, "\n") + "\n"
	hermes := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", hermes)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{hermesSchema,
		`INSERT INTO sessions (id, source, user_id, started_at, ended_at, end_reason) VALUES ('20251105_080000_ee55', 'telegram', 'wang', 1762329600.0, 1762330000.0, 'user_exit')`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES
			('20251105_080000_ee55', 'user', '周报模板放在哪了？', 1762329601.0),
			('20251105_080000_ee55', 'assistant', '在 docs/weekly.md。', 1762329602.0),
			('20251105_080000_ee55', 'user', '往后周报都发到 #team 频道，别私聊我。', 1762329603.0),
			('20251105_080000_ee55', 'user', '好的，辛苦了。', 1762329604.0)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	sessions := map[string][]*governance.Event{}
	collect := func(e *governance.Event) error {
		e.Seq = int64(len(sessions[e.SessionID]) + 1)
		sessions[e.SessionID] = append(sessions[e.SessionID], e)
		return nil
	}
	for _, in := range []struct {
		name, body string
	}{{"aa11.jsonl", claude}, {"rollout-2025-11-04T10-00-00-019a4b2c-0000-7000-8000-00000000c0de.jsonl", codex}} {
		if _, err := transcript.Parse(ctx, strings.NewReader(in.body), transcript.Options{Name: in.name}, collect); err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
	}
	if _, err := transcript.ParseFile(ctx, hermes, transcript.Options{}, collect); err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 4 {
		t.Fatalf("sessions = %d, want 4 (two Claude Code, one Codex, one Hermes)", len(sessions))
	}
	var durable, other []string
	for id, events := range sessions {
		ex, err := heuristic.NewExtractor().Extract(ctx, governance.ExtractInput{SessionID: id, Events: events})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range ex.Items {
			if it.Type == governance.TypePreference && it.Durable {
				durable = append(durable, it.Statement)
			} else {
				other = append(other, it.Statement)
			}
		}
	}
	for _, want := range []string{"put new handlers in internal/http", "以后跑测试之前都先 make generate", "PR titles under 60 characters",
		"Never hand-edit the generated protobuf files", "所有时间都按 UTC 存", "往后周报都发到 #team 频道"} {
		found := false
		for _, s := range durable {
			found = found || strings.Contains(s, want)
		}
		if !found {
			t.Errorf("no durable preference %q in %q", want, durable)
		}
	}
	for _, s := range durable {
		for _, not := range []string{"cached index", "vendor/", "linter", "Mondays", "flaky", "周报模板", "辛苦", "looks right"} {
			if strings.Contains(s, not) {
				t.Errorf("durable preference from chat or the subagent prompt: %q", s)
			}
		}
	}
	// The chat around an instruction stays out of its statement.
	for _, s := range durable {
		if strings.Contains(s, "put new handlers") && !strings.HasPrefix(s, "From here on out") {
			t.Errorf("statement %q keeps its chatty opener", s)
		}
	}
	if len(durable) != 6 {
		t.Errorf("durable preferences = %q, want the 6 instructions", durable)
	}
}
