package gate

import (
	"encoding/base64"
	"encoding/hex"
	"html"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run ./internal/confusablesgen confusables_table.go

// gateView is a text prepared for the gate's patterns, with the span of the
// original text every byte came from, so a match is reported where the
// writer put it (invisible characters, look-alike letters and encodings
// included).
type gateView struct {
	text   string
	lo, hi []int32 // per byte of text: [lo, hi) in the original
	// encoding names the decoder that produced the view ("" for the text itself).
	encoding string
}

// origin returns the original span of text[a:b] (a < b).
func (v *gateView) origin(a, b int) (int, int) {
	if b <= a {
		b = a + 1
	}
	return int(v.lo[a]), int(v.hi[b-1])
}

// invisibleRun is one run of invisible characters of one kind in the original.
type invisibleRun struct {
	kind   string
	lo, hi int
}

// normalised is what normalise made of a text.
type normalised struct {
	view      gateView
	invisible []invisibleRun // not legitimate in context
	payloads  []gateView     // hidden text spelled in variation selectors or tags
}

type gateRune struct {
	r      rune
	lo, hi int32
}

// normalise prepares s for scanning: invisible characters (default
// ignorables, format characters, variation selectors, tags, bidi controls)
// are removed and remembered; every other character takes its compatibility
// decomposition (NFKD: full-width and mathematical letters become ASCII)
// without combining marks; Latin letter-likes that NFKD leaves alone (small
// capitals, letters with a stroke or hook, circled, squared and
// parenthesised letters, regional indicators) are read as the ASCII letters
// their Unicode names say they are; traditional Han characters are read as
// their simplified forms (hantFold, written by internal/hantgen from OpenCC's
// character table); curly quotes are straightened; and letters that
// look like Latin ones (Unicode TS #39 confusables) are read as Latin inside
// words that mix them with Latin letters or consist only of them. With
// fixed set, every byte maps to that span (a decoded payload). Runs of
// invisible characters that spell text (variation-selector or tag
// "smuggling") are decoded into payloads.
func normalise(s string, fixed *[2]int32) normalised {
	var out normalised
	runes := make([]gateRune, 0, len(s))
	lookalike := false
	var prev rune = -1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		lo, hi := int32(i), int32(i+size)
		if fixed != nil {
			lo, hi = fixed[0], fixed[1]
		}
		if r < 0x80 || r >= 0x3400 && r <= 0x9FFF {
			// ASCII and simplified Han characters stand for themselves; a
			// traditional one is read as its simplified form (hantFold).
			if r >= 0x3400 {
				r = foldHan(r)
			}
			runes = append(runes, gateRune{r, lo, hi})
			prev = r
			i += size
			continue
		}
		if kind := invisibleKind(r); kind != "" {
			j := i + size
			// A run of selectors or tags may spell a payload.
			if kind == "variation_selector" || kind == "tag_characters" {
				for j < len(s) {
					r2, n := utf8.DecodeRuneInString(s[j:])
					if invisibleKind(r2) != kind {
						break
					}
					j += n
				}
				if p, ok := decodeInvisiblePayload(s[i:j], kind); ok && !legitimateInvisible(s, i, j, prev, kind) {
					if fixed != nil {
						out.payloads = append(out.payloads, p.at(fixed[0], fixed[1]))
					} else {
						out.payloads = append(out.payloads, p.at(int32(i), int32(j)))
					}
				}
			}
			if !legitimateInvisible(s, i, j, prev, kind) {
				switch n := len(out.invisible); {
				case fixed != nil:
					out.invisible = append(out.invisible, invisibleRun{kind, int(fixed[0]), int(fixed[1])})
				case n > 0 && out.invisible[n-1].kind == kind && out.invisible[n-1].hi == i:
					out.invisible[n-1].hi = j
				default:
					out.invisible = append(out.invisible, invisibleRun{kind, i, j})
				}
			}
			i = j
			continue
		}
		switch {
		case r == '‘' || r == '’':
			runes = append(runes, gateRune{'\'', lo, hi})
		case r == '“' || r == '”':
			runes = append(runes, gateRune{'"', lo, hi})
		default:
			d := norm.NFKD.PropertiesString(s[i:]).Decomposition()
			if d == nil {
				d = []byte(s[i : i+size])
			}
			for len(d) > 0 {
				r2, n := utf8.DecodeRune(d)
				d = d[n:]
				if unicode.Is(unicode.Mn, r2) {
					continue
				}
				if r2 >= 0x3400 && r2 <= 0x9FFF {
					r2 = foldHan(r2)
				}
				if f, ok := letterFold[r2]; ok {
					for k := 0; k < len(f); k++ {
						runes = append(runes, gateRune{rune(f[k]), lo, hi})
					}
					continue
				}
				if _, ok := confusableASCII[r2]; ok {
					lookalike = true
				}
				runes = append(runes, gateRune{r2, lo, hi})
			}
		}
		prev = r
		i += size
	}
	if lookalike {
		runes = unconfuse(runes)
	}
	out.view = render(runes)
	return out
}

