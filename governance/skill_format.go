package governance

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The Agent Skills format: a folder named after the skill holding a
// SKILL.md, which opens with YAML front matter (name, description and the
// optional license, compatibility, metadata and allowed-tools) followed by
// Markdown, plus any scripts/, references/ and assets/ files. Claude Code
// (~/.claude/skills, .claude/skills in a repository), Codex and Hermes
// (~/.hermes/skills/[category/]<name>/) read the same folders.

// Limits of the format and of what the console keeps of one skill.
const (
	SkillFileName            = "SKILL.md"
	MaxSkillNameLen          = 64
	MaxSkillDescriptionLen   = 1024
	MaxSkillCompatibilityLen = 500
	// MaxSkillFileBytes bounds one file, MaxSkillBytes a whole skill and
	// MaxSkillFiles the files of one skill (SKILL.md included).
	MaxSkillFileBytes = 1 << 20
	MaxSkillBytes     = 4 << 20
	MaxSkillFiles     = 100
)

// SkillFolder is one skill folder as read from a directory or an archive,
// before it is validated.
type SkillFolder struct {
	// Name is the folder's own name, which the SKILL.md name must equal.
	Name string
	// Category is the Hermes category folder above it ("" none).
	Category string
	// Where names the folder in problems and provenance: its path under
	// the imported directory or inside the archive.
	Where string
	// Files are the folder's files by slash path, SKILL.md included.
	Files []SkillFile
	// Dropped are entries that were not read: a path that climbs out of
	// the folder, a link, a file over the size bound.
	Dropped []SkillDropped
}

// SkillDropped is a folder entry that was not read, and why.
type SkillDropped struct {
	Path string
	// Why is an English sentence (translated by its format).
	Why string
	// Traversal: the name climbs out of the folder or is absolute.
	Traversal bool
}

// SkillProblem is why one file of a skill is not valid.
type SkillProblem struct {
	// Where is the folder, File the file in it ("SKILL.md").
	Where string `json:"where"`
	File  string `json:"file"`
	// Message is the English sentence (the API, logs); Text is what makes
	// it, which pages translate.
	Message string `json:"message"`
	Text    Text   `json:"-"`
}

// Sentence is the problem as a Text (its Message when it has no Text).
func (p SkillProblem) Sentence() Text {
	if p.Text.IsZero() {
		return Text{ID: p.Message}
	}
	return p.Text
}

// SkillImportError rejects skills of an import: each problem names the
// folder and the file.
type SkillImportError struct {
	Problems []SkillProblem
}

func (e *SkillImportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skills rejected: %d problem(s)", len(e.Problems))
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n%s/%s: %s", p.Where, p.File, p.Message)
	}
	return b.String()
}

// wholeFolder is the file name of a problem about the whole folder.
const wholeFolder = "."

// skillProblems collects the problems of one folder.
type skillProblems struct {
	where string
	list  []SkillProblem
}

// Add records a problem of one file, as a sentence made from format.
func (p *skillProblems) Add(file, format string, args ...any) {
	t := Say(format, args...)
	p.list = append(p.list, SkillProblem{Where: p.where, File: file, Message: t.String(), Text: t})
}

// frontMatter is SKILL.md's YAML header as the format defines it; other
// keys (agents add their own) are kept in the file and not interpreted.
type frontMatter struct {
	Name          *string   `yaml:"name"`
	Description   *string   `yaml:"description"`
	License       any       `yaml:"license"`
	Compatibility any       `yaml:"compatibility"`
	Metadata      yaml.Node `yaml:"metadata"`
	AllowedTools  yaml.Node `yaml:"allowed-tools"`
}

