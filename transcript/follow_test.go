package transcript_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/transcript"
)

func TestFollow(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "db")
	s, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	p := &governance.Project{Slug: "shop", Name: "shop"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "projects", "-home-dev-shop")
	os.MkdirAll(dir, 0o755)
	src := &store.Source{ProjectID: p.ID, Dir: dir, Format: string(transcript.FormatClaudeCode)}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("testdata", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(string(fixture), "\n")
	file := filepath.Join(dir, "5b1e7f3a.jsonl")
	appendLines := func(lines ...string) {
		fh, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		for _, l := range lines {
			fh.WriteString(l)
		}
	}
	follower := func(st *store.Store) *transcript.Follower {
		return &transcript.Follower{Store: st, SourceID: src.ID, ProjectID: p.ID, Dir: dir,
			Options: transcript.Options{Format: transcript.FormatClaudeCode}}
	}
	count := func(st *store.Store) int {
		_, n, err := st.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The first three lines, and half of the fourth (still being written).
	appendLines(all[0], all[1], all[2], all[3][:40])
	res, err := follower(s).Poll(ctx)
	if err != nil || res.Inserted != 1 || count(s) != 1 {
		t.Fatalf("first poll: %+v, %v, %d events", res, err, count(s))
	}
	// The rest of line 4 and line 5 are appended: picked up by the next poll.
	appendLines(all[3][40:], all[4])
	if res, err = follower(s).Poll(ctx); err != nil {
		t.Fatal(err)
	}
	// Lines 4 and 5 share message.id msg_01A with line 6, not yet written.
	if got := count(s); got != 2 {
		t.Fatalf("after the append: %d events, want 2", got)
	}

	// Restart: close the store, reopen it, append the rest, poll twice.
	s.Close()
	s2, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	appendLines(all[5:]...)
	if _, err := follower(s2).Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := follower(s2).Poll(ctx); err != nil {
		t.Fatal(err)
	}
	// Every event of the file exactly once, each with the text a whole
	// import gives it: the assistant message split across the polls (and
	// the restart) keeps all its parts under the message's id.
	want := map[string]string{}
	if _, err := transcript.Parse(ctx, strings.NewReader(string(fixture)), transcript.Options{Format: transcript.FormatClaudeCode, SkipMalformed: true},
		func(e *governance.Event) error { want[e.ID] = e.Text; return nil }); err != nil {
		t.Fatal(err)
	}
	events, n, err := s2.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range events {
		if seen[e.ID] {
			t.Errorf("event %s stored twice", e.ID)
		}
		seen[e.ID] = true
		if w, ok := want[e.ID]; !ok || w != e.Text {
			t.Errorf("event %s = %q, want %q as a whole import has it", e.ID, e.Text, w)
		}
	}
	if n != len(want) || n != 10 {
		t.Fatalf("%d events after the restart, want %d", n, len(want))
	}
	// Turns go on across polls: each session's timeline is in file order.
	for _, session := range []string{"5b1e7f3a-2c4d-4e6f-8a9b-0c1d2e3f4a5b", "9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f"} {
		timeline, _, err := s2.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: &session, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(timeline); i++ {
			if prev, e := timeline[i-1], timeline[i]; e.Turn <= prev.Turn || e.Seq < prev.Seq {
				t.Errorf("session %s: %s (turn %d, seq %d) follows %s (turn %d, seq %d)", session, e.ID, e.Turn, e.Seq, prev.ID, prev.Turn, prev.Seq)
			}
		}
	}
	sources, err := s2.FindSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := sources[0].Files[0]
	if f.Path != "5b1e7f3a.jsonl" || f.Offset != int64(len(fixture)) || f.Lines != 18 || !strings.Contains(f.LastError, "line 9") {
		t.Fatalf("checkpoint = %+v", f)
	}
}

// TestFollowHermes follows a Hermes state.db that Hermes keeps open in WAL
// mode: the first poll reads every message and the ended session's end;
// rows appended later and a session ending are picked up by the next poll,
// each once; a whole import of the database afterwards adds nothing (the
// ids are the same); the database is never written by the follower.
func TestFollowHermes(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p := &governance.Project{Slug: "home", Name: "home"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	path := mustHermesDB(t)
	dir := filepath.Dir(path)
	hermes, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hermes.Close() })
	if _, err := hermes.Exec(`SELECT COUNT(*) FROM messages`); err != nil {
		t.Fatal(err)
	}
	src := &store.Source{ProjectID: p.ID, Dir: dir, Format: ""}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	f := &transcript.Follower{Store: s, SourceID: src.ID, ProjectID: p.ID, Dir: dir}
	res, err := f.Poll(ctx)
	if err != nil || res.Files != 1 || res.Inserted != 9 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "line 10") {
		t.Fatalf("first poll = %+v, %v; want 9 events from state.db and row 10 reported", res, err)
	}
	if res, err = f.Poll(ctx); err != nil || res.Inserted != 0 {
		t.Fatalf("idle poll = %+v, %v", res, err)
	}
	// Hermes writes on: a message in the open session, which then ends.
	if _, err := hermes.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20251104_100000_cd34', 'user', '以后别再自动续订日历令牌了。', 1762250405.0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := hermes.Exec(`UPDATE sessions SET ended_at = 1762250406.0, end_reason = 'user_exit' WHERE id = '20251104_100000_cd34'`); err != nil {
		t.Fatal(err)
	}
	if res, err = f.Poll(ctx); err != nil || res.Inserted != 2 {
		t.Fatalf("poll after Hermes wrote = %+v, %v; want the message and the session's end", res, err)
	}
	if res, err = f.Poll(ctx); err != nil || res.Inserted != 0 {
		t.Fatalf("poll after that = %+v, %v", res, err)
	}
	sessions, _, err := s.FindSessions(ctx, governance.SessionFilter{ProjectID: p.ID})
	if err != nil || len(sessions) != 2 || !sessions[0].Ended || !sessions[1].Ended {
		t.Fatalf("sessions = %+v, %v; want both ended", sessions, err)
	}
	imp, err := transcript.ImportFile(ctx, s, "cli", p.ID, path, transcript.Options{SkipMalformed: true})
	if err != nil || imp.Inserted != 0 || imp.Skipped != 11 {
		t.Fatalf("whole import after following = %+v, %v; want all 11 skipped", imp, err)
	}
	files, err := s.FindSources(ctx)
	if err != nil || len(files) != 1 || len(files[0].Files) != 1 {
		t.Fatalf("sources = %+v, %v", files, err)
	}
	if cp := files[0].Files[0]; cp.Path != "state.db" || cp.Offset != 11 || cp.EndedMark != 1762250406000 {
		t.Fatalf("checkpoint = %+v", cp)
	}
}

