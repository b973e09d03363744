package app_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/transcript"
)

// copyTree copies the files of src under dst, byte for byte, keeping the
// executable bit.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// treeFiles maps every file under dir (slash paths) to its content.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSkillRoundTrip: an agent's skills folder of real-format skills
// imports, passes review (the clean ones at once, the others once a
// reviewer confirms their findings) and syncs back byte for byte, the
// console's marker file and masked credentials aside; a folder it does not manage is never
// touched, a managed one edited since is left alone, and a skill that is
// no longer active is taken back.
func TestSkillRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		layout        transcript.SkillLayout
	}{
		{"ClaudeCode", "coding-assistant", transcript.LayoutClaude},
		{"Hermes", "travel-agent", transcript.LayoutHermes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFixture(t)
			ctx := context.Background()
			src := filepath.Join(t.TempDir(), "skills")
			copyTree(t, filepath.Join("..", "seed", "skills", tc.fixture), src)
			res, err := f.App.Skills.ImportDir(ctx, f.Actors[Admin], app.ProjectSlug("travel-agent"), src, true, false)
			if err != nil {
				t.Fatal(err)
			}
			rita := f.Actors[TravelReviewer]
			for _, s := range res.Saved {
				if s.Skill.Status == governance.SkillActive {
					continue
				}
				if res.Findings[s.Skill.Name] == 0 {
					t.Errorf("%s waits without findings", s.Skill.Name)
				}
				if _, err := f.App.Skills.Decide(ctx, rita, app.ProjectSlug("travel-agent"), s.Skill.Name,
					app.SkillDecisionInput{Action: "approve", Acknowledged: true, Reason: "read the script"}); err != nil {
					t.Fatal(err)
				}
			}
			exported, err := f.App.Skills.Export(ctx, rita, app.ProjectSlug("travel-agent"))
			if err != nil || len(exported) != len(res.Saved) {
				t.Fatalf("exported %d of %d: %v", len(exported), len(res.Saved), err)
			}
			out := filepath.Join(t.TempDir(), "out")
			rep, err := transcript.WriteSkills(out, tc.layout, "travel-agent", exported)
			if err != nil || len(rep.Written) != len(exported) || len(rep.Skipped) != 0 {
				t.Fatalf("sync = %+v, %v", rep, err)
			}
			want, got := treeFiles(t, src), treeFiles(t, out)
			for name, content := range want {
				// A credential is never stored: it comes back masked.
				if (governance.SkillFile{Content: content}).Text() {
					content = []byte(gate.Scan(string(content)).Text)
				}
				if !bytes.Equal(got[name], content) {
					t.Errorf("%s differs after the round trip:\n%q\nwant\n%q", name, got[name], content)
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok && filepath.Base(name) != transcript.SkillMarkerFile {
					t.Errorf("sync wrote %s, which the fixture does not have", name)
				}
			}
			if st, err := os.Stat(filepath.Join(out, exported[0].Name)); tc.layout == transcript.LayoutClaude && (err != nil || !st.IsDir()) {
				t.Errorf("no folder %s: %v", exported[0].Name, err)
			}
			// A second sync changes nothing.
			if rep, err := transcript.WriteSkills(out, tc.layout, "travel-agent", exported); err != nil || len(rep.Unchanged) != len(exported) {
				t.Fatalf("second sync = %+v, %v", rep, err)
			}
		})
	}
}

// TestSkillSyncLeavesOthersAlone: an unmanaged folder of the same name and
// a managed folder edited by hand are never overwritten; an archived
// skill's managed folder is taken back, its files only.
func TestSkillSyncLeavesOthersAlone(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	importSkills(t, f, "travel-agent", true,
		skillFolder("plan-museum-day", "Plan a museum day.", "\n1. Pick one.\n"),
		skillFolder("book-train", "Book train tickets.", "\n1. Compare.\n"),
		skillFolder("pack-bags", "Pack the bags.", "\n1. List.\n"))
	out := t.TempDir()
	mine := filepath.Join(out, "plan-museum-day", "SKILL.md")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("my own skill\n"), 0o644)
	exported, _ := f.App.Skills.Export(ctx, f.Actors[Admin], app.ProjectSlug("travel-agent"))
	rep, err := transcript.WriteSkills(out, transcript.LayoutClaude, "travel-agent", exported)
	if err != nil || !slices.Equal(rep.Written, []string{"book-train", "pack-bags"}) || rep.Skipped["plan-museum-day"].IsZero() {
		t.Fatalf("sync = %+v, %v", rep, err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my own skill\n" {
		t.Fatalf("an unmanaged skill was overwritten: %q", b)
	}
	edited := filepath.Join(out, "book-train", "SKILL.md")
	b, _ := os.ReadFile(edited)
	os.WriteFile(edited, append(b, "4. Local note.\n"...), 0o644)
	os.WriteFile(filepath.Join(out, "pack-bags", "notes.txt"), []byte("keep me"), 0o644)
	for _, name := range []string{"book-train", "pack-bags"} {
		if _, err := f.App.Skills.Decide(ctx, f.Actors[TravelReviewer], app.ProjectSlug("travel-agent"), name, app.SkillDecisionInput{Action: "archive"}); err != nil {
			t.Fatal(err)
		}
	}
	exported, _ = f.App.Skills.Export(ctx, f.Actors[Admin], app.ProjectSlug("travel-agent"))
	rep, err = transcript.WriteSkills(out, transcript.LayoutClaude, "travel-agent", exported)
	if err != nil || len(rep.Removed) != 0 || rep.Skipped["book-train"].IsZero() || rep.Skipped["pack-bags"].IsZero() {
		t.Fatalf("sync after archiving = %+v, %v", rep, err)
	}
	if b, _ := os.ReadFile(edited); !strings.Contains(string(b), "Local note") {
		t.Fatal("a local edit was lost")
	}
	os.Remove(filepath.Join(out, "pack-bags", "notes.txt"))
	rep, _ = transcript.WriteSkills(out, transcript.LayoutClaude, "travel-agent", exported)
	if !slices.Equal(rep.Removed, []string{"pack-bags"}) {
		t.Fatalf("removed = %v", rep.Removed)
	}
	if _, err := os.Stat(filepath.Join(out, "pack-bags")); !os.IsNotExist(err) {
		t.Fatalf("archived skill's folder still there: %v", err)
	}
}
