package transcript

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Writing active skills back as folders the agents read. Each folder the
// console writes holds the version's files byte for byte plus one marker
// file (SkillMarkerFile) naming the project, the skill, the version and
// the hash of every file written. A folder without the marker — a skill
// the console does not manage — is never touched; nor is a managed one
// whose files were changed since they were written (import it to review
// the change). A managed folder whose skill is no longer active is
// removed, its listed files only.

// SkillMarkerFile is the marker of a folder the console manages.
const SkillMarkerFile = ".mnemo-skill.json"

// SkillLayout is how an agent's skills directory is laid out.
type SkillLayout string

const (
	// LayoutClaude: <dir>/<name>/SKILL.md (Claude Code, and Codex).
	LayoutClaude SkillLayout = "claude"
	// LayoutCodex is the same layout, for ~/.codex/skills.
	LayoutCodex SkillLayout = "codex"
	// LayoutHermes: <dir>/[category/]<name>/SKILL.md.
	LayoutHermes SkillLayout = "hermes"
)

// SkillLayouts lists the layouts.
var SkillLayouts = []SkillLayout{LayoutClaude, LayoutCodex, LayoutHermes}

// ParseSkillLayout reads a layout's name ("" is claude).
func ParseSkillLayout(s string) (SkillLayout, error) {
	if s == "" {
		return LayoutClaude, nil
	}
	if l := SkillLayout(strings.ToLower(s)); slices.Contains(SkillLayouts, l) {
		return l, nil
	}
	return "", fmt.Errorf("unknown skills layout %q", s)
}

// DefaultSkillsDir is where a repository's agents read skills, under its root.
func (l SkillLayout) DefaultSkillsDir() string {
	switch l {
	case LayoutCodex:
		return filepath.Join(".codex", "skills")
	case LayoutHermes:
		return filepath.Join(".hermes", "skills")
	}
	return filepath.Join(".claude", "skills")
}

// ExportedSkill is one active skill to write.
type ExportedSkill struct {
	Name     string
	Category string
	Version  int
	Content  governance.SkillContent
}

// folder is the skill's folder under a skills directory of layout l.
func (s ExportedSkill) folder(l SkillLayout) string {
	if l == LayoutHermes && s.Category != "" && governance.SkillPathOK(s.Category) && !strings.Contains(s.Category, "/") {
		return s.Category + "/" + s.Name
	}
	return s.Name
}

