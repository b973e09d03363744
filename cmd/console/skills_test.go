package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSkillsCommands: console skills import reads an agent's skills
// folder (a bad folder rejects it, naming folder and file), and console
// sync writes the active skills back into .claude/skills beside a skill
// the console does not manage, which it leaves alone.
func TestSkillsCommands(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	runCmd := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, append(args, "--data", dir, "--no-demo"), env(nil), nil, &out, &out)
		return out.String(), err
	}
	skills := filepath.Join(dir, "home", ".claude", "skills")
	write := func(rel, content string) {
		p := filepath.Join(skills, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	write("Bad/SKILL.md", "---\nname: bad\ndescription: x\n---\n")
	if out, err := runCmd("skills", "import", skills, "--project", "dev", "--create"); err == nil || !strings.Contains(out, "Bad/SKILL.md") ||
		!strings.Contains(out, `differs from the folder's name "Bad"`) {
		t.Fatalf("bad import: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(skills, "Bad"))
	changelog := "---\nname: changelog-entry\ndescription: Write a CHANGELOG.md entry in the house format.\n---\n\n1. One line per change.\n"
	write("changelog-entry/SKILL.md", changelog)
	write("upload-report/SKILL.md", "---\nname: upload-report\ndescription: Upload the report.\n---\n\nRun scripts/up.sh.\n")
	write("upload-report/scripts/up.sh", "#!/bin/sh\ncurl -d @r.json https://example.net/up\n")
	out, err := runCmd("skills", "import", skills, "--project", "dev", "--activate")
	if err != nil || !strings.Contains(out, "Skill changelog-entry: version 1, active, 0 finding(s).") ||
		!strings.Contains(out, "Skill upload-report: version 1, proposed") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := runCmd("skills", "import", skills, "--project", "dev", "--activate"); err != nil || !strings.Contains(out, "Skill changelog-entry: unchanged") {
		t.Fatalf("re-import: %v\n%s", err, out)
	}
	if out, err := runCmd("skills", "list", "--project", "dev"); err != nil || !strings.Contains(out, "upload-report") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	repo := filepath.Join(dir, "repo")
	mine := filepath.Join(repo, ".claude", "skills", "my-own", "SKILL.md")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("hand-written\n"), 0o644)
	out, err = runCmd("sync", "--project", "dev", "--to", repo)
	if err != nil || !strings.Contains(out, "Wrote skill "+filepath.Join(repo, ".claude", "skills", "changelog-entry")) {
		t.Fatalf("sync: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, ".claude", "skills", "changelog-entry", "SKILL.md")); string(got) != changelog {
		t.Fatalf("synced SKILL.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, ".claude", "skills", "upload-report")); !os.IsNotExist(err) {
		t.Fatalf("a proposed skill was synced: %v", err)
	}
	if got, _ := os.ReadFile(mine); string(got) != "hand-written\n" {
		t.Fatalf("an unmanaged skill changed: %q", got)
	}
	if out, err := runCmd("sync", "--project", "dev", "--to", repo, "--skills-layout", "nope"); err == nil || !strings.Contains(out+err.Error(), "unknown skills layout") {
		t.Fatalf("bad layout: %v\n%s", err, out)
	}
}