// TestFollowRestartExactlyOnce appends a generated transcript in chunks
// cut at random byte positions (so polls often meet half-written lines),
// polls between chunks, and closes and reopens the store every few
// chunks, as a console restarted while its agents write would. In the
// end every line is stored exactly once, with the text a whole import
// gives it.
func TestFollowRestartExactlyOnce(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "db")
	s, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	p := &governance.Project{Slug: "load", Name: "load"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := &store.Source{ProjectID: p.ID, Dir: dir, Format: string(transcript.FormatClaudeCode)}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	const lines = 300
	body := claudeLines(lines)
	fh, err := os.OpenFile(filepath.Join(dir, "live.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	rng := rand.New(rand.NewPCG(13, 13))
	poll := func() {
		f := &transcript.Follower{Store: s, SourceID: src.ID, ProjectID: p.ID, Dir: dir, Options: transcript.Options{Format: transcript.FormatClaudeCode}}
		if _, err := f.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for pos, chunk := 0, 0; pos < len(body); chunk++ {
		n := min(len(body)-pos, 1+rng.IntN(3000))
		if _, err := fh.Write(body[pos : pos+n]); err != nil {
			t.Fatal(err)
		}
		pos += n
		poll()
		if chunk%8 == 7 {
			s.Close()
			if s, err = store.Open(ctx, dbPath); err != nil {
				t.Fatal(err)
			}
		}
	}
	poll()
	want := map[string]string{}
	if _, err := transcript.Parse(ctx, bytes.NewReader(body), transcript.Options{Format: transcript.FormatClaudeCode},
		func(e *governance.Event) error { want[e.ID] = e.Text; return nil }); err != nil {
		t.Fatal(err)
	}
	events, n, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 2 * lines})
	if err != nil {
		t.Fatal(err)
	}
	if n != lines || len(want) != lines {
		t.Fatalf("%d events stored, %d in a whole parse; want %d", n, len(want), lines)
	}
	for _, e := range events {
		if want[e.ID] != e.Text {
			t.Fatalf("event %s = %q, want %q", e.ID, e.Text, want[e.ID])
		}
		delete(want, e.ID)
	}
	if len(want) != 0 {
		t.Fatalf("%d events missing", len(want))
	}
}

// TestFollowCodexResume: Codex CLI records no end of session in a rollout
// (it never persists its shutdown event), and `codex resume` appends the
// resumed conversation to the same file without a new session_meta. So a
// followed rollout whose turn completed (task_complete) stays one open
// session: the lines appended after a resume join it, its turns go on,
// and nothing in the file ends it (the heartbeat's idle time does).
func TestFollowCodexResume(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &governance.Project{Slug: "api", Name: "api"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := &store.Source{ProjectID: p.ID, Dir: dir, Format: string(transcript.FormatAuto)}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	const id = "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"
	file := filepath.Join(dir, "2025", "10", "29", "rollout-2025-10-29T00-59-38-"+id+".jsonl")
	os.MkdirAll(filepath.Dir(file), 0o755)
	write := func(lines ...string) {
		fh, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		for _, l := range lines {
			fh.WriteString(l + "\n")
		}
	}
	f := &transcript.Follower{Store: s, SourceID: src.ID, ProjectID: p.ID, Dir: dir}
	poll := func() {
		if _, err := f.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"timestamp":"2025-10-29T00:59:38.317Z","type":"session_meta","payload":{"id":"`+id+`","timestamp":"2025-10-29T00:59:38.308Z","cwd":"/home/dev/api","originator":"codex_cli_rs","cli_version":"0.58.0"}}`,
		`{"timestamp":"2025-10-29T00:59:40.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"1","model_context_window":272000}}`,
		`{"timestamp":"2025-10-29T00:59:40.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Rename the config loader."}]}}`,
		`{"timestamp":"2025-10-29T00:59:50.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Renamed it to loadConfig."}]}}`,
		`{"timestamp":"2025-10-29T00:59:50.500Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"1","last_agent_message":"Renamed it to loadConfig."}}`)
	poll()
	// Resumed the next day: appended to the same file, no session_meta.
	write(`{"timestamp":"2025-10-30T08:00:00.000Z","type":"turn_context","payload":{"cwd":"/home/dev/api","approval_policy":"on-request","model":"gpt-5-codex"}}`,
		`{"timestamp":"2025-10-30T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Now update the README."}]}}`,
		`{"timestamp":"2025-10-30T08:00:05.000Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`)
	poll()
	events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		if e.SessionID != id || e.Kind == governance.KindSessionEnd {
			t.Errorf("event %s: session %q, kind %q", e.ID, e.SessionID, e.Kind)
		}
		got = append(got, fmt.Sprintf("%d:%s", e.Turn, e.Role))
	}
	if fmt.Sprint(got) != "[1:user 2:assistant 3:user]" {
		t.Fatalf("events = %v, want the resumed turn 3 in the same session", got)
	}
	if si, err := s.FindSession(ctx, p.ID, id); err != nil || si.Ended || si.Events != 3 {
		t.Fatalf("session = %+v, %v; want 3 events, not ended", si, err)
	}
}