type skillMarker struct {
	ManagedBy string            `json:"managed_by"`
	Project   string            `json:"project"`
	Name      string            `json:"name"`
	Version   int               `json:"version"`
	Files     map[string]string `json:"files"`
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func markerFor(project string, s ExportedSkill) skillMarker {
	m := skillMarker{ManagedBy: "mnemo", Project: project, Name: s.Name, Version: s.Version, Files: map[string]string{}}
	for _, f := range s.Content.AllFiles() {
		m.Files[f.Path] = hashBytes(f.Content)
	}
	return m
}

// SkillSyncReport says what WriteSkills did, folder by folder (paths
// relative to the skills directory).
type SkillSyncReport struct {
	Written   []string
	Unchanged []string
	Removed   []string
	// Skipped maps a folder left alone to why.
	Skipped map[string]governance.Text
}

// WriteSkills writes a project's active skills into dir (a skills
// directory of layout l), creating it if needed.
func WriteSkills(dir string, l SkillLayout, project string, skills []ExportedSkill) (*SkillSyncReport, error) {
	r := &SkillSyncReport{Skipped: map[string]governance.Text{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, s := range skills {
		rel := s.folder(l)
		keep[rel] = true
		if err := writeSkill(dir, rel, project, s, r); err != nil {
			return r, err
		}
	}
	// Managed folders of the project whose skill is no longer active.
	markers, err := findMarkers(dir)
	if err != nil {
		return r, err
	}
	for rel, m := range markers {
		if keep[rel] || m.Project != project {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(rel))
		if changed(full, m) {
			r.Skipped[rel] = governance.Say("Its files changed since they were written; import the folder to review the change.")
			continue
		}
		for f := range m.Files {
			if err := os.Remove(filepath.Join(full, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return r, err
			}
		}
		if err := os.Remove(filepath.Join(full, SkillMarkerFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return r, err
		}
		removeEmptyDirs(full, dir)
		r.Removed = append(r.Removed, rel)
	}
	sort.Strings(r.Removed)
	return r, nil
}

func writeSkill(dir, rel, project string, s ExportedSkill, r *SkillSyncReport) error {
	full := filepath.Join(dir, filepath.FromSlash(rel))
	want := markerFor(project, s)
	if st, err := os.Lstat(full); err == nil {
		if !st.IsDir() {
			r.Skipped[rel] = governance.Say("Something that is not a folder has its name.")
			return nil
		}
		old, ok := readMarker(full)
		switch {
		case !ok:
			r.Skipped[rel] = governance.Say("A skill the console does not manage has its name.")
			return nil
		case old.Project != project:
			r.Skipped[rel] = governance.Say("Another project's skill has its name.")
			return nil
		case changed(full, old):
			r.Skipped[rel] = governance.Say("Its files changed since they were written; import the folder to review the change.")
			return nil
		case old.Version == want.Version && maps(old.Files, want.Files):
			r.Unchanged = append(r.Unchanged, rel)
			return nil
		}
		for f := range old.Files {
			if _, still := want.Files[f]; !still {
				if err := os.Remove(filepath.Join(full, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, f := range s.Content.AllFiles() {
		mode := os.FileMode(0o644)
		if governance.IsScriptFile(f) && f.Path != governance.SkillFileName {
			mode = 0o755
		}
		if err := writeFileAtomic(filepath.Join(full, filepath.FromSlash(f.Path)), f.Content, mode); err != nil {
			return err
		}
	}
	b, _ := json.MarshalIndent(want, "", "  ")
	if err := writeFileAtomic(filepath.Join(full, SkillMarkerFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	r.Written = append(r.Written, rel)
	return nil
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func readMarker(dir string) (skillMarker, bool) {
	b, err := os.ReadFile(filepath.Join(dir, SkillMarkerFile))
	if err != nil {
		return skillMarker{}, false
	}
	var m skillMarker
	if json.Unmarshal(b, &m) != nil || m.ManagedBy != "mnemo" {
		return skillMarker{}, false
	}
	return m, true
}

// changed reports whether a managed folder's files differ from what the
// marker says was written (a file edited, removed or added).
func changed(dir string, m skillMarker) bool {
	for f, sum := range m.Files {
		if !governance.SkillPathOK(f) {
			return true
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil || hashBytes(b) != sum {
			return true
		}
	}
	extra := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel != SkillMarkerFile {
			if _, ok := m.Files[rel]; !ok {
				extra = true
			}
		}
		return nil
	})
	return extra
}

// findMarkers finds the managed folders under a skills directory (two
// levels: Hermes categories), by their path relative to it.
func findMarkers(dir string) (map[string]skillMarker, error) {
	out := map[string]skillMarker{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel != "." && strings.Count(rel, "/") >= 2 {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == SkillMarkerFile {
			if m, ok := readMarker(filepath.Dir(p)); ok {
				out[path.Dir(rel)] = m
			}
		}
		return nil
	})
	return out, err
}

func removeEmptyDirs(dir, stop string) {
	for dir != stop && strings.HasPrefix(dir, stop) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// writeFileAtomic writes a file through a rename, so a reader never sees
// half of it.
func writeFileAtomic(p string, content []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".mnemo-sync-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// SkillArchive is a zip of skills laid out as layout l under prefix (the
// skills directory's path in a repository, e.g. ".claude/skills"), each
// folder with its marker, as the export page offers it.
func SkillArchive(l SkillLayout, prefix, project string, skills []ExportedSkill) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, content []byte, mode os.FileMode) error {
		h := &zip.FileHeader{Name: strings.TrimPrefix(path.Join(prefix, name), "/"), Method: zip.Deflate}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = w.Write(content)
		return err
	}
	for _, s := range skills {
		rel := s.folder(l)
		for _, f := range s.Content.AllFiles() {
			mode := os.FileMode(0o644)
			if governance.IsScriptFile(f) && f.Path != governance.SkillFileName {
				mode = 0o755
			}
			if err := add(rel+"/"+f.Path, f.Content, mode); err != nil {
				return nil, err
			}
		}
		b, _ := json.MarshalIndent(markerFor(project, s), "", "  ")
		if err := add(rel+"/"+SkillMarkerFile, append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