// SplitFrontMatter cuts a SKILL.md into its YAML header and the Markdown
// after it; ok is false when it does not open with a "---" line closed by
// another.
func SplitFrontMatter(text string) (header, body string, ok bool) {
	first, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimRight(first, "\r \t") != "---" {
		return "", "", false
	}
	for off := 0; off <= len(rest); {
		line, next, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, "\r \t") == "---" {
			header = rest[:off]
			if more {
				body = next
			}
			return header, body, true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", false
}

// ParseSkillFolder reads and validates one folder: the SKILL.md front
// matter against the Agent Skills rules, the folder's name, every file's
// path and size. Problems name the file they are about; content is nil
// when there is any.
func ParseSkillFolder(f SkillFolder) (*SkillContent, []SkillProblem) {
	bad := &skillProblems{where: f.Where}
	if f.Where == "" {
		bad.where = f.Name
	}
	var md []byte
	found := false
	var files []SkillFile
	total := 0
	for _, file := range f.Files {
		name := file.Path
		total += len(file.Content)
		switch {
		case file.Path == SkillFileName:
			md, found = file.Content, true
			continue
		case !SkillPathOK(file.Path):
			bad.Add(name, "The file name is not a plain relative path inside the skill folder.")
			continue
		case len(file.Content) > MaxSkillFileBytes:
			bad.Add(name, "The file is larger than %d bytes.", MaxSkillFileBytes)
			continue
		}
		files = append(files, file)
	}
	if len(f.Files) > MaxSkillFiles {
		bad.Add(wholeFolder, "The folder holds more than %d files.", MaxSkillFiles)
	}
	if total > MaxSkillBytes {
		bad.Add(wholeFolder, "The folder holds more than %d bytes.", MaxSkillBytes)
	}
	if !found {
		bad.Add(SkillFileName, "The folder has no SKILL.md.")
		return nil, bad.list
	}
	if len(md) > MaxSkillFileBytes {
		bad.Add(SkillFileName, "The file is larger than %d bytes.", MaxSkillFileBytes)
		return nil, bad.list
	}
	if !utf8.Valid(md) {
		bad.Add(SkillFileName, "SKILL.md is not UTF-8 text.")
		return nil, bad.list
	}
	c := &SkillContent{SkillMD: string(md), Files: files}
	header, body, ok := SplitFrontMatter(c.SkillMD)
	if !ok {
		bad.Add(SkillFileName, "SKILL.md must open with YAML front matter between two lines of three hyphens (---).")
		return nil, bad.list
	}
	c.Body = body
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		bad.Add(SkillFileName, "The front matter is not valid YAML: %s.", yamlProblem(err))
		return nil, bad.list
	}
	switch {
	case fm.Name == nil || strings.TrimSpace(*fm.Name) == "":
		bad.Add(SkillFileName, "The front matter has no name.")
	case len(*fm.Name) > MaxSkillNameLen:
		bad.Add(SkillFileName, "The name is longer than %d characters.", MaxSkillNameLen)
	case !SkillNameOK(*fm.Name):
		bad.Add(SkillFileName, "The name %q is not kebab-case (lower-case letters, digits and single hyphens).", *fm.Name)
	case *fm.Name != f.Name:
		bad.Add(SkillFileName, "The name %q differs from the folder's name %q.", *fm.Name, f.Name)
	default:
		c.Name = *fm.Name
	}
	switch {
	case fm.Description == nil || strings.TrimSpace(*fm.Description) == "":
		bad.Add(SkillFileName, "The front matter has no description.")
	case utf8.RuneCountInString(*fm.Description) > MaxSkillDescriptionLen:
		bad.Add(SkillFileName, "The description is longer than %d characters.", MaxSkillDescriptionLen)
	default:
		c.Description = strings.TrimSpace(*fm.Description)
	}
	if s, ok := scalar(fm.License); !ok {
		bad.Add(SkillFileName, "The %s field must be text.", "license")
	} else {
		c.License = s
	}
	if s, ok := scalar(fm.Compatibility); !ok {
		bad.Add(SkillFileName, "The %s field must be text.", "compatibility")
	} else if utf8.RuneCountInString(s) > MaxSkillCompatibilityLen {
		bad.Add(SkillFileName, "The compatibility field is longer than %d characters.", MaxSkillCompatibilityLen)
	} else {
		c.Compatibility = s
	}
	if meta, ok := stringMap(&fm.Metadata); !ok {
		bad.Add(SkillFileName, "The metadata field must map names to text.")
	} else {
		c.Metadata = meta
	}
	if tools, ok := toolList(&fm.AllowedTools); !ok {
		bad.Add(SkillFileName, "The allowed-tools field must be a list of tool names.")
	} else {
		c.AllowedTools = tools
	}
	if len(bad.list) > 0 {
		return nil, bad.list
	}
	return c, nil
}

// yamlProblem is the YAML parser's complaint without its package prefix.
func yamlProblem(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	return strings.TrimSuffix(s, ".")
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return strings.TrimSpace(x), true
	case int, int64, float64, bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

func stringMap(n *yaml.Node) (map[string]string, bool) {
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, true
	}
	if n.Kind != yaml.MappingNode {
		return nil, false
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			return nil, false
		}
		out[k.Value] = v.Value
	}
	return out, true
}

// toolList reads allowed-tools: the format's space-separated string, or
// the YAML list Claude Code also accepts. A tool with arguments in
// parentheses ("Bash(git status:*)") is one entry.
func toolList(n *yaml.Node) ([]string, bool) {
	switch {
	case n.Kind == 0 || n.Tag == "!!null":
		return nil, true
	case n.Kind == yaml.ScalarNode:
		return splitTools(n.Value), true
	case n.Kind == yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, false
			}
			if v := strings.TrimSpace(c.Value); v != "" {
				out = append(out, v)
			}
		}
		return out, true
	}
	return nil, false
}

// splitTools splits on spaces and commas outside parentheses.
func splitTools(s string) []string {
	var out []string
	depth, start, inQuote := 0, -1, false
	flush := func(end int) {
		if start >= 0 {
			if t := strings.Trim(strings.TrimSpace(s[start:end]), `"'`); t != "" {
				out = append(out, t)
			}
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case r == '"' || r == '\'':
			inQuote = !inQuote
		case inQuote:
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ' ' || r == ',' || r == '\t') && depth == 0:
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// SkillPathOK reports whether p is a plain relative slash path that stays
// inside the folder: no absolute path, drive letter, backslash, empty,
// "." or ".." segment, no control character.
func SkillPathOK(p string) bool {
	if p == "" || len(p) > 512 || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || strings.Contains(p, ":") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return path.Clean(p) == p
}

// isText reports whether b reads as UTF-8 text without NUL bytes.
func isText(b []byte) bool {
	return utf8.Valid(b) && !bytes.ContainsRune(b, 0)
}

// IsScriptFile reports whether a skill file is a program the agent may
// run: anything under scripts/, a file with a shebang, or a file named
// like a script.
func IsScriptFile(f SkillFile) bool {
	if strings.HasPrefix(f.Path, "scripts/") || bytes.HasPrefix(f.Content, []byte("#!")) {
		return true
	}
	return slices.Contains(scriptExtensions, strings.ToLower(path.Ext(f.Path)))
}

var scriptExtensions = []string{".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".ps1", ".bat", ".cmd", ".lua", ".go"}
