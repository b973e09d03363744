package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/store"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// startServe runs "console serve" on a free port until the test ends and
// returns the printed output once the URL is known.
func startServe(t *testing.T, dir string, extra ...string) (url string, out *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, extra...), env(nil), strings.NewReader(""), out, &syncBuffer{})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	re := regexp.MustCompile(`Mnemo console: (http://\S+)/`)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1], out
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no URL printed:\n%s", out.String())
	return "", nil
}

func TestServeFirstAndSecondStart(t *testing.T) {
	dir := t.TempDir()
	t.Run("FirstStart", func(t *testing.T) {
		url, out := startServe(t, dir)
		for _, want := range []string{"admin", "reviewer", "family-chen", "shown only this once"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("first start output lacks %q:\n%s", want, out.String())
			}
		}
		resp, err := http.Get(url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("healthz = %d", resp.StatusCode)
		}
	})
	t.Run("SecondStartKeepsEverything", func(t *testing.T) {
		_, out := startServe(t, dir)
		if strings.Contains(out.String(), "shown only this once") {
			t.Fatalf("second start created accounts again:\n%s", out.String())
		}
	})
	t.Run("Accounts", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"user", "list", "--data", dir}, env(nil), nil, &out, &out); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(out.String(), "\n"); got != 4 {
			t.Fatalf("user list = %d lines, want header + 3 accounts:\n%s", got, out.String())
		}
	})
}

func TestNoDemo(t *testing.T) {
	dir := t.TempDir()
	_, out := startServe(t, dir, "--no-demo")
	if !strings.Contains(out.String(), "admin") || strings.Contains(out.String(), "family-chen") {
		t.Fatalf("--no-demo output:\n%s", out.String())
	}
}

// TestNoPageScrubFlag: --no-page-scrub (MNEMO_NO_PAGE_SCRUB) opens the
// SQLite store without the page scrub, so a new file is not recorded as
// swept; by default it is.
func TestNoPageScrubFlag(t *testing.T) {
	for _, off := range []bool{true, false} {
		cfg := DefaultConfig()
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		if err := cfg.bindFlags(fs, env(map[string]string{"MNEMO_NO_PAGE_SCRUB": strconv.FormatBool(off)})); err != nil {
			t.Fatal(err)
		}
		if cfg.NoPageScrub != off {
			t.Fatalf("MNEMO_NO_PAGE_SCRUB=%t: NoPageScrub = %t", off, cfg.NoPageScrub)
		}
		cfg.DataDir = t.TempDir()
		st, _, err := openStore(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var swept int
		err = st.(*store.Store).DB().QueryRow(`SELECT count(*) FROM settings WHERE key = 'pages_swept'`).Scan(&swept)
		st.Close()
		if err != nil || (swept == 0) != off {
			t.Errorf("NoPageScrub=%t: pages_swept rows = %d, %v", off, swept, err)
		}
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"--help"}, env(nil), nil, &out, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"--addr", "MNEMO_ADDR", "--data", "MNEMO_DATA_DIR", "--no-demo", "--no-page-scrub", "MNEMO_LLM_BASE_URL", "MNEMO_LLM_MODEL", "user add", "import FILE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"serve"}, env(map[string]string{"MNEMO_ADDR": "nonsense"}), nil, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Fatalf("err = %v, want the bad MNEMO_ADDR named", err)
	}
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	if err := cfg.bindFlags(fs, env(map[string]string{"OPENAI_API_KEY": "sk-fallback", "MNEMO_DATA_DIR": "/tmp/x",
		"MNEMO_LLM_PRICE_IN": "0.15"})); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--llm-price-out", "0.6"}); err != nil {
		t.Fatal(err)
	}
	if cfg.LLMAPIKey != "sk-fallback" || cfg.DataDir != "/tmp/x" || cfg.LLMPriceIn != 0.15 || cfg.LLMPriceOut != 0.6 {
		t.Fatalf("cfg = %+v", cfg)
	}
	if err := cfg.bindFlags(flag.NewFlagSet("y", flag.ContinueOnError), env(map[string]string{"MNEMO_LLM_PRICE_OUT": "cheap"})); err == nil ||
		!strings.Contains(err.Error(), "MNEMO_LLM_PRICE_OUT") {
		t.Fatalf("err = %v, want the bad price named", err)
	}
	if strings.Contains(cfg.String(), "sk-fallback") {
		t.Fatal("the API key is printed")
	}
}

