package transcript_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/transcript"
)

// TestReadSkillDir: a Claude Code folder, a Hermes category folder and a
// repository's .claude/skills are found; a link is dropped, never read.
func TestReadSkillDir(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	write("deploy/SKILL.md", "---\nname: deploy\ndescription: d\n---\n")
	write("deploy/scripts/run.sh", "#!/bin/sh\n")
	write("planning/route-check/SKILL.md", "---\nname: route-check\ndescription: d\n---\n")
	write(".claude/skills/lint/SKILL.md", "---\nname: lint\ndescription: d\n---\n")
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("password"), 0o600)
	if err := os.Symlink(secret, filepath.Join(root, "deploy", "leak")); err != nil {
		t.Fatal(err)
	}
	folders, err := transcript.ReadSkillDir(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]governance.SkillFolder{}
	for _, f := range folders {
		got[f.Name] = f
	}
	if len(folders) != 3 || got["route-check"].Category != "planning" || got["lint"].Category != "" || got["deploy"].Category != "" {
		t.Fatalf("folders = %+v", folders)
	}
	d := got["deploy"]
	if len(d.Files) != 2 || len(d.Dropped) != 1 || d.Dropped[0].Path != "leak" {
		t.Fatalf("deploy = %+v", d)
	}
	for _, f := range d.Files {
		if bytes.Contains(f.Content, []byte("password")) {
			t.Fatal("a link was followed")
		}
	}
}

// TestReadSkillArchive: a tar.gz's entries that climb out of their folder
// or the archive are dropped and reported, never unpacked.
func TestReadSkillArchive(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range map[string]string{
		"skills/deploy/SKILL.md":            "---\nname: deploy\ndescription: d\n---\n",
		"skills/deploy/../../../etc/cron":   "* * * * * evil",
		"/etc/passwd":                       "root",
		"skills/deploy/references/notes.md": "# notes",
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg})
		tw.Write([]byte(content))
	}
	tw.WriteHeader(&tar.Header{Name: "skills/deploy/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/shadow"})
	tw.Close()
	gz.Close()
	folders, loose, err := transcript.ReadSkillArchive("skills.tar.gz", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(folders) != 1 || len(folders[0].Files) != 2 || len(folders[0].Dropped) != 2 || len(loose) != 1 || !loose[0].Traversal {
		t.Fatalf("folders = %+v, loose = %+v", folders, loose)
	}
	if _, _, err := transcript.ReadSkillArchive("x", []byte("plain text")); err == nil {
		t.Fatal("a non-archive was read")
	}
}

// TestFollowFindsSkills: a followed directory's skill folders are handed
// to the Skills hook on each poll, beside the session files it ingests.
func TestFollowFindsSkills(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &governance.Project{Slug: "dev", Name: "dev"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "skills", "deploy"), 0o755)
	os.WriteFile(filepath.Join(dir, "skills", "deploy", "SKILL.md"), []byte("---\nname: deploy\ndescription: d\n---\n"), 0o644)
	src := &store.Source{ProjectID: p.ID, Dir: dir, Format: "auto"}
	if err := s.EnsureSource(ctx, src); err != nil {
		t.Fatal(err)
	}
	var seen []string
	f := &transcript.Follower{Store: s, SourceID: src.ID, ProjectID: p.ID, Dir: dir, Options: transcript.Options{Project: "dev"},
		Skills: func(_ context.Context, dirs []string) error { seen = append(seen, dirs...); return nil }}
	if _, err := f.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{filepath.Join(dir, "skills", "deploy")}) {
		t.Fatalf("skill folders = %v", seen)
	}
	folder, err := transcript.ReadSkillFolder(dir, seen[0])
	if err != nil || folder.Name != "deploy" || folder.Where != "skills/deploy" || folder.Category != "" {
		t.Fatalf("folder = %+v, %v", folder, err)
	}
}
