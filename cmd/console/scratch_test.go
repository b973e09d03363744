package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// A project whose slug looks like an eval's is a normal project: the
// heartbeat consolidates it and the scratch cleanup refuses to delete it.
// Only the flag set by the eval runner makes a project scratch.
func TestEvalLikeSlugIsANormalProject(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	file := filepath.Join(dir, "team.jsonl")
	os.WriteFile(file, []byte(`{"id":"a1","session_id":"s1","turn":1,"role":"user","text":"From now on, always run the linter before committing.","occurred_at":"2026-06-01T10:00:00Z"}
{"id":"a2","session_id":"s1","kind":"session_end","occurred_at":"2026-06-01T10:05:00Z"}
`), 0o600)
	runCmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append(args, "--data", dir), env(nil), nil, &out, &out)
		return out.String(), err
	}
	if out, err := runCmd("import", file, "--project", "eval-team", "--create"); err != nil || !strings.Contains(out, "Imported 2 event(s)") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := runCmd("heartbeat", "--once"); err != nil || !strings.Contains(out, "1 proposal(s)") {
		t.Fatalf("heartbeat did not consolidate eval-team: %v\n%s", err, out)
	}
	for _, slug := range []string{"Eval Team", "-team", "team_1", strings.Repeat("t", governance.MaxSlugLen+1)} {
		out, err := runCmd("import", file, "--project", slug, "--create")
		if err == nil || !strings.Contains(out+err.Error(), "slug") {
			t.Errorf("import --project %q: %v\n%s", slug, err, out)
		}
	}

	st, err := store.Open(ctx, filepath.Join(dir, "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.FindProjectBySlug(ctx, "eval-team")
	if err != nil {
		t.Fatal(err)
	}
	if p.Scratch {
		t.Fatal("an imported project is flagged as scratch")
	}
	rules, _, err := st.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) == 0 {
		t.Fatalf("rules of eval-team = %v, %v", rules, err)
	}
	if err := st.DeleteScratchProject(ctx, p.ID); governance.ErrorCode(err) != governance.EFORBIDDEN {
		t.Fatalf("scratch cleanup of eval-team: err = %v, want EFORBIDDEN", err)
	}
	if err := st.DeleteScratchProjects(ctx, "eval-"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.FindProjectBySlug(ctx, "eval-team"); err != nil {
		t.Fatalf("eval-team was deleted by the scratch cleanup: %v", err)
	}
	projects, err := st.FindProjects(ctx)
	if err != nil || len(projects) != 1 {
		t.Fatalf("projects = %v, %v (a rejected slug created a project?)", projects, err)
	}
}
