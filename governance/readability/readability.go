// Package readability decides whether a proposed statement reads as a rule
// a person could approve: sentences of words, not a command line, JSON, tool
// arguments, a machine path, a stack trace or a fragment copied from the
// middle of something longer. It is structural: it classifies the
// statement's tokens (words, numbers, code) and looks at its shape
// (balanced delimiters, a sentence's beginning and end, the share of words),
// never at a list of known bad statements. The heartbeat applies it to every
// extracted item before anything is proposed, whichever extractor made it.
package readability

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Problem names why a statement is not readable; "" means it is.
type Problem string

const (
	OK       Problem = ""
	Command  Problem = "command"  // a command line: shell operators, flags, substitutions
	JSON     Problem = "json"     // a JSON object or tool arguments
	Path     Problem = "path"     // a machine path (a home directory, a drive)
	Trace    Problem = "trace"    // a stack trace or a file:line location
	Fragment Problem = "fragment" // copied mid-sentence: markup, unbalanced, cut off
	Symbols  Problem = "symbols"  // too few words among code, numbers and symbols
	Long     Problem = "long"     // longer than a rule a reviewer reads at a glance
)

// MaxRunes is the longest readable statement.
const MaxRunes = 300

// token is one whitespace-separated piece of a statement, classified.
type token struct {
	raw  string // as written
	core string // without the punctuation around it
	kind kind
}

type kind int

const (
	kWord kind = iota
	kNumber
	kCode
	kFlag
	kSymbol
)

// Check returns what makes statement unreadable as a rule, or OK.
func Check(statement string) Problem {
	s := strings.TrimSpace(statement)
	if s == "" || !utf8.ValidString(s) {
		return Symbols
	}
	if utf8.RuneCountInString(s) > MaxRunes {
		return Long
	}
	switch {
	case hasJSON(s):
		return JSON
	case hasMachinePath(s):
		return Path
	case hasTrace(s):
		return Trace
	case hasShell(s):
		return Command
	case hasDebris(withoutCodeSpans(s)) || !balanced(s) || cutOff(s) || startsMidSentence(s):
		return Fragment
	}
	toks := tokens(s)
	words, code, flags, other := 0, 0, 0, 0
	for _, t := range toks {
		switch t.kind {
		case kWord:
			words += wordWeight(t.core)
		case kCode:
			code++
		case kFlag:
			flags++
		default:
			other++
		}
	}
	if flags > 0 && flags+code >= 2 {
		return Command // a program and its flags
	}
	if words < 3 || 2*(code+flags+other) > words {
		return Symbols
	}
	return OK
}

