// Package gatecorpus reads the write gate's corpora (governance/testdata/gate)
// and derives the obfuscated variants of their attacks. The gate's own tests
// and the end-to-end poisoning test in web read the corpora through it, so
// both run exactly the same statements.
package gatecorpus

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// Line is one non-comment line of a corpus.
type Line struct {
	N    int // line number in the file
	Text string
}

// Read reads a corpus file, skipping blank and # lines and decoding the
// escapes \n, \t, \\, \uXXXX and \UXXXXXXXX.
func Read(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []Line
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		text, err := Unescape(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		lines = append(lines, Line{N: n, Text: text})
	}
	return lines, sc.Err()
}

// Unescape decodes the escapes of a corpus line.
func Unescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
			i++
		case 't':
			b.WriteByte('\t')
			i++
		case '\\':
			b.WriteByte('\\')
			i++
		case 'u', 'U':
			width := 4
			if s[i+1] == 'U' {
				width = 8
			}
			if i+2+width > len(s) {
				return "", fmt.Errorf("short escape in %q", s)
			}
			r, err := strconv.ParseUint(s[i+2:i+2+width], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad escape in %q: %w", s, err)
			}
			b.WriteRune(rune(r))
			i += 1 + width
		default:
			b.WriteByte('\\')
		}
	}
	return b.String(), nil
}

// Attack is one line of an attack corpus, or a variant derived from one.
type Attack struct {
	Line    int
	Class   string // the risk class the gate must report
	Text    string
	Variant string // the obfuscation applied; "" for the written line
	Chinese bool
}

// IsChinese reports whether s holds a Han character.
func IsChinese(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// Obfuscation rewrites an attack the way a writer hides it. Each keeps the
// attack's meaning for a model that reads it.
type Obfuscation struct {
	Name  string
	Latin bool // only for text with Latin letters
	Apply func(string) string
}

// Obfuscations are the variants Attacks derives, in turn.
var Obfuscations = []Obfuscation{
	{"homoglyph", true, func(s string) string {
		return strings.NewReplacer("o", "о", "e", "е", "a", "а", "c", "с", "p", "р", "i", "і", "O", "Ο", "x", "х").Replace(s)
	}},
	{"zero_width", false, func(s string) string { return interleave(s, "\u200b", 2) }},
	{"rlm", false, func(s string) string { return interleave(s, "\u200f", 4) }},
	{"variation_selector", false, func(s string) string { return interleave(s, "\ufe0e", 3) }},
	{"variation_selector_supplement", false, func(s string) string { return interleave(s, "\U000e0101", 3) }},
	{"base64", false, func(s string) string { return "Reference: " + base64.StdEncoding.EncodeToString([]byte(s)) }},
	{"percent", false, func(s string) string { return "link text: " + url.PathEscape(s) }},
	{"html_entities", false, func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, "&#%d;", r)
		}
		return b.String()
	}},
	{"hidden_in_selectors", false, func(s string) string { return "好的，谢谢！" + SelectorPayload(s) }},
	{"hidden_in_tags", true, func(s string) string {
		var b strings.Builder
		b.WriteString("Thanks, noted.")
		for _, r := range s {
			if r >= 0x20 && r < 0x7f {
				b.WriteRune(0xE0000 + r)
			}
		}
		return b.String()
	}},
	{"full_width", true, func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > ' ' && r < 0x7f {
				return r - '!' + '！'
			}
			return r
		}, s)
	}},
}

// interleave puts sep after every n runes that are letters.
func interleave(s, sep string, n int) string {
	var b strings.Builder
	count := 0
	for _, r := range s {
		b.WriteRune(r)
		if unicode.IsLetter(r) {
			count++
			if count%n == 0 {
				b.WriteString(sep)
			}
		}
	}
	return b.String()
}

// SelectorPayload spells s's bytes in variation selectors.
func SelectorPayload(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c < 16 {
			b.WriteRune(rune(0xFE00 + int(c)))
		} else {
			b.WriteRune(rune(0xE0100 + int(c) - 16))
		}
	}
	return b.String()
}

// Attacks reads an attack corpus (class<TAB>text lines) and, with
// variants, derives obfuscated variants: English lines get one
// obfuscation, Chinese lines two, chosen in turn by line.
func Attacks(path string, variants bool) ([]Attack, error) {
	lines, err := Read(path)
	if err != nil {
		return nil, err
	}
	var out []Attack
	k := 0
	for _, l := range lines {
		class, text, ok := strings.Cut(l.Text, "\t")
		if !ok {
			return nil, fmt.Errorf("%s line %d: want class<TAB>text", path, l.N)
		}
		a := Attack{Line: l.N, Class: class, Text: text, Chinese: IsChinese(text)}
		out = append(out, a)
		if !variants {
			continue
		}
		want := 1
		if a.Chinese {
			want = 2
		}
		for made := 0; made < want; k++ {
			ob := Obfuscations[k%len(Obfuscations)]
			if ob.Latin && a.Chinese {
				continue
			}
			v := a
			if v.Text, err = Unescape(ob.Apply(text)); err != nil {
				return nil, fmt.Errorf("%s line %d (%s): %w", path, l.N, ob.Name, err)
			}
			v.Variant = ob.Name
			out = append(out, v)
			made++
		}
	}
	return out, nil
}
