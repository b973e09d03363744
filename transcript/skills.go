package transcript

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Skill folders in and out. The agents keep skills as folders holding a
// SKILL.md: Claude Code in ~/.claude/skills/<name>/ and .claude/skills/ of
// a repository, Codex in ~/.codex/skills/<name>/, Hermes in
// ~/.hermes/skills/[category/]<name>/. ReadSkillDir and ReadSkillArchive
// find the folders of a directory or of an uploaded zip or tar.gz without
// following links or trusting entry names (an entry that climbs out of its
// folder is dropped and reported); WriteSkills (skillsync.go) writes
// active skills back.

// skillDepth is how deep under the imported directory a SKILL.md is looked
// for: <root>/SKILL.md, <root>/<name>/SKILL.md, <root>/<category>/<name>/SKILL.md,
// and a repository's <root>/.claude/skills/<name>/SKILL.md.
const skillDepth = 4

// MaxSkillArchiveBytes bounds what an archive may unpack to.
const MaxSkillArchiveBytes = 64 << 20

// skipSkillEntry reports entries a folder's contents leave out: the
// console's own marker and version-control or desktop litter.
func skipSkillEntry(name string) bool {
	return name == SkillMarkerFile || name == ".git" || name == ".DS_Store" || name == "__MACOSX" || name == "node_modules" || name == ".venv"
}

// ReadSkillDir finds the skill folders under root (root itself, its
// subdirectories, the Hermes category folders below them, a repository's
// .claude/skills) and reads each folder's files. Links are not followed: a
// link is dropped and reported; files are read up to just past the
// format's bounds, so an oversized one is reported, never loaded whole.
func ReadSkillDir(root string) ([]governance.SkillFolder, error) {
	root = filepath.Clean(root)
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	return ReadSkillFS(os.DirFS(root), ".", filepath.Base(root))
}

// ReadSkillFolder reads one skill folder dir found under root (a followed
// directory); Where is its path under root.
func ReadSkillFolder(root, dir string) (governance.SkillFolder, error) {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(dir))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return governance.SkillFolder{}, fmt.Errorf("%s is not under %s", dir, root)
	}
	return readSkillFolder(os.DirFS(root), ".", filepath.ToSlash(rel), filepath.Base(root))
}

