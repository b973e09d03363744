// Package tokenizer is the one place text is cut into the units memory is
// indexed, ranked and compared on: words of alphabetic scripts (lower-cased,
// English stems, stop words dropped), Chinese, Japanese and Korean runs as
// single characters and overlapping character pairs (so mixed text works and
// two-character words are found), and sentences.
package tokenizer

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// IsCJK reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana, Hangul).
func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Stem returns the English stem of a lower-case word ("committing",
// "committed" and "commits" become "commit"). Words with letters outside
// ASCII are returned unchanged.
func Stem(w string) string {
	digits := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 || c >= 'A' && c <= 'Z' {
			return w
		}
		digits = digits && c >= '0' && c <= '9'
	}
	if len(w) <= 2 || digits {
		return w // a number has no suffix to strip, and is not worth a cache entry
	}
	h := maphash.String(stemSeed, w)
	slot := &stems[h&(stemSlots-1)]
	if v := slot.Load(); v != 0 && v>>16 == h>>16 {
		if keep, tail := int(v>>8&0xff), int(v&0xff); keep <= len(w) && tail < len(stemTails) {
			return w[:keep] + stemTails[tail]
		}
	}
	st := english.Stem(w, true)
	keep := 0
	for keep < len(w) && keep < len(st) && w[keep] == st[keep] {
		keep++
	}
	if tail := slices.Index(stemTails, st[keep:]); tail >= 0 && keep < 256 {
		slot.Store(h>>16<<16 | uint64(keep)<<8 | uint64(tail))
	}
	return st
}

// Stemming is most of the tokenizer's work (ten times a cached stem's
// cost: BenchmarkStem) and words repeat, so stems are cached, without the
// words: stemSlots slots, a word's slot chosen by its hash, each holding
// the last stem of its slot as the hash's upper 48 bits, how many of the
// word's bytes the stem keeps and which of stemTails the stemmer put after
// them. The cache costs the same 64 KB whatever words a process meets, a
// read takes no lock, and no word of any text (a forgotten one included)
// stays in it. Two words of one slot share those 48 bits once in 2⁴⁸
// lookups; a stem whose tail is not in stemTails is not cached.
const stemSlots = 1 << 13

// stemTails are what the English stemmer writes after the part of a word
// it keeps ("ational" becomes "ate": "relational" keeps "relat" and adds
// "e").
var stemTails = []string{"", "e", "i", "l", "ee", "ie", "ate", "tion", "ence", "ance", "able", "ent", "ize", "al",
	"ful", "ous", "ive", "ble", "og", "less", "ic", "ss"}

var (
	stems    [stemSlots]atomic.Uint64
	stemSeed = maphash.MakeSeed()
)

// Words returns the lower-cased words of the alphabetic scripts in s, in
// order: runs of letters and digits outside CJK scripts. Apostrophes and
// every other character split words.
func Words(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

// IsStopWord reports whether a lower-case word is a common English function
// word that says nothing about what a text is about.
func IsStopWord(w string) bool { return stopWords[w] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then so to of in on at by for with from into as is are was were
		be been being am it its this that these those i me my mine we us our you your yours he him his she her hers they them their
		do does did done doing have has had having will would can could should may might must shall please just also very
		up out about over than too all any some each every what which who whom whose when where why how here there
		not no nor only own same such both few more most other again further once s t ll ve re d m don didn isn aren wasn weren
		let lets ok okay yeah oh hey hi`) {
		m[w] = true
	}
	return m
}()

func isWordRune(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return !IsCJK(r) && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

// Term kinds a Tokens callback receives.
const (
	Word    = iota // a stemmed word
	CJKPair        // two adjacent CJK characters
	CJKChar        // one CJK character
)

// Tokens calls fn for every term of s, in text order: stemmed words (stop
// words and one-letter words dropped; digits kept), and for each CJK run its
// overlapping character pairs followed by its single characters (a lone
// character is only itself). Every term is made of letters and digits only,
// so a full-text tokenizer splitting on anything else keeps it whole.
func Tokens(s string, fn func(term string, kind int)) {
	tokens(s, true, fn)
}

// PhraseTokens is Tokens without the single characters of CJK runs longer
// than one character: consecutive terms of a phrase, for a phrase query
// over an index built with Tokens.
func PhraseTokens(s string, fn func(term string, kind int)) {
	tokens(s, false, fn)
}

func tokens(s string, chars bool, fn func(term string, kind int)) {
	runStart, runLen := -1, 0
	flushRun := func(end int) {
		if runStart < 0 {
			return
		}
		run := s[runStart:end]
		if runLen == 1 {
			fn(run, CJKChar)
		} else {
			prev := -1
			for i := range run {
				if prev >= 0 {
					_, size := utf8.DecodeRuneInString(run[i:])
					fn(run[prev:i+size], CJKPair)
				}
				prev = i
			}
			if chars {
				for _, r := range run {
					fn(string(r), CJKChar)
				}
			}
		}
		runStart, runLen = -1, 0
	}
	wordStart := -1
	flushWord := func(end int) {
		if wordStart < 0 {
			return
		}
		w := strings.ToLower(s[wordStart:end])
		wordStart = -1
		if stopWords[w] {
			return
		}
		if n := utf8.RuneCountInString(w); n == 1 && !(w[0] >= '0' && w[0] <= '9') {
			return
		}
		fn(Stem(w), Word)
	}
	for i, r := range s {
		switch {
		case IsCJK(r):
			flushWord(i)
			if runStart < 0 {
				runStart = i
			}
			runLen++
		case isWordRune(r):
			flushRun(i)
			if wordStart < 0 {
				wordStart = i
			}
		default:
			flushRun(i)
			flushWord(i)
		}
	}
	flushRun(len(s))
	flushWord(len(s))
}

// Terms returns the terms of s (Tokens) as a slice.
func Terms(s string) []string {
	var out []string
	Tokens(s, func(t string, _ int) { out = append(out, t) })
	return out
}

// Index returns the terms of s joined by spaces: what the full-text
// indexes store for a text.
func Index(s string) string {
	var b strings.Builder
	Tokens(s, func(t string, _ int) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	})
	return b.String()
}

// HasTerms reports whether s holds any term to search for (Tokens yields
// one): a text of punctuation, symbols or stop words alone has none.
func HasTerms(s string) bool {
	found := false
	tokens(s, false, func(string, int) { found = true })
	return found
}
