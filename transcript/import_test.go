package transcript_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/transcript"
)

// hermesSchema is the sessions and messages tables of Hermes Agent's
// ~/.hermes/state.db, as created by hermes_state.py (SCHEMA_SQL) in
// NousResearch/hermes-agent.
const hermesSchema = `
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT
);`

// mustHermesDB writes a state.db with two sessions: tool calls stored in
// both shapes (OpenAI's nested function object and the flat one), a tool
// result with a non-zero exit_code, one with an error, one that passed.
func mustHermesDB(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	stmts := []string{hermesSchema,
		`INSERT INTO sessions (id, source, user_id, model, started_at, ended_at, end_reason) VALUES
			('20251103_090000_ab12', 'cli', 'alice', 'hermes-4', 1762160400.0, 1762160700.5, 'user_exit'),
			('20251104_100000_cd34', 'telegram', NULL, 'hermes-4', 1762250400.0, NULL, NULL)`,
		`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) VALUES
			('20251103_090000_ab12', 'system', 'You are Hermes.', NULL, NULL, NULL, 1762160400.1),
			('20251103_090000_ab12', 'user', '部署前记住先跑一遍数据库迁移检查。', NULL, NULL, NULL, 1762160401.0),
			('20251103_090000_ab12', 'assistant', '好的，我先检查迁移。', NULL, '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make migrate-check\"}"}}]', NULL, 1762160402.0),
			('20251103_090000_ab12', 'tool', '{"output":"migration 0042 missing down step","exit_code":2,"error":null}', 'call_1', NULL, 'terminal', 1762160403.0),
			('20251103_090000_ab12', 'assistant', NULL, NULL, '[{"id":"call_2","name":"terminal","arguments":{"command":"make migrate-check"}}]', NULL, 1762160404.0),
			('20251103_090000_ab12', 'tool', '{"output":"ok","exit_code":0,"error":null}', 'call_2', NULL, 'terminal', 1762160405.0),
			('20251104_100000_cd34', 'user', 'what is on my calendar', NULL, NULL, NULL, 1762250401.0),
			('20251104_100000_cd34', 'assistant', NULL, NULL, '[{"id":"call_3","type":"function","function":{"name":"calendar","arguments":"{}"}}]', NULL, 1762250402.0),
			('20251104_100000_cd34', 'tool', '{"error":"calendar token expired"}', 'call_3', NULL, NULL, 1762250403.0),
			('20251104_100000_cd34', 'assistant', 'Your calendar token expired.', NULL, 'not json', NULL, 1762250404.0)`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatal(err)
		}
	}
	return path
}