// TestFollowRootsConfig: the browser's follow roots default to the agents'
// session directories in the home directory; MNEMO_FOLLOW_ROOTS (a path
// list) replaces them, --follow-root replaces both and repeats, "none"
// allows no directory, and a relative root is refused.
func TestFollowRootsConfig(t *testing.T) {
	t.Setenv("HOME", "/home/ann")
	parse := func(environ map[string]string, args ...string) (Config, error) {
		cfg := DefaultConfig()
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		if err := cfg.bindFlags(fs, env(environ)); err != nil {
			return cfg, err
		}
		if err := fs.Parse(args); err != nil {
			return cfg, err
		}
		return cfg, cfg.Validate()
	}
	for _, tc := range []struct {
		environ map[string]string
		args    []string
		want    []string
	}{
		{nil, nil, []string{"/home/ann/.claude/projects", "/home/ann/.codex/sessions", "/home/ann/.hermes"}},
		{map[string]string{"MNEMO_FOLLOW_ROOTS": "/srv/agents:/data/codex"}, nil, []string{"/srv/agents", "/data/codex"}},
		{map[string]string{"MNEMO_FOLLOW_ROOTS": "/srv/agents"}, []string{"--follow-root", "/a", "--follow-root", "/b"}, []string{"/a", "/b"}},
		{nil, []string{"--follow-root", "none"}, []string{}},
		{map[string]string{"MNEMO_FOLLOW_ROOTS": "none"}, nil, []string{}},
	} {
		cfg, err := parse(tc.environ, tc.args...)
		if err != nil || cfg.FollowRoots == nil || !slices.Equal(cfg.FollowRoots, tc.want) {
			t.Errorf("%v %v: roots %q (%v), want %q", tc.environ, tc.args, cfg.FollowRoots, err, tc.want)
		}
	}
	if _, err := parse(nil, "--follow-root", "agents"); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative root: %v", err)
	}
}

