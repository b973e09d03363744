package heuristic

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// A user's message often carries material besides the person's own words:
// a log, a stack trace, a diff, a command's output or an e-mail pasted
// under "here's what I got:". Such lines are what a program or someone
// else wrote; a sentence read from them ("Error: you must always pass
// --region", "Please never call me", "// always close the file") is no
// instruction of the user's. ownWords keeps the person's lines and blanks
// the material by its shape, before the turn is cut into sentences:
//
//   - a fenced code block (``` or ~~~ to the matching fence, or to the end);
//   - a Markdown quotation (a line opening with '>');
//   - an indented line (a tab, or two spaces or more) that is no list item:
//     stack frames, test output and code keep their indentation when pasted;
//   - a diff (from "diff --git", "--- a/", "+++ b/" or an "@@ " hunk header
//     to the next blank line) and a shell session (from a "$ " prompt to the
//     next blank line: the output follows the command);
//   - one line shaped like a record: opening with a timestamp, a bracket or
//     brace (JSON, a log's "[INFO]"), a log level in capitals, a source
//     position ("cart.go:88:"), an exception's qualified name
//     ("java.lang.IllegalStateException: …"), or set in columns (two gaps
//     of two spaces or more, as a table printed by a tool).
//
// Blanked lines stay as empty lines, so no sentence runs across material
// and the text keeps its line count.
func ownWords(text string) string {
	if !mayHoldMaterial(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	fence := ""    // the open fence, "" outside one
	block := false // inside a diff or shell session, up to a blank line
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimSpace(body)
		keep := true
		switch {
		case fence != "":
			keep = false
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			keep = false
			fence = trimmed[:3]
			for len(fence) < len(trimmed) && trimmed[len(fence)] == fence[0] {
				fence = trimmed[:len(fence)+1]
			}
		case trimmed == "":
			block = false
		case block:
			keep = false
		case opensBlock(trimmed):
			keep, block = false, true
		case materialLine(body, trimmed):
			keep = false
		}
		if keep {
			b.WriteString(line)
		} else {
			b.WriteString(line[len(body):]) // the line break alone
		}
	}
	return b.String()
}

// mayHoldMaterial is the quick test ownWords starts with: a message of one
// line with no fence, quotation or leading space holds no material beyond
// what materialLine finds, which it checks too.
func mayHoldMaterial(text string) bool {
	if strings.Contains(text, "\n") || strings.Contains(text, "```") || strings.Contains(text, "~~~") {
		return true
	}
	trimmed := strings.TrimSpace(text)
	return opensBlock(trimmed) || materialLine(text, trimmed)
}

// opensBlock reports whether a line opens a diff or a shell session, which
// runs to the next blank line.
func opensBlock(trimmed string) bool {
	for _, p := range []string{"diff --git ", "--- a/", "+++ b/", "@@ -", "$ "} {
		if strings.HasPrefix(trimmed, p) {
			return true
		}
	}
	return false
}

// logLevels are the levels a log record opens with, in capitals.
var logLevels = []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "PANIC", "CRITICAL", "FAIL", "PASS"}

// materialLine reports whether one line is shaped like material (see
// ownWords): body is the line, trimmed the line without surrounding space.
func materialLine(body, trimmed string) bool {
	if trimmed == "" {
		return false
	}
	switch trimmed[0] {
	case '>', '{', '}', '[', ']':
		return true
	}
	if indented(body) && !listItem(trimmed) {
		return true
	}
	first, _, _ := strings.Cut(trimmed, " ")
	if timestamp(first) || sourcePosition(first) || qualifiedName(first) || namesException(trimmed) {
		return true
	}
	for _, l := range logLevels {
		if rest, ok := strings.CutPrefix(first, l); ok && (rest == "" || rest == ":") {
			return true
		}
	}
	return columns(trimmed)
}

// indented reports whether a line opens with a tab or two spaces or more.
func indented(body string) bool {
	return strings.HasPrefix(body, "\t") || strings.HasPrefix(body, "  ")
}