// wordWeight counts a word token: a run of Han characters counts one word
// for every two characters (Chinese has no spaces between words).
func wordWeight(w string) int {
	han := 0
	for _, r := range w {
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	if han == 0 {
		return 1
	}
	return max(1, (han+1)/2)
}

func tokens(s string) []token {
	var out []token
	for _, raw := range strings.Fields(s) {
		core := strings.TrimFunc(raw, isOuterPunct)
		out = append(out, token{raw: raw, core: core, kind: classify(core)})
	}
	return out
}

// isOuterPunct is punctuation that may stand around a word.
func isOuterPunct(r rune) bool {
	switch r {
	case '.', ',', ';', ':', '!', '?', '(', ')', '"', '\'', '`', '“', '”', '‘', '’', '«', '»',
		'，', '。', '；', '：', '！', '？', '（', '）', '、', '「', '」', '《', '》':
		return true
	}
	return false
}

func classify(core string) kind {
	if core == "" {
		return kSymbol
	}
	if core[0] == '-' && len(core) > 1 && (core[1] == '-' || isASCIILetter(core[1])) {
		return kFlag
	}
	letters, digits, codeMarks := 0, 0, 0
	for i, r := range core {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("_/\\={}[]<>$|*#~@^&", r):
			codeMarks++
		case r == '.' && i > 0 && i < len(core)-1:
			codeMarks++ // file.ext, pkg.Func
		}
	}
	switch {
	case codeMarks > 0:
		return kCode
	case letters == 0 && digits > 0:
		return kNumber
	case letters == 0:
		return kSymbol
	case digits > 0 && digits >= letters:
		return kCode // an id: ORD-20231, a1b2c3d4
	}
	return kWord
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// hasJSON reports a JSON object or array: a quoted key and a colon, or
// text that opens like one.
func hasJSON(s string) bool {
	if strings.Contains(s, `{"`) || strings.Contains(s, `":`) || strings.Contains(s, `{'`) || strings.Contains(s, `':`) {
		return true
	}
	t := strings.TrimSpace(s)
	return (t[0] == '{' || t[0] == '[') && strings.ContainsAny(t, ":,")
}

// hasMachinePath reports an absolute path of one machine: a home
// directory, a system directory, a drive letter, a UNC share.
func hasMachinePath(s string) bool {
	for _, f := range strings.Fields(s) {
		f = strings.TrimLeft(f, "\"'`(“‘[<")
		switch {
		case strings.HasPrefix(f, "~/"), strings.HasPrefix(f, `\\`):
			return true
		case len(f) > 3 && isASCIILetter(f[0]) && f[1] == ':' && (f[2] == '\\' || f[2] == '/'):
			return true
		case strings.HasPrefix(f, "/") && strings.Count(f, "/") >= 2 && !strings.HasPrefix(f, "//"):
			return true // /home/…, /Users/…, /tmp/…, /var/…: a path on someone's machine
		}
	}
	return false
}

// hasTrace reports a stack trace or a source location.
func hasTrace(s string) bool {
	lower := strings.ToLower(s)
	if strings.Contains(lower, "traceback (most recent call last)") || strings.Contains(lower, "goroutine ") && strings.Contains(s, "[") {
		return true
	}
	// file.ext:12 (Go, JavaScript, Java frames, compilers, test output) and
	// File "x.py", line 12 (Python).
	return sourceLine.MatchString(s) || strings.Contains(s, `", line `)
}

// sourceLine is the shape of every compiler, test and trace location:
// file.ext:LINE.
var sourceLine = regexp.MustCompile(`[\w./-]+\.[A-Za-z][A-Za-z0-9]{0,4}:\d+`)

// hasShell reports the operators of a command line: substitution,
// chaining, pipes and redirections, a prompt, or a rendered tool call.
func hasShell(s string) bool {
	for _, op := range []string{"$(", "${", " && ", " || ", " | ", " 2>", " >> ", " > /", "&>", "; then", "\\\n"} {
		if strings.Contains(s, op) {
			return true
		}
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "> ") {
		return true
	}
	// "[Bash] npm test": a tool call as the importers render it.
	if strings.HasPrefix(t, "[") {
		if end := strings.IndexByte(t, ']'); end > 1 && end < 65 && !strings.ContainsRune(t[1:end], ' ') {
			return true
		}
	}
	return false
}

// hasDebris reports markup and marks left by cutting: bold or code fences
// of Markdown, an ellipsis standing for what was cut.
func hasDebris(s string) bool {
	return strings.Contains(s, "**") || strings.Contains(s, "```") || strings.Contains(s, "__") ||
		strings.Contains(s, "…") || strings.Contains(s, "...") || strings.Contains(s, "<!--")
}

// withoutCodeSpans is s without its `code spans`: what stands in one
// ("go test ./...") is quoted, not cut.
func withoutCodeSpans(s string) string {
	if strings.Count(s, "`") < 2 {
		return s
	}
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 0 {
			b.WriteString(part)
		}
	}
	return b.String()
}

// balanced reports whether brackets and quotes open and close in pairs.
func balanced(s string) bool {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{', '）': '（', '」': '「', '》': '《', '”': '“'}
	ticks, quotes := 0, 0
	for _, r := range s {
		switch r {
		case '(', '[', '{', '（', '「', '《', '“':
			stack = append(stack, r)
		case ')', ']', '}', '）', '」', '》', '”':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				return false
			}
			stack = stack[:len(stack)-1]
		case '`':
			ticks++
		case '"':
			quotes++
		}
	}
	return len(stack) == 0 && ticks%2 == 0 && quotes%2 == 0
}

// cutOff reports a statement that stops where a sentence cannot: on a
// colon, a comma, an opening word.
func cutOff(s string) bool {
	t := strings.TrimSpace(s)
	last, _ := utf8.DecodeLastRuneInString(t)
	switch last {
	case ':', ',', ';', '：', '，', '；', '、', '(', '/', '\\':
		return true
	}
	lower := strings.ToLower(t)
	for _, w := range []string{" the", " a", " an", " to", " of", " and", " or", " with", " for", " before", " after", " when", " if"} {
		if strings.HasSuffix(lower, w) {
			return true
		}
	}
	return false
}

// joiningWords join a clause to what came before it: a statement that
// opens with one, in lower case, was cut from a longer sentence.
var joiningWords = map[string]bool{"and": true, "but": true, "or": true, "nor": true, "so": true, "then": true,
	"which": true, "whose": true, "because": true, "while": true, "whereas": true, "than": true, "of": true,
	"by": true, "as": true, "etc": true}

// startsMidSentence reports an English statement that begins where no
// sentence does: on a joining word in lower case, or on a closing mark.
func startsMidSentence(s string) bool {
	t := strings.TrimSpace(s)
	r, _ := utf8.DecodeRuneInString(t)
	if first, _, _ := strings.Cut(t, " "); joiningWords[strings.TrimFunc(first, isOuterPunct)] {
		return true // "and then re-run …", "which means …": the rest of a sentence
	}
	switch r {
	case ')', ']', '}', ',', '.', ';', ':', '）', '，', '。', '、':
		return true
	}
	return false
}
