package tokenizer

import (
	_ "embed"
	"strings"
)

// abbreviations are the words a full stop after which does not end the
// sentence (abbreviations.en.txt: "Dr.", "approx.", "Mt."). The extractor's
// sentences and the write gate's clauses both read them, so the two never
// cut a statement in different places.
//
//go:embed abbreviations.en.txt
var abbreviationsFile string

var abbreviations = func() map[string]bool {
	out := map[string]bool{}
	for line := range strings.SplitSeq(abbreviationsFile, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out
}()

// Abbreviated reports whether a sentence cut at terminator (text before it,
// after what follows) ends in an abbreviation or an initial, so the text
// after goes on with it: "Address me as Dr. Okafor", "J. Smith". A dotted
// abbreviation that can end a phrase ("10 a.m.", "U.S." — not "e.g." or
// "i.e.", which always go on) before a capital ends the sentence: "No calls
// before 10 a.m. Ever."
func Abbreviated(text, terminator, after string) bool {
	if !strings.HasPrefix(terminator, ".") || strings.HasPrefix(terminator, "..") {
		return false
	}
	k := strings.LastIndexAny(text, " (\t\n")
	word := strings.ToLower(text[k+1:])
	if len(word) == 1 && 'a' <= word[0] && word[0] <= 'z' {
		return true // an initial: "J. Smith"
	}
	if dotted(word) {
		// "e.g.", "a.m.", "U.S.", "Ph.D."
		return word == "e.g" || word == "i.e" || !startsCapital(after)
	}
	return abbreviations[word]
}

// startsCapital reports whether s opens, after spaces, with an ASCII
// capital letter.
func startsCapital(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return s != "" && 'A' <= s[0] && s[0] <= 'Z'
}

// dotted reports whether a word is groups of one or two letters joined by
// full stops ("e.g", "u.s", "ph.d").
func dotted(word string) bool {
	parts := strings.Split(word, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 2 {
			return false
		}
		for i := 0; i < len(p); i++ {
			if p[i] < 'a' || p[i] > 'z' {
				return false
			}
		}
	}
	return true
}