// ReadSkillFS is ReadSkillDir over a file system (the demo's embedded
// skills), from its directory root; name is root's own name.
func ReadSkillFS(fsys fs.FS, root, name string) ([]governance.SkillFolder, error) {
	var dirs []string
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relSlash(root, p)
		depth := 0
		if rel != "." {
			depth = strings.Count(rel, "/") + 1
		}
		if d.IsDir() {
			if rel != "." && (skipSkillEntry(d.Name()) || depth >= skillDepth) {
				return fs.SkipDir
			}
			for _, s := range dirs {
				if s == "." || strings.HasPrefix(rel, s+"/") {
					return fs.SkipDir // inside a skill already
				}
			}
			return nil
		}
		if d.Name() == governance.SkillFileName && d.Type().IsRegular() {
			dirs = append(dirs, path.Dir(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	out := make([]governance.SkillFolder, 0, len(dirs))
	for _, dir := range dirs {
		f, err := readSkillFolder(fsys, root, dir, name)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// relSlash is p relative to root, both slash paths of one fs.FS.
func relSlash(root, p string) string {
	if root == "." {
		return p
	}
	if p == root {
		return "."
	}
	return strings.TrimPrefix(p, root+"/")
}

// readSkillFolder reads the folder rel under root of fsys (rootName is
// root's own name, the folder's name when rel is ".").
func readSkillFolder(fsys fs.FS, root, rel, rootName string) (governance.SkillFolder, error) {
	dir := path.Join(root, rel)
	f := governance.SkillFolder{Name: path.Base(dir), Where: rel}
	// A Hermes category is the folder above the skill's, unless that is
	// the imported directory itself or a "skills" folder.
	if rel == "." {
		f.Name, f.Where = rootName, rootName
	} else if parent := path.Dir(rel); parent != "." && path.Base(parent) != "skills" {
		f.Category = path.Base(parent)
	}
	total := 0
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := relSlash(dir, p)
		if name == "." {
			return nil
		}
		if skipSkillEntry(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			f.Dropped = append(f.Dropped, governance.SkillDropped{Path: name, Why: "a symbolic link"})
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			f.Dropped = append(f.Dropped, governance.SkillDropped{Path: name, Why: "not a regular file"})
			return nil
		}
		if len(f.Files) > governance.MaxSkillFiles || total > governance.MaxSkillBytes {
			f.Files = append(f.Files, governance.SkillFile{Path: name})
			return nil
		}
		content, err := readBounded(fsys, p, governance.MaxSkillFileBytes+1)
		if err != nil {
			return err
		}
		total += len(content)
		f.Files = append(f.Files, governance.SkillFile{Path: name, Content: content})
		return nil
	})
	return f, err
}

func readBounded(fsys fs.FS, p string, limit int64) ([]byte, error) {
	fh, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, limit))
}

// archiveEntry is one file of an archive.
type archiveEntry struct {
	name    string
	content []byte
	// link: a link or other non-file entry, not read.
	link bool
}

// ErrSkillArchive is what an archive that is neither zip nor tar.gz, or
// that unpacks past MaxSkillArchiveBytes, returns.
var ErrSkillArchive = errors.New("not a zip or tar.gz archive of skill folders")

// ReadSkillArchive finds the skill folders of a zip or tar.gz archive. An
// entry whose name climbs out of the archive or its folder is never
// unpacked: it is dropped from its folder and reported (problems lists
// those that belong to no folder).
func ReadSkillArchive(name string, data []byte) ([]governance.SkillFolder, []governance.SkillDropped, error) {
	var entries []archiveEntry
	var err error
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		entries, err = zipEntries(data)
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		entries, err = tarEntries(data)
	default:
		return nil, nil, ErrSkillArchive
	}
	if err != nil {
		return nil, nil, err
	}
	// A SKILL.md names its folder.
	var folders []string
	for _, e := range entries {
		if n := strings.TrimPrefix(e.name, "./"); !e.link && governance.SkillPathOK(n) && path.Base(n) == governance.SkillFileName {
			folders = append(folders, path.Dir(n))
		}
	}
	sort.Slice(folders, func(i, j int) bool { return len(folders[i]) > len(folders[j]) }) // deepest first
	byDir := map[string]*governance.SkillFolder{}
	var loose []governance.SkillDropped
	for _, e := range entries {
		raw := strings.TrimPrefix(e.name, "./")
		owner := ""
		for _, dir := range folders {
			if dir == "." || strings.HasPrefix(raw, dir+"/") {
				owner = dir
				break
			}
		}
		if owner == "" {
			if !governance.SkillPathOK(raw) {
				loose = append(loose, governance.SkillDropped{Path: e.name, Why: "a name outside the archive", Traversal: true})
			}
			continue
		}
		f := byDir[owner]
		if f == nil {
			f = &governance.SkillFolder{Name: path.Base(owner), Where: owner}
			if owner == "." {
				f.Name, f.Where = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(path.Base(name), ".zip"), ".gz"), ".tar"), "."
			}
			if parts := strings.Split(owner, "/"); len(parts) >= 2 {
				f.Category = parts[len(parts)-2]
			}
			byDir[owner] = f
		}
		rel := raw
		if owner != "." {
			rel = strings.TrimPrefix(raw, owner+"/")
		}
		first, _, _ := strings.Cut(rel, "/")
		switch {
		case skipSkillEntry(first) || skipSkillEntry(path.Base(rel)):
		case !governance.SkillPathOK(rel):
			f.Dropped = append(f.Dropped, governance.SkillDropped{Path: rel, Why: "a name that climbs out of the folder", Traversal: true})
		case e.link:
			f.Dropped = append(f.Dropped, governance.SkillDropped{Path: rel, Why: "a link"})
		default:
			f.Files = append(f.Files, governance.SkillFile{Path: rel, Content: e.content})
		}
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	out := make([]governance.SkillFolder, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, *byDir[d])
	}
	return out, loose, nil
}

func zipEntries(data []byte) ([]archiveEntry, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSkillArchive, err)
	}
	var out []archiveEntry
	total := int64(0)
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if !f.Mode().IsRegular() {
			out = append(out, archiveEntry{name: f.Name, link: true})
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSkillArchive, err)
		}
		content, err := io.ReadAll(io.LimitReader(rc, governance.MaxSkillFileBytes+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSkillArchive, err)
		}
		if total += int64(len(content)); total > MaxSkillArchiveBytes {
			return nil, ErrSkillArchive
		}
		out = append(out, archiveEntry{name: f.Name, content: content})
	}
	return out, nil
}

func tarEntries(data []byte) ([]archiveEntry, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSkillArchive, err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	var out []archiveEntry
	total := int64(0)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSkillArchive, err)
		}
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader, tar.TypeXHeader:
			continue
		case tar.TypeReg:
		default:
			out = append(out, archiveEntry{name: h.Name, link: true})
			continue
		}
		content, err := io.ReadAll(io.LimitReader(tr, governance.MaxSkillFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSkillArchive, err)
		}
		if total += int64(len(content)); total > MaxSkillArchiveBytes {
			return nil, ErrSkillArchive
		}
		out = append(out, archiveEntry{name: h.Name, content: content})
	}
}