// hantBits marks the characters of U+3400–U+9FFF that hantFold maps, so a
// simplified character costs a bit test, not a map look-up.
var hantBits = func() (b [(0x9FFF-0x3400)/64 + 1]uint64) {
	for r := range hantFold {
		b[(r-0x3400)/64] |= 1 << ((r - 0x3400) % 64)
	}
	return b
}()

// foldHan reads a Han character of U+3400–U+9FFF written in its traditional
// form as its simplified one.
func foldHan(r rune) rune {
	if hantBits[(r-0x3400)/64]&(1<<((r-0x3400)%64)) == 0 {
		return r
	}
	return hantFold[r]
}

// render writes runes as a view, each byte mapped to its rune's span.
func render(runes []gateRune) gateView {
	var v gateView
	var b strings.Builder
	b.Grow(len(runes))
	v.lo = make([]int32, 0, len(runes)+8)
	v.hi = make([]int32, 0, len(runes)+8)
	for _, gr := range runes {
		n := utf8.RuneLen(gr.r)
		if n < 0 {
			gr.r, n = utf8.RuneError, 3
		}
		b.WriteRune(gr.r)
		for range n {
			v.lo = append(v.lo, gr.lo)
			v.hi = append(v.hi, gr.hi)
		}
	}
	v.text = b.String()
	return v
}

// unconfuse replaces look-alike letters by their Latin skeleton inside
// words that mix them with ASCII letters, or that are made only of
// look-alikes (a whole word typed in Cyrillic that reads as English).
func unconfuse(runes []gateRune) []gateRune {
	out := make([]gateRune, 0, len(runes))
	for i := 0; i < len(runes); {
		if !unicode.IsLetter(runes[i].r) {
			out = append(out, runes[i])
			i++
			continue
		}
		j := i
		ascii, look, other := 0, 0, 0
		for j < len(runes) && unicode.IsLetter(runes[j].r) {
			r := runes[j].r
			switch _, ok := confusableASCII[r]; {
			case r < 0x80:
				ascii++
			case ok:
				look++
			default:
				other++
			}
			j++
		}
		mapWord := look > 0 && (ascii > 0 || other == 0 && look >= 2)
		for _, gr := range runes[i:j] {
			if sk, ok := confusableASCII[gr.r]; ok && mapWord {
				for k := 0; k < len(sk); k++ {
					out = append(out, gateRune{rune(sk[k]), gr.lo, gr.hi})
				}
				continue
			}
			out = append(out, gr)
		}
		i = j
	}
	return out
}

// invisibleKind names the kind of an invisible character, or "".
func invisibleKind(r rune) string {
	switch {
	case r < 0xAD:
		return ""
	case r >= 0xE0000 && r <= 0xE007F:
		return "tag_characters"
	case unicode.Is(unicode.Variation_Selector, r):
		return "variation_selector"
	case unicode.Is(unicode.Bidi_Control, r):
		return "bidi_control"
	case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
		return "zero_width"
	case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r):
		return "default_ignorable"
	}
	return ""
}

// legitimateInvisible reports whether the invisible run s[i:j] (of kind,
// after the visible rune prev) is ordinary text: a joiner inside an emoji
// sequence, one emoji or text presentation selector after a symbol, one
// ideographic variation selector after a Han character, the tags of a
// subdivision flag, a non-joiner between letters of a script that uses it.
func legitimateInvisible(s string, i, j int, prev rune, kind string) bool {
	next, _ := utf8.DecodeRuneInString(s[j:])
	r, size := utf8.DecodeRuneInString(s[i:])
	single := i+size == j
	switch kind {
	case "zero_width":
		switch r {
		case 0x200D:
			return single && isEmojiPart(prev) && isEmojiPart(next)
		case 0x200C:
			return single && isJoiningScript(prev) && isJoiningScript(next)
		}
	case "variation_selector":
		if !single {
			return false
		}
		if r == 0xFE0E || r == 0xFE0F {
			return isEmojiPart(prev) || prev == '#' || prev == '*' || '0' <= prev && prev <= '9' || unicode.Is(unicode.Sm, prev)
		}
		if r >= 0xE0100 {
			return unicode.Is(unicode.Han, prev)
		}
		return unicode.Is(unicode.Mongolian, prev) || unicode.Is(unicode.Han, prev)
	case "tag_characters":
		last, _ := utf8.DecodeLastRuneInString(s[i:j])
		return prev == 0x1F3F4 && last == 0xE007F && j-i <= 4*8
	}
	return false
}