func TestParseHermes(t *testing.T) {
	path := mustHermesDB(t)
	var events []*governance.Event
	rep, err := transcript.ParseFile(context.Background(), path, transcript.Options{SkipMalformed: true, Now: importTime},
		func(e *governance.Event) error { events = append(events, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != transcript.FormatHermes || rep.Lines != 10 || rep.Ignored != 1 || rep.MalformedCount != 1 || rep.Malformed[0].Line != 10 {
		t.Fatalf("report = %+v", rep)
	}
	want := []struct {
		id, role, tool, status string
	}{
		{"hm:20251103_090000_ab12:2", "user", "", ""},
		{"hm:20251103_090000_ab12:3", "assistant", "", ""},
		{"hm:20251103_090000_ab12:4", "tool", "terminal", "failed"},
		{"hm:20251103_090000_ab12:5", "assistant", "", ""},
		{"hm:20251103_090000_ab12:6", "tool", "terminal", "passed"},
		{"hm:20251103_090000_ab12:end", "", "", ""},
		{"hm:20251104_100000_cd34:7", "user", "", ""},
		{"hm:20251104_100000_cd34:8", "assistant", "", ""},
		{"hm:20251104_100000_cd34:9", "tool", "calendar", "failed"},
	}
	if len(events) != len(want) {
		for _, e := range events {
			t.Logf("%+v", e)
		}
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for i, w := range want {
		e := events[i]
		if e.ID != w.id || string(e.Role) != w.role || e.Tool != w.tool || e.Status != w.status {
			t.Errorf("event %d = %s %s %s %s, want %+v", i, e.ID, e.Role, e.Tool, e.Status, w)
		}
	}
	if events[0].SubjectID != "alice" || events[5].Kind != governance.KindSessionEnd || events[3].Text != "[terminal] make migrate-check" {
		t.Errorf("events = %+v / %+v / %q", events[0], events[5], events[3].Text)
	}
}

func TestImport(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	p := &governance.Project{Slug: "shop", Name: "shop"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		_, n, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	fixture := filepath.Join("testdata", "claude-session.jsonl")

	t.Run("ErrRejectedWritesNothing", func(t *testing.T) {
		res, err := transcript.ImportFile(ctx, s, "cli", p.ID, fixture, transcript.Options{})
		var ie *governance.ImportError
		if !errors.As(err, &ie) || res.MalformedCount != 1 {
			t.Fatalf("err = %v, res = %+v", err, res)
		}
		if n := count(); n != 0 {
			t.Fatalf("%d events written by a rejected file", n)
		}
	})
	t.Run("SkipMalformedThenReimport", func(t *testing.T) {
		res, err := transcript.ImportFile(ctx, s, "cli", p.ID, fixture, transcript.Options{SkipMalformed: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != 10 || res.Skipped != 0 || res.MalformedCount != 1 {
			t.Fatalf("first import = %+v", res)
		}
		f, err := os.Open(fixture)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		res, err = transcript.Import(ctx, s, "cli", p.ID, f, transcript.Options{SkipMalformed: true, Name: "claude-session.jsonl"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != 0 || res.Skipped != 10 || count() != 10 {
			t.Fatalf("re-import = %+v, %d events", res, count())
		}
		sessions, n, err := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID})
		// One failed check; the other is_error result is a tool call the
		// person rejected, which is no failure.
		if err != nil || n != 2 || sessions[0].Failed+sessions[1].Failed != 1 {
			t.Fatalf("sessions = %d (%v)", n, err)
		}
	})
	t.Run("HermesUpload", func(t *testing.T) {
		f, err := os.Open(mustHermesDB(t))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		res, err := transcript.Import(ctx, s, "cli", p.ID, f, transcript.Options{SkipMalformed: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != transcript.FormatHermes || res.Inserted != 9 {
			t.Fatalf("hermes import = %+v", res)
		}
	})
}

// TestReimportMovedFile imports a Codex rollout and an OpenAI conversation,
// then the same sessions from renamed files with lines added before them
// (Codex: a line of the harness's; OpenAI: a conversation before it in a
// JSON Lines file). Every event is skipped: ids depend neither on line
// numbers nor on file names.
func TestReimportMovedFile(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	p := &governance.Project{Slug: "shop", Name: "shop"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, body []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	imp := func(path string, format transcript.Format) *transcript.Result {
		t.Helper()
		res, err := transcript.ImportFile(ctx, s, "cli", p.ID, path, transcript.Options{Format: format, SkipMalformed: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("Codex", func(t *testing.T) {
		rollout, err := os.ReadFile(filepath.Join("testdata", "codex-rollout.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		first := imp(write("rollout-2025-10-29T00-59-38-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl", rollout), transcript.FormatCodex)
		if first.Inserted == 0 {
			t.Fatalf("first import = %+v", first)
		}
		// session_meta names the session, so the new name does not matter;
		// the extra lines shift every line number.
		extra := `{"timestamp":"2025-10-29T00:59:38.000Z","type":"turn_context","payload":{"cwd":"/home/dev/api","model":"gpt-5-codex"}}` + "\n"
		moved := append([]byte(extra+extra), rollout...)
		again := imp(write("resumed.jsonl", moved), transcript.FormatCodex)
		if again.Inserted != 0 || again.Skipped != first.Inserted {
			t.Fatalf("re-import from a moved file = %+v, first = %+v", again, first)
		}
	})
	t.Run("OpenAI", func(t *testing.T) {
		conv := `[{"role":"system","content":"You are a coding assistant."},` +
			`{"role":"user","content":"Fix the flaky test, and from now on run it three times before you say it passes."},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"run","arguments":"{\"command\":\"go test -count=3 ./...\"}"}}]},` +
			`{"role":"tool","tool_call_id":"call_9","content":"{\"exit_code\":0}"},` +
			`{"role":"assistant","content":"It passed three times."}]`
		first := imp(write("chat.json", []byte(conv)), transcript.FormatOpenAI)
		if first.Inserted != 4 {
			t.Fatalf("first import = %+v", first)
		}
		other := `{"messages":[{"role":"user","content":"What does this regexp match?"}]}`
		lines := other + "\n" + `{"messages":` + conv + "}\n"
		again := imp(write("export-2025-11.jsonl", []byte(lines)), transcript.FormatOpenAI)
		if again.Inserted != 1 || again.Skipped != 4 {
			t.Fatalf("re-import from another file = %+v", again)
		}
	})
}
