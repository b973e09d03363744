package app_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocs holds the repository's Markdown to what docs/ARCHITECTURE.md
// promises of it: README and ARCHITECTURE stay maps (at most 250 and 400
// lines; details go to a topic page under docs/), no page cites an issue or
// a document outside the repository, and every relative link names a file of
// the repository and, with a #fragment, a heading of that file.
func TestDocs(t *testing.T) {
	root := filepath.Join("..")
	for file, most := range map[string]int{"README.md": 250, "docs/ARCHITECTURE.md": 400} {
		if n := len(readLines(t, filepath.Join(root, file))); n > most {
			t.Errorf("%s has %d lines, at most %d: move details into a topic page under docs/ and link it", file, n, most)
		}
	}

	issue := regexp.MustCompile(`(?i)\bissues? #?\d`)
	outside := regexp.MustCompile(`/work/|\b(?:SCENARIO|DESIGN|STYLE)\.md\b`)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	pages := markdownFiles(t, root)
	headings := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := headings[path]; ok {
			return a
		}
		a := anchors(readLines(t, path))
		headings[path] = a
		return a
	}
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		fence := false
		for i, line := range readLines(t, page) {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fence = !fence
			}
			if m := issue.FindString(line); m != "" {
				t.Errorf("%s:%d cites an issue (%q): describe the product as it is", rel, i+1, m)
			}
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d names something outside the repository (%q)", rel, i+1, m)
			}
			if fence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d links %q, which is not in the repository", rel, i+1, target)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[frag] {
					t.Errorf("%s:%d links %q: %s has no such heading", rel, i+1, target, filepath.Base(path))
				}
			}
		}
	}
}

// markdownFiles lists the repository's own Markdown pages: test data and
// the demo's skill folders (agents' files, not documentation) aside.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", "skills":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 3 {
		t.Fatalf("found only %v: is the test run from app/?", out)
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// anchors are the fragments GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as hyphens, a repeated one numbered.
func anchors(lines []string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestCodeCitesDocs holds the Go code's pointers into the docs to the
// pages as they are: a comment or message that cites a page (README.md or
// docs/<page>.md) names a file of the repository, and one that cites a
// section names it in quotes after the page ("docs/forget.md, \"What a
// forget leaves\""), as a heading of that page. A page followed by a
// bare capitalised word names a section no check can hold, so it is
// refused too. A test's strings are its data, not citations: only its
// comments are read.
func TestCodeCitesDocs(t *testing.T) {
	root := filepath.Join("..")
	cite := regexp.MustCompile(`\b(README(?:\.md)?|docs/[A-Za-z_]+\.md)(?:,\s*\(?|\s+\()(\\?"([^"\\]+)\\?"|[A-Z][a-z]+)`)
	bare := regexp.MustCompile(`\b(?:README|docs/[A-Za-z_]+)\.md\b`)
	joins := regexp.MustCompile(`\n\s*//\s*`)
	headingsOf := map[string]map[string]bool{}
	heads := func(page string) map[string]bool {
		if h, ok := headingsOf[page]; ok {
			return h
		}
		h := map[string]bool{}
		for _, line := range readLines(t, filepath.Join(root, page)) {
			if strings.HasPrefix(line, "#") {
				h[strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
			}
		}
		headingsOf[page] = h
		return h
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_templ.go") {
			return nil
		}
		files++
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		text := string(body)
		if strings.HasSuffix(path, "_test.go") {
			// A test's strings are its data; its comments are read.
			var comments []string
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					comments = append(comments, line)
				}
			}
			text = strings.Join(comments, "\n")
		}
		text = joins.ReplaceAllString(text, " ")
		for _, m := range bare.FindAllString(text, -1) {
			if _, err := os.Stat(filepath.Join(root, m)); err != nil {
				t.Errorf("%s cites %s, which is not in the repository", rel, m)
			}
		}
		for _, m := range cite.FindAllStringSubmatch(text, -1) {
			page := m[1]
			if page == "README" {
				page = "README.md"
			}
			if m[3] == "" {
				t.Errorf("%s cites %s, %s: name the section in quotes, as its heading reads", rel, m[1], m[2])
				continue
			}
			if _, err := os.Stat(filepath.Join(root, page)); err == nil && !heads(page)[strings.ToLower(m[3])] {
				t.Errorf("%s cites %s, %q: %s has no such heading", rel, m[1], m[3], page)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked only %d Go files: is the test run from app/?", files)
	}
}