func isEmojiPart(r rune) bool {
	return unicode.Is(unicode.So, r) || r == 0xFE0F || r >= 0x1F3FB && r <= 0x1F3FF || r >= 0x1F000
}

func isJoiningScript(r rune) bool {
	return unicode.IsLetter(r) && r >= 0x600 && !unicode.Is(unicode.Han, r) && !unicode.Is(unicode.Cyrillic, r) &&
		!unicode.Is(unicode.Greek, r) && !unicode.Is(unicode.Latin, r)
}

// payload is decoded hidden text before it is placed.
type payload struct {
	text     string
	encoding string
}

func (p payload) at(lo, hi int32) gateView {
	n := normalise(p.text, &[2]int32{lo, hi})
	n.view.encoding = p.encoding
	return n.view
}

// decodeInvisiblePayload reads text spelled in invisible characters: tag
// characters stand for ASCII (U+E0020–E007E); variation selectors for bytes
// (U+FE00–FE0F for 0–15, U+E0100–E01EF for 16–255).
func decodeInvisiblePayload(run, kind string) (payload, bool) {
	if utf8.RuneCountInString(run) < 4 {
		return payload{}, false
	}
	var b []byte
	for _, r := range run {
		switch {
		case kind == "tag_characters" && r >= 0xE0020 && r <= 0xE007E:
			b = append(b, byte(r-0xE0000))
		case r >= 0xFE00 && r <= 0xFE0F:
			b = append(b, byte(r-0xFE00))
		case r >= 0xE0100 && r <= 0xE01EF:
			b = append(b, byte(r-0xE0100+16))
		}
	}
	if !printable(b) {
		return payload{}, false
	}
	enc := "variation_selector_payload"
	if kind == "tag_characters" {
		enc = "tag_payload"
	}
	return payload{string(b), enc}, true
}

// printable reports whether b is UTF-8 text of at least four characters,
// nearly all of them letters, digits, punctuation or spaces.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	n, good := 0, 0
	for _, r := range string(b) {
		n++
		if unicode.IsGraphic(r) || r == '\n' || r == '\t' || invisibleKind(r) != "" {
			good++
		}
	}
	return n >= 4 && good*10 >= n*9
}

// Encoded runs.

var (
	hexRun    = regexp.MustCompile(`(?:\\x[0-9A-Fa-f]{2}){4,}|\b(?:[0-9A-Fa-f]{2}[ :]?){8,}`)
	pctRun    = regexp.MustCompile(`[^\s%]*(?:%[0-9A-Fa-f]{2}[^\s%]*)+`)
	entityRun = regexp.MustCompile(`[^\s&]*(?:&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});[^\s&]*)+`)
)

// substitution replaces v.text[lo:hi] by decoded text.
type substitution struct {
	lo, hi int
	text   string
	enc    string
}

// decodedView returns v with every encoded run (base64, hex, percent
// encoding, HTML entities) replaced by what it decodes to, and whether
// anything was decoded. Decoded bytes map to the whole run they came from.
func decodedView(v *gateView) (gateView, bool) {
	out, _, ok := decodedViewHidden(v)
	return out, ok
}