func TestImportAndHeartbeatCommands(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(good, []byte(`{"id":"a1","session_id":"s1","turn":1,"role":"user","text":"From now on, always run the linter before committing.","occurred_at":"2026-06-01T10:00:00Z"}
{"id":"a2","session_id":"s1","kind":"session_end","occurred_at":"2026-06-01T10:05:00Z"}
`), 0o600)
	os.WriteFile(bad, []byte(`{"id":"b1","session_id":"s1","turn":1,"role":"user","text":"ok","occurred_at":"2026-06-01T10:00:00Z"}
{"id":"b2","session_id":"s1","turn":2,"role":"wizard","text":"x","occurred_at":"2026-06-01T10:00:00Z"}
`), 0o600)
	runCmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append(args, "--data", dir), env(nil), nil, &out, &out)
		return out.String(), err
	}
	if out, err := runCmd("import", bad, "--project", "dev", "--create"); err == nil || !strings.Contains(out, "line 2") {
		t.Fatalf("bad import: %v\n%s", err, out)
	}
	out, err := runCmd("import", good, "--project", "dev", "--create")
	if err != nil || !strings.Contains(out, "Imported 2 event(s)") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err = runCmd("import", good, "--project", "dev")
	if err != nil || !strings.Contains(out, "Imported 0 event(s)") || !strings.Contains(out, "skipped 2") {
		t.Fatalf("re-import: %v\n%s", err, out)
	}
	out, err = runCmd("heartbeat", "--once")
	if err != nil || !strings.Contains(out, "1 proposal(s)") {
		t.Fatalf("heartbeat: %v\n%s", err, out)
	}
	out, err = runCmd("audit", "verify")
	if err != nil || !strings.Contains(out, "intact") {
		t.Fatalf("audit verify: %v\n%s", err, out)
	}
	cc := filepath.Join("..", "..", "transcript", "testdata", "claude-session.jsonl")
	if out, err := runCmd("import", cc, "--project", "shop", "--create"); err == nil || !strings.Contains(out, "line 9: invalid JSON") {
		t.Fatalf("malformed transcript: %v\n%s", err, out)
	}
	if _, err := runCmd("import", cc, "--project", "shop"); err == nil || !strings.Contains(err.Error(), "project shop:") {
		t.Fatalf("a rejected file created its project: %v", err)
	}
	out, err = runCmd("import", cc, "--project", "shop", "--create", "--skip-malformed", "--format", "claude-code")
	if err != nil || !strings.Contains(out, "Imported 10 event(s) into shop") || !strings.Contains(out, "line 9: invalid JSON") {
		t.Fatalf("transcript import: %v\n%s", err, out)
	}
	// Follow a directory: one poll picks up the file, a second the appended line.
	watched := filepath.Join(dir, "watched")
	os.MkdirAll(watched, 0o755)
	codex, _ := os.ReadFile(filepath.Join("..", "..", "transcript", "testdata", "codex-rollout.jsonl"))
	codexLines := strings.SplitAfter(string(codex), "\n")
	os.WriteFile(filepath.Join(watched, "rollout-2025-10-29T00-59-38-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"), []byte(strings.Join(codexLines[:4], "")), 0o644)
	out, err = runCmd("watch", watched, "--project", "followed", "--create", "--format", "codex", "--once")
	if err != nil || !strings.Contains(out, "1 new event(s)") {
		t.Fatalf("watch: %v\n%s", err, out)
	}
	fh, _ := os.OpenFile(filepath.Join(watched, "rollout-2025-10-29T00-59-38-019a2d7a-41c4-78b1-b7cc-a45d62a89cd5.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString(codexLines[7] + codexLines[9])
	fh.Close()
	out, err = runCmd("watch", watched, "--project", "followed", "--once")
	if err != nil || !strings.Contains(out, "2 new event(s)") {
		t.Fatalf("watch after append: %v\n%s", err, out)
	}
	out, err = runCmd("watch", watched, "--project", "followed", "--once")
	if err != nil || !strings.Contains(out, "0 new event(s)") {
		t.Fatalf("watch again: %v\n%s", err, out)
	}
	// Sync the approved memory into agent files around hand-written text.
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(repo, 0o755)
	hand := "# Team notes\n\nKeep it simple.\n"
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte(hand), 0o644)
	out, err = runCmd("sync", "--project", "dev", "--to", repo)
	if err != nil || !strings.Contains(out, "AGENTS.md") || !strings.Contains(out, "lessons.md") {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(repo, "AGENTS.md"))
	if !strings.HasPrefix(string(got), hand) || !strings.Contains(string(got), "## Memory from Mnemo (project dev)") {
		t.Fatalf("AGENTS.md = %q", got)
	}
	edited := "Top line.\n" + string(got) + "Bottom line.\n"
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte(edited), 0o644)
	if _, err := runCmd("sync", "--project", "dev", "--to", repo); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(repo, "AGENTS.md")); string(again) != edited {
		t.Fatalf("second sync changed the file outside its block:\n%q\nwant\n%q", again, edited)
	}
	for _, name := range []string{"CLAUDE.md", ".claude/rules/preferences.md", "MEMORY.md", "USER.md"} {
		if _, err := os.Stat(filepath.Join(repo, name)); err != nil {
			t.Errorf("sync did not write %s: %v", name, err)
		}
	}
	exported := filepath.Join(dir, "dev-export.jsonl")
	if out, err = runCmd("export", "--project", "dev", "--out", exported); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	other := t.TempDir()
	var restore bytes.Buffer
	if err := run(ctx, []string{"import", exported, "--export", "--data", other}, env(nil), nil, &restore, &restore); err != nil ||
		!strings.Contains(restore.String(), "Restored dev") || !strings.Contains(restore.String(), "1 rules") {
		t.Fatalf("restore: %v\n%s", err, restore.String())
	}
	if out, err = runCmd("export", "--project", "dev", "--format", "hermes", "--out", dir); err != nil || !strings.Contains(out, "MEMORY.md") {
		t.Fatalf("hermes export: %v\n%s", err, out)
	}
	if out, err = runCmd("user", "add", "rita", "--reviewer", "dev"); err != nil || !strings.Contains(out, "Password (shown once)") {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	if out, err = runCmd("user", "add", "rita"); err == nil {
		t.Fatalf("duplicate user add succeeded:\n%s", out)
	}
}

func TestEvalCommands(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	runCmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append(args, "--data", dir), env(nil), nil, &out, &out)
		return out.String(), err
	}
	out, err := runCmd("eval", "list")
	if err != nil || !strings.Contains(out, "travel-recall") || !strings.Contains(out, "builtin") {
		t.Fatalf("eval list: %v\n%s", err, out)
	}
	out, err = runCmd("eval", "run", "travel-recall")
	if err != nil {
		t.Fatalf("eval run travel-recall: %v\n%s", err, out)
	}
	// A suite expecting the expense rule in travel recall fails, says why,
	// and the command exits non-zero (teams gate releases on it).
	body, _ := os.ReadFile("../../seed/suites/travel-recall.yaml")
	bad := strings.Replace(string(body), "name: travel-recall", "name: travel-recall-leak", 1)
	bad = strings.Replace(bad, `    exclude:
      - {regex: "报销|发票"}`, `    exclude: []
  - id: expects-the-expense-rule
    kind: recall
    task: 带五岁的女儿去上海玩两天，她一直想去迪士尼。最终路线必须可执行。
    include:
      - {regex: "200元以下"}`, 1)
	file := filepath.Join(dir, "leak.yaml")
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = runCmd("eval", "run", file)
	if err == nil || !strings.Contains(out, "expects-the-expense-rule") {
		t.Fatalf("a failing suite exited %v:\n%s", err, out)
	}
}
