package transcript_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/model"
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
	if f.Path != "5b1e7f3a.jsonl" || f.Offset != int64(len(fixture)) || f.Lines != 18 || !strings.Contains(governance.ParseText(f.LastError).String(), "line 9") {
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
	if err != nil || res.Files != 1 || res.Inserted != 9 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].String(), "line 10") {
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

// TestFollowCodexResumeConsolidates follows a Codex rollout end to end
// across a resume: the first conversation is followed, ends by idle time
// and is consolidated by a beat; `codex resume` then appends more lines to
// the same file (no session_meta); the follower stores only those, once;
// the session goes on (same id, turns continue, its episode grows), and
// the next beat after the idle time draws candidates from the new turns
// without drawing again what the first beat already did: with the offline
// extractor, and with a model that words the same instruction differently
// from one call to the next, as models do (re-reading the first turns must
// not draw them again in new words).
func TestFollowCodexResumeConsolidates(t *testing.T) {
	t.Run("Heuristic", func(t *testing.T) { followCodexResume(t, heuristic.NewConsolidator(nil)) })
	t.Run("Model", func(t *testing.T) {
		cons := heuristic.NewConsolidator(nil)
		cons.Extractor = model.New(model.Config{BaseURL: rewordingModel(t), APIKey: "test", Model: "fake", Timeout: 5 * time.Second},
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		followCodexResume(t, cons)
	})
}

// rewordingModel serves an OpenAI-compatible chat endpoint that extracts
// like a model: every user event that sets a rule ("from now on",
// "never") becomes a durable preference supported by that event, worded
// anew on each call. It returns the API's base URL.
func rewordingModel(t *testing.T) string {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		openers := []string{"Going forward, ", "As a standing rule, ", "From now on, "}
		items := []map[string]any{}
		for _, m := range req.Messages {
			if m.Role != "user" {
				continue
			}
			for l := range strings.Lines(m.Content) {
				var e struct {
					ID   int64  `json:"id"`
					Role string `json:"role"`
					Text string `json:"text"`
				}
				if json.Unmarshal([]byte(l), &e) != nil || e.Role != "user" {
					continue
				}
				for sentence := range strings.SplitSeq(e.Text, ". ") {
					lower := strings.ToLower(sentence)
					rule, ok := strings.CutPrefix(lower, "never ")
					if ok {
						rule = "never " + rule
					} else if _, after, found := strings.Cut(lower, "from now on "); found {
						rule = after
					} else {
						continue
					}
					items = append(items, map[string]any{"type": "user_preference", "statement": openers[n%len(openers)] + strings.TrimSuffix(rule, "."),
						"supported_event_ids": []int64{e.ID}, "durable": true})
				}
			}
		}
		out, _ := json.Marshal(map[string]any{"episode_summary": fmt.Sprintf("Work on the api (reading %d).", n), "memory_items": items})
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "fake",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(out)}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func followCodexResume(t *testing.T, cons *consolidate.Consolidator) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Date(2025, 10, 29, 9, 0, 0, 0, time.UTC)
	now := start
	s.Now = func() time.Time { return now }
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
	file := filepath.Join(dir, "2025", "10", "29", "rollout-2025-10-29T09-00-00-"+id+".jsonl")
	os.MkdirAll(filepath.Dir(file), 0o755)
	// line writes one rollout line dated sec seconds after base.
	line := func(base time.Time, sec int, typ, payload string) string {
		return fmt.Sprintf(`{"timestamp":%q,"type":%q,"payload":%s}`, base.Add(time.Duration(sec)*time.Second).Format(time.RFC3339Nano), typ, payload)
	}
	user := func(text string) string {
		return fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}`, text)
	}
	call := func(callID, cmd string) string {
		args := fmt.Sprintf(`{"command":["bash","-lc",%q]}`, cmd)
		return fmt.Sprintf(`{"type":"function_call","name":"shell","arguments":%q,"call_id":%q}`, args, callID)
	}
	output := func(callID string, code int, out string) string {
		body := fmt.Sprintf(`{"output":%q,"metadata":{"exit_code":%d,"duration_seconds":1.0}}`, out, code)
		return fmt.Sprintf(`{"type":"function_call_output","call_id":%q,"output":%q}`, callID, body)
	}
	// patch is an apply_patch call and its output, at sec and sec+1.
	patch := func(base time.Time, sec int, callID, file, minus, plus string) []string {
		in := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s\n*** End Patch", file, minus, plus)
		out := fmt.Sprintf(`{"output":"Success. Updated the following files:\nM %s\n","metadata":{"exit_code":0,"duration_seconds":0.0}}`, file)
		return []string{
			line(base, sec, "response_item", fmt.Sprintf(`{"type":"custom_tool_call","status":"completed","call_id":%q,"name":"apply_patch","input":%q}`, callID, in)),
			line(base, sec+1, "response_item", fmt.Sprintf(`{"type":"custom_tool_call_output","call_id":%q,"output":%q}`, callID, out)),
		}
	}
	assistant := func(text string) string {
		return fmt.Sprintf(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}`, text)
	}
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
	poll := func(want int) {
		t.Helper()
		res, err := f.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != want || len(res.Problems) != 0 {
			t.Fatalf("poll: %+v, want %d inserted and no problem", res, want)
		}
	}
	hb := &consolidate.Heartbeat{Store: s, Consolidator: cons, Idle: time.Hour, Now: func() time.Time { return now }}
	beat := func() *governance.BeatRecord {
		t.Helper()
		rec, err := hb.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	candidates := func() []*governance.Candidate {
		t.Helper()
		cs, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	episode := func() *governance.Episode {
		t.Helper()
		sid := id
		eps, _, err := s.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID, SessionID: &sid})
		if err != nil {
			t.Fatal(err)
		}
		if len(eps) > 1 {
			t.Fatalf("%d episodes of one session", len(eps))
		}
		if len(eps) == 0 {
			return nil
		}
		return eps[0]
	}
	// has reports how many candidates of the session say something
	// containing part.
	has := func(cs []*governance.Candidate, part string) int {
		n := 0
		for _, c := range cs {
			if c.SessionID == id && strings.Contains(c.Statement, part) {
				n++
			}
		}
		return n
	}

	// Day one: a conversation, its turn completed.
	first := append([]string{
		line(start, 0, "session_meta", `{"id":"`+id+`","timestamp":"`+start.Format(time.RFC3339Nano)+`","cwd":"/home/dev/api","originator":"codex_cli_rs","cli_version":"0.58.0"}`),
		line(start, 1, "event_msg", `{"type":"task_started","turn_id":"1","model_context_window":272000}`),
		line(start, 2, "response_item", user("The migration tests fail. Fix them, and from now on run go vet before you say you're done.")),
		line(start, 3, "response_item", call("call_A1", "go test ./migrate/...")),
		line(start, 5, "response_item", output("call_A1", 1, "--- FAIL: TestUp (0.01s)\n    up_test.go:31: table users already exists\nFAIL\n")),
	}, patch(start, 6, "call_A2", "migrate/up_test.go", "func setup() {}", "func setup() { dropSchema() }")...)
	first = append(first,
		line(start, 8, "response_item", call("call_A3", "go test ./migrate/...")),
		line(start, 10, "response_item", output("call_A3", 0, "ok  \texample.com/api/migrate\t0.412s\n")),
		line(start, 11, "response_item", assistant("The setup now drops the schema before each test; the migration tests pass.")),
		line(start, 12, "event_msg", `{"type":"task_complete","turn_id":"1","last_agent_message":"The migration tests pass."}`))
	write(first...)
	poll(8) // the request, three calls and their outputs, the answer
	poll(0)

	// A beat while the session is live consolidates nothing of it.
	now = start.Add(10 * time.Minute)
	if rec := beat(); rec.Candidates != 0 || episode() != nil {
		t.Fatalf("beat of a live session: %+v, episode %+v", rec, episode())
	}
	// An hour without a line: the session counts as ended and is consolidated.
	now = start.Add(2 * time.Hour)
	beat()
	ep1 := episode()
	before := candidates()
	if ep1 == nil || len(before) == 0 {
		t.Fatalf("after the idle end: episode %+v, candidates %+v", ep1, before)
	}
	if has(before, "go vet") != 1 {
		t.Fatalf("candidates after the first consolidation: %v, want the go vet instruction once", statements(before))
	}
	if rec := beat(); rec.Candidates != 0 {
		t.Fatalf("a second beat drew %d candidates from a consolidated session", rec.Candidates)
	}

	// The next morning: `codex resume` appends to the same file.
	resumed := start.Add(24 * time.Hour)
	now = resumed
	second := []string{
		line(resumed, 0, "turn_context", `{"cwd":"/home/dev/api","approval_policy":"on-request","model":"gpt-5-codex"}`),
		line(resumed, 1, "event_msg", `{"type":"task_started","turn_id":"2","model_context_window":272000}`),
		line(resumed, 2, "response_item", user("Now add a created_at column to users. Never edit the files under gen/, they are generated.")),
		line(resumed, 2, "event_msg", `{"type":"user_message","message":"Now add a created_at column to users. Never edit the files under gen/, they are generated.","kind":"plain"}`),
		line(resumed, 3, "response_item", call("call_B1", "go build ./...")),
		line(resumed, 4, "response_item", output("call_B1", 2, "store/users.go:14:2: undefined: CreatedAt\n")),
	}
	second = append(second, patch(resumed, 5, "call_B2", "store/users.go", "\tCreatedAt", "\tCreatedAt time.Time")...)
	second = append(second,
		line(resumed, 7, "response_item", call("call_B3", "go build ./...")),
		line(resumed, 8, "response_item", output("call_B3", 0, "")),
		line(resumed, 9, "response_item", assistant("Added created_at with a migration; gen/ is untouched.")),
		line(resumed, 10, "event_msg", `{"type":"task_complete","turn_id":"2","last_agent_message":"Added created_at."}`))
	write(second...)
	poll(8) // the request (not its event_msg copy), three calls and outputs, the answer
	poll(0)
	events, n, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, e := range events {
		if seen[e.ID] || e.SessionID != id || e.Kind == governance.KindSessionEnd {
			t.Errorf("event %s: session %q, kind %q, seen before %v", e.ID, e.SessionID, e.Kind, seen[e.ID])
		}
		seen[e.ID] = true
		if i > 0 && e.Turn <= events[i-1].Turn {
			t.Errorf("event %s: turn %d after turn %d", e.ID, e.Turn, events[i-1].Turn)
		}
	}
	if n != 16 {
		t.Fatalf("%d events after the resume, want 16 (8 + 8)", n)
	}
	// The session re-opens: it is one session, live again until it has
	// been quiet for the idle time, so a beat now draws nothing from it.
	if si, err := s.FindSession(ctx, p.ID, id); err != nil || si.Ended || si.Events != 16 {
		t.Fatalf("session after the resume = %+v, %v", si, err)
	}
	now = resumed.Add(20 * time.Minute)
	if rec := beat(); rec.Candidates != 0 {
		t.Fatalf("a beat of the resumed, live session drew %d candidates", rec.Candidates)
	}
	if ep := episode(); ep.LastSeq != ep1.LastSeq {
		t.Fatalf("the episode moved while the session was live: %+v", ep)
	}

	// Quiet for the idle time again: the next beat consolidates the new turns.
	now = resumed.Add(3 * time.Hour)
	rec := beat()
	after := candidates()
	if rec.Candidates == 0 || len(after) != len(before)+rec.Candidates {
		t.Fatalf("beat after the resume: %+v; %d candidates before, %d after", rec, len(before), len(after))
	}
	if has(after, "gen/") != 1 || has(after, "go vet") != 1 {
		t.Fatalf("candidates after the resume: %q, want the gen/ instruction once and the go vet one still once", statements(after))
	}
	byStatement := map[string]int{}
	for _, c := range after {
		byStatement[c.Statement]++
		if byStatement[c.Statement] > 1 {
			t.Errorf("candidate %q drawn twice", c.Statement)
		}
	}
	for _, c := range before {
		if byStatement[c.Statement] != 1 {
			t.Errorf("candidate %q of the first consolidation: %d after the resume", c.Statement, byStatement[c.Statement])
		}
	}
	ep2 := episode()
	if ep2.FirstSeq != ep1.FirstSeq || ep2.LastSeq <= ep1.LastSeq || ep2.EventCount != 16 {
		t.Fatalf("episode after the resume = %+v, want it to cover both parts (first seq %d, 16 events)", ep2, ep1.FirstSeq)
	}
	if rec := beat(); rec.Candidates != 0 || len(candidates()) != len(after) {
		t.Fatalf("a further beat drew %d candidates", rec.Candidates)
	}
}

func statements(cs []*governance.Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Type)+": "+c.Statement)
	}
	return out
}