// decodedViewHidden is decodedView that also returns what the decoded text
// hid: invisible characters and payloads, mapped to their runs.
func decodedViewHidden(v *gateView) (gateView, normalised, bool) {
	var hidden normalised
	var subs []substitution
	t := v.text
	if strings.IndexByte(t, '%') >= 0 {
		for _, loc := range pctRun.FindAllStringIndex(t, 8) {
			if d, ok := percentDecode(t[loc[0]:loc[1]]); ok {
				subs = append(subs, substitution{loc[0], loc[1], d, "url_encoding"})
			}
		}
	}
	if strings.IndexByte(t, '&') >= 0 {
		for _, loc := range entityRun.FindAllStringIndex(t, 8) {
			if d := html.UnescapeString(t[loc[0]:loc[1]]); d != t[loc[0]:loc[1]] {
				subs = append(subs, substitution{loc[0], loc[1], d, "html_entities"})
			}
		}
	}
	if longRun(t, 16) {
		for _, loc := range base64Runs(t, 8) {
			if d, ok := base64Decode(t[loc[0]:loc[1]]); ok {
				subs = append(subs, substitution{loc[0], loc[1], d, "base64"})
			}
		}
	}
	if strings.Contains(t, `\x`) || hexPairs(t) >= 8 {
		for _, loc := range hexRun.FindAllStringIndex(t, 8) {
			if d, ok := hexDecode(t[loc[0]:loc[1]]); ok {
				subs = append(subs, substitution{loc[0], loc[1], d, "hex"})
			}
		}
	}
	if len(subs) == 0 {
		return gateView{}, hidden, false
	}
	// Keep the first of overlapping runs, in text order.
	sortSubs(subs)
	var out gateView
	var b strings.Builder
	cur := 0
	var encs []string
	for _, sub := range subs {
		if sub.lo < cur {
			continue
		}
		if !slices.Contains(encs, sub.enc) {
			encs = append(encs, sub.enc)
		}
		b.WriteString(t[cur:sub.lo])
		out.lo = append(out.lo, v.lo[cur:sub.lo]...)
		out.hi = append(out.hi, v.hi[cur:sub.lo]...)
		lo, hi := v.origin(sub.lo, sub.hi)
		// Decoded text stands on lines of its own, so line-start patterns
		// (role lines) read it as the writer meant.
		n := normalise("\n"+sub.text+"\n", &[2]int32{int32(lo), int32(hi)})
		hidden.invisible = append(hidden.invisible, n.invisible...)
		hidden.payloads = append(hidden.payloads, n.payloads...)
		b.WriteString(n.view.text)
		out.lo = append(out.lo, n.view.lo...)
		out.hi = append(out.hi, n.view.hi...)
		cur = sub.hi
	}
	b.WriteString(t[cur:])
	out.lo = append(out.lo, v.lo[cur:]...)
	out.hi = append(out.hi, v.hi[cur:]...)
	out.text = b.String()
	out.encoding = strings.Join(encs, "_") + "_payload"
	return out, hidden, true
}

func sortSubs(subs []substitution) {
	for i := 1; i < len(subs); i++ {
		for j := i; j > 0 && subs[j].lo < subs[j-1].lo; j-- {
			subs[j], subs[j-1] = subs[j-1], subs[j]
		}
	}
}

func percentDecode(s string) (string, bool) {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s)+0 && i+2 <= len(s)-1 {
			if x, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
				b = append(b, x[0])
				i += 2
				continue
			}
		}
		if s[i] == '+' {
			b = append(b, ' ')
			continue
		}
		b = append(b, s[i])
	}
	if !utf8.Valid(b) || string(b) == s {
		return "", false
	}
	return string(b), true
}

func base64Decode(s string) (string, bool) {
	trimmed := strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(trimmed)
		if err == nil && printable(b) && len(b) >= 8 {
			return string(b), true
		}
	}
	return "", false
}

func hexDecode(s string) (string, bool) {
	clean := strings.NewReplacer(`\x`, "", " ", "", ":", "").Replace(s)
	if len(clean)%2 == 1 {
		clean = clean[:len(clean)-1]
	}
	b, err := hex.DecodeString(clean)
	if err != nil || len(b) < 4 || !printable(b) {
		return "", false
	}
	// Mostly letters and spaces: hex that spells words, not a hash.
	letters := 0
	for _, c := range b {
		if c == ' ' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 {
			letters++
		}
	}
	if letters*10 < len(b)*7 {
		return "", false
	}
	return string(b), true
}

// base64Runs returns the first n runs of 16 or more base64 characters
// (either alphabet) in t, each with up to two "=" of padding: what
// `[A-Za-z0-9+/_-]{16,}={0,2}` finds, without running an expression
// over every position.
func base64Runs(t string, n int) [][]int {
	var out [][]int
	for i := 0; i < len(t) && len(out) < n; {
		if !isBase64Char(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && isBase64Char(t[j]) {
			j++
		}
		if j-i >= 16 {
			end := j
			for end < len(t) && end-j < 2 && t[end] == '=' {
				end++
			}
			out = append(out, []int{i, end})
			j = end
		}
		i = j
	}
	return out
}

func isBase64Char(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

// longRun reports whether t holds n or more base64 characters in a row.
func longRun(t string, n int) bool {
	run := 0
	for i := 0; i < len(t); i++ {
		if isBase64Char(t[i]) {
			if run++; run >= n {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// hexPairs counts the longest stretch of hex digits (spaces and colons
// allowed between pairs), in pairs.
func hexPairs(t string) int {
	best, run := 0, 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			run++
			best = max(best, run/2)
		case c == ' ' || c == ':':
		default:
			run = 0
		}
	}
	return best
}