// listItem reports whether a line is an item of a Markdown list ("- …",
// "* …", "1. …").
func listItem(trimmed string) bool {
	if strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") || strings.HasPrefix(trimmed, "+ ") {
		return true
	}
	n := 0
	for n < len(trimmed) && '0' <= trimmed[n] && trimmed[n] <= '9' {
		n++
	}
	return n > 0 && n < len(trimmed)-1 && (trimmed[n] == '.' || trimmed[n] == ')') && trimmed[n+1] == ' '
}

// timestamp reports whether a word is a date or a time of day as logs
// write them: "2025-11-26", "10:02:11.482", "2025-11-26T10:02:11Z",
// "[2025-11-26": four digits or more, joined by '-', ':' or '/'.
func timestamp(word string) bool {
	word = strings.TrimLeft(word, "[(")
	digits, seps := 0, 0
	for i := 0; i < len(word); i++ {
		switch c := word[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '-' || c == ':' || c == '/':
			seps++
		case c == '.' || c == 'T' || c == 'Z' || c == ']' || c == ')' || c == ',':
		default:
			return false
		}
	}
	return digits >= 4 && seps >= 1 && len(word) > 0 && '0' <= word[0] && word[0] <= '9'
}

// sourcePosition reports whether a word opens with a file and a line number,
// as compilers, linters and test runners print them ("cart.go:88:",
// "src/config.js:41:11").
func sourcePosition(word string) bool {
	name, rest, ok := strings.Cut(word, ":")
	if !ok || !strings.Contains(name, ".") || rest == "" || rest[0] < '0' || rest[0] > '9' {
		return false
	}
	ext := name[strings.LastIndexByte(name, '.')+1:]
	return ext != "" && len(ext) <= 5 && strings.IndexFunc(ext, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// qualifiedName reports whether a word is a qualified name followed by a
// colon or a parenthesis, as an exception or a stack frame opens
// ("java.lang.IllegalStateException:", "decimal.InvalidOperation:",
// "github.com/acme/shop/cart.(*Service).Apply(0x0,"): dotted words, one
// of them capitalised or a call.
func qualifiedName(word string) bool {
	if !strings.HasSuffix(word, ":") && !strings.Contains(word, "(") {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimSuffix(word, ":"), "(")
	parts := strings.Split(name, ".")
	if len(parts) < 2 || strings.Contains(word, "://") {
		return false
	}
	for _, p := range parts {
		if p == "" && !strings.Contains(word, "(") {
			return false
		}
		for _, r := range p {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '/' && r != '$' {
				return false
			}
		}
	}
	last := parts[len(parts)-1]
	r, _ := utf8.DecodeRuneInString(last)
	return unicode.IsUpper(r) || strings.Contains(word, "(")
}

// namesException reports whether a word of the line is an exception's
// qualified name before its message ("Exception in thread "main"
// java.lang.IllegalStateException: …", "Caused by: java.io.IOException: …").
func namesException(trimmed string) bool {
	for w := range strings.FieldsSeq(trimmed) {
		if strings.HasSuffix(w, ":") && qualifiedName(w) {
			return true
		}
	}
	return false
}

// columns reports whether a line is set in columns: two gaps of two spaces
// or more between words, as a table a tool prints (two spaces after a
// sentence's full stop are no gap).
func columns(trimmed string) bool {
	gaps := 0
	for i := 1; i+1 < len(trimmed); i++ {
		if trimmed[i] == ' ' && trimmed[i+1] == ' ' && !strings.ContainsRune(".!?:;,", rune(trimmed[i-1])) {
			gaps++
			for i < len(trimmed) && trimmed[i] == ' ' {
				i++
			}
		}
	}
	return gaps >= 2
}

// words is the text of event e read for preferences and facts: the user's
// own words (ownWords); external content as it is.
func (s *session) words(e *governance.Event) string {
	if e.Role != governance.RoleUser || e.Source == governance.SourceExternal {
		return e.Text
	}
	return ownWords(e.Text)
}
