package heuristic

import (
	"embed"
	"strings"
)

// The structural reader's cues are data: one phrase a line in
// cues/<class>.<lang>.txt, "#" lines documenting the class. English phrases
// match lowercase at word boundaries, Chinese ones as substrings. The files
// are read once, when the package loads; docs/extractor.md lists the
// classes. Adding a phrasing is a line in the class's file (and a labelled
// line in a corpus under testdata).
//
//go:embed cues/*.txt
var cueFiles embed.FS

// cueNames lists the files loaded, for the test that every file is used.
var cueNames []string

// loadCues returns the phrases of cues/<name>.txt; a missing file is a
// programming error and panics when the package loads.
func loadCues(name string) []string {
	b, err := cueFiles.ReadFile("cues/" + name + ".txt")
	if err != nil {
		panic("heuristic: cue file: " + err.Error())
	}
	cueNames = append(cueNames, name)
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return indexed(out)
}

// cueSet is one class of cues in both languages, with the ids its lists
// have in the one-pass search (hits).
type cueSet struct {
	en, zh     []string
	enID, zhID int
}

func loadCueSet(name string) cueSet {
	c := cueSet{en: loadCues(name + ".en"), zh: loadCues(name + ".zh")}
	c.enID, c.zhID = listIDs[listKey{&c.en[0], len(c.en)}], listIDs[listKey{&c.zh[0], len(c.zh)}]
	return c
}

// phraseAt returns the byte offset of the first occurrence of phrase in
// lower at word boundaries (a side of the phrase that is not a letter needs
// none: "'s rule is" matches in "priya's rule is"), or -1.
func phraseAt(lower, phrase string) int {
	if phrase == "" {
		return -1
	}
	needLeft := isWordByte(phrase[0]) && phrase[0] != '\''
	needRight := isWordByte(phrase[len(phrase)-1])
	for off := 0; off < len(lower); {
		i := strings.Index(lower[off:], phrase)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(phrase)
		if (!needLeft || i == 0 || !isLetterByte(lower[i-1])) && (!needRight || j == len(lower) || !isLetterByte(lower[j])) {
			return i
		}
		off = i + 1
	}
	return -1
}

// isLetterByte is a byte of an English word (letters, digits, an
// apostrophe or a hyphen inside a word: "read-only" holds no "read").
func isLetterByte(c byte) bool {
	return c == '\'' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// firstEN returns the offset and the phrase of the earliest English cue of
// phrases in lower (the longest on a tie), or -1.
func firstEN(lower string, phrases []string) (int, string) {
	if idx := indexOf(phrases); idx != nil {
		return idx.first(lower, true)
	}
	best, which := -1, ""
	for _, p := range phrases {
		if i := phraseAt(lower, p); i >= 0 && (best < 0 || i < best || i == best && len(p) > len(which)) {
			best, which = i, p
		}
	}
	return best, which
}

// firstZH returns the offset and the phrase of the earliest Chinese cue of
// phrases in s (the longest on a tie), or -1.
func firstZH(s string, phrases []string) (int, string) {
	if idx := indexOf(phrases); idx != nil {
		return idx.first(s, false)
	}
	best, which := -1, ""
	for _, p := range phrases {
		if i := strings.Index(s, p); i >= 0 && (best < 0 || i < best || i == best && len(p) > len(which)) {
			best, which = i, p
		}
	}
	return best, which
}

// anyEN reports whether lower holds one of phrases at word boundaries.
func anyEN(lower string, phrases []string) bool {
	if idx := indexOf(phrases); idx != nil {
		i, _ := idx.first(lower, true)
		return i >= 0
	}
	for _, p := range phrases {
		if phraseAt(lower, p) >= 0 {
			return true
		}
	}
	return false
}
