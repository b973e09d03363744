package transcript_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/readability"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/transcript"
)

// The session files of testdata/sessions (see its README): what each one
// yields on import, and what a heartbeat over all of them proposes.

const (
	sessionsDir  = "testdata/sessions"
	ccColours    = "claude-code-colours.jsonl"
	ccResumed    = "claude-code-resumed.jsonl"
	ccBroken     = "claude-code-broken.jsonl"
	codexRollout = "rollout-2025-11-14T08-00-00-019a8f3e-2b7c-7d41-a9e6-5c4b3a2f1e0d.jsonl"
)

// hermesState builds the synthetic state.db of hermes-state.sql.
func hermesState(tb testing.TB) string {
	tb.Helper()
	script, err := os.ReadFile(filepath.Join(sessionsDir, "hermes-state.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		tb.Fatal(err)
	}
	return path
}

func parseSessionFile(tb testing.TB, path string, opts transcript.Options) (*transcript.Report, []*governance.Event, error) {
	tb.Helper()
	var events []*governance.Event
	opts.Now = time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	rep, err := transcript.ParseFile(context.Background(), path, opts, func(e *governance.Event) error {
		events = append(events, e)
		return nil
	})
	return rep, events, err
}

func TestSessionFixtures(t *testing.T) {
	type check struct {
		file    string
		format  transcript.Format
		events  int // events handed on
		cleaned int // of them, with terminal codes or control characters read
		texts   []string
		status  map[string]string // event text part → status
	}
	for _, tc := range []check{
		{file: ccColours, format: transcript.FormatClaudeCode, events: 23, cleaned: 3,
			texts: []string{
				"FAIL  src/cart.test.js",
				"Cannot find module 'dotenv' from 'src/config.js'",
				"Tests:       1 failed, 12 passed, 13 total",
				"PASS  src/cart.test.js",
				"added 1 package, and audited 412 packages in 2s",
				"never commit without signing",
				"Find every file that reads process.env without loading dotenv.",
			},
			status: map[string]string{
				"Cannot find module":                  governance.StatusFailed,
				"doesn't want to proceed":             governance.StatusRejected,
				"PASS  src/cart.test.js":              governance.StatusPassed,
				"<tool_use_error>File does not exist": governance.StatusFailed,
			}},
		{file: ccResumed, format: transcript.FormatClaudeCode, events: 12, cleaned: 3,
			texts:  []string{"Missing return type on function", "run the linter before every push"},
			status: map[string]string{"Missing return type": governance.StatusFailed, "(no output)": governance.StatusPassed}},
		{file: codexRollout, format: transcript.FormatCodex, events: 22, cleaned: 3,
			texts: []string{
				"pq: relation \"orders\" does not exist",
				"✓ 3 migrations applied",
				"never push directly to main",
			},
			status: map[string]string{
				"pq: relation":           governance.StatusFailed,
				"3 migrations applied":   governance.StatusPassed,
				"example.com/api/orders": governance.StatusFailed,
				"aborted":                governance.StatusInterrupted,
			}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rep, events, err := parseSessionFile(t, filepath.Join(sessionsDir, tc.file), transcript.Options{Subject: "dev"})
			if err != nil {
				t.Fatalf("refused: %v (%+v)", err, rep.Malformed)
			}
			if rep.Format != tc.format || rep.Events != tc.events || rep.Cleaned != tc.cleaned || rep.MalformedCount != 0 {
				t.Errorf("report %+v, want %s with %d events, %d cleaned", rep, tc.format, tc.events, tc.cleaned)
			}
			all := ""
			for _, e := range events {
				if p := governance.CheckText(e.Text); p != "" || strings.ContainsAny(e.Text, "\x1b\b") {
					t.Errorf("event %s: text %q: %s", e.ID, e.Text, p)
				}
				all += e.Text + "\n"
			}
			for _, want := range tc.texts {
				if !strings.Contains(all, want) {
					t.Errorf("no event holds %q", want)
				}
			}
			for part, want := range tc.status {
				i := slices.IndexFunc(events, func(e *governance.Event) bool { return e.Role == governance.RoleTool && strings.Contains(e.Text, part) })
				if i < 0 || events[i].Status != want {
					t.Errorf("tool event with %q (at %d), want status %s", part, i, want)
				}
			}
		})
	}
	t.Run("subagent and end", func(t *testing.T) {
		_, events, _ := parseSessionFile(t, filepath.Join(sessionsDir, ccColours), transcript.Options{})
		sessions := map[string]bool{}
		ended := false
		for _, e := range events {
			sessions[e.SessionID] = true
			if strings.HasPrefix(e.Text, "Find every file that reads") && e.Role != governance.RoleAssistant {
				t.Errorf("the parent agent's prompt to its subagent is the user's: %+v", e)
			}
			ended = ended || e.Kind == governance.KindSessionEnd
		}
		if len(sessions) != 1 || !ended {
			t.Errorf("sessions %v, ended %v: want one session, ended by /exit", sessions, ended)
		}
	})
	t.Run("hermes", func(t *testing.T) {
		rep, events, err := parseSessionFile(t, hermesState(t), transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Format != transcript.FormatHermes || rep.Cleaned != 3 || rep.MalformedCount != 0 {
			t.Errorf("report %+v, want hermes with 3 cleaned", rep)
		}
		i := slices.IndexFunc(events, func(e *governance.Event) bool { return e.Status == governance.StatusFailed })
		if i < 0 || events[i].Text != "Deploying web to staging\nError: environment variable DATABASE_URL is not set" {
			t.Errorf("failed deploy (at %d) not rendered", i)
		}
		j := slices.IndexFunc(events, func(e *governance.Event) bool { return strings.Contains(e.Text, "uploading") })
		if j < 0 || events[j].Text != "uploading 100%\ndeployed web to staging" {
			t.Errorf("progress line (at %d) not rendered", j)
		}
	})
	// Broken JSON lines are still refused by default, naming each line;
	// terminal codes never are.
	t.Run("broken lines refused", func(t *testing.T) {
		_, _, err := parseSessionFile(t, filepath.Join(sessionsDir, ccBroken), transcript.Options{})
		var ie *governance.ImportError
		if !errors.As(err, &ie) || ie.Total != 2 || ie.Lines[0].Line != 3 || ie.Lines[1].Line != 5 {
			t.Fatalf("err %v, want lines 3 and 5 refused", err)
		}
		rep, _, err := parseSessionFile(t, filepath.Join(sessionsDir, ccBroken), transcript.Options{SkipMalformed: true})
		if err != nil || rep.Events == 0 || rep.MalformedCount != 2 {
			t.Errorf("skipping: %+v, %v", rep, err)
		}
	})
}

// Every session file imported into one project and consolidated by a real
// heartbeat: the person's standing instructions are proposed, and the
// lessons that name their change; nothing unreadable is, nor a lesson from
// a rejected call, a wrong path or a re-run.
func TestSessionFixturesBeat(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	p := &governance.Project{Slug: "shop", Name: "shop"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	imported := map[string]*transcript.Result{}
	for _, f := range []string{ccColours, ccResumed, codexRollout} {
		res, err := transcript.ImportFile(ctx, s, "test", p.ID, filepath.Join(sessionsDir, f), transcript.Options{Subject: "dev"})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		imported[f] = res
	}
	if res, err := transcript.ImportFile(ctx, s, "test", p.ID, hermesState(t), transcript.Options{}); err != nil || res.Inserted == 0 {
		t.Fatalf("hermes: %+v, %v", res, err)
	}
	// The resumed file repeats the opening of the first session: those
	// events are already there.
	if r := imported[ccResumed]; r.Skipped != 5 || r.Inserted != 7 {
		t.Errorf("resumed file: %+v, want the 5 events it repeats skipped and its 7 new ones inserted", r)
	}
	now := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	hb := &consolidate.Heartbeat{Store: s, Consolidator: heuristic.NewConsolidator(nil), Idle: time.Hour, Now: func() time.Time { return now }}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Statuses: []governance.RuleStatus{governance.RuleProposed}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range rules {
		texts = append(texts, r.Text)
		if p := readability.Check(r.Text); p != readability.OK {
			t.Errorf("unreadable proposal %q: %s", r.Text, p)
		}
		for _, junk := range []string{"/home/", "{", "[Bash]", "fix the cause", "src/mailr.js", "doesn't want to proceed", "correct path"} {
			if strings.Contains(r.Text, junk) {
				t.Errorf("junk proposal %q (%s)", r.Text, junk)
			}
		}
	}
	proposed := func(kind governance.MemoryType, parts ...string) {
		t.Helper()
		for _, r := range rules {
			if r.Kind != kind {
				continue
			}
			if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(strings.ToLower(r.Text), strings.ToLower(p)) }) {
				return
			}
		}
		t.Errorf("no %s proposal with %q among %q", kind, parts, texts)
	}
	proposed(governance.TypePreference, "never commit without signing")
	proposed(governance.TypePreference, "run the linter before every push")
	proposed(governance.TypePreference, "never push directly to main")
	proposed(governance.TypePreference, "部署前都要先跑数据库迁移检查")
	proposed(governance.TypeLesson, "go test", "does not exist", "apply the pending migrations")
	proposed(governance.TypeLesson, "npm test", "cannot find module", "add dotenv")
	proposed(governance.TypeLesson, "npx eslint", "missing return type", "add explicit return types")
	proposed(governance.TypeLesson, "deploy.sh", "DATABASE_URL is not set", "load the staging env file")
	lessons := 0
	for _, r := range rules {
		if r.Kind == governance.TypeLesson {
			lessons++
		}
	}
	if lessons != 4 {
		t.Errorf("%d lessons proposed, want the 4 above: %q", lessons, texts)
	}
}
