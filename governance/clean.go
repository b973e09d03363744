package governance

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Input hygiene: the one place that says what clean input is. Every way in
// (API JSON and NDJSON, MCP, CLI and web import, eval suites, forms) checks
// with these functions.
//
//   - Identifiers (event, session and subject ids, tool names, statuses) are
//     valid UTF-8 made of printable characters only: no control character
//     (C0, DEL, C1, so no ANSI escape), no format character (bidi
//     embeddings, overrides and isolates, zero-width characters, tags), no
//     line or paragraph separator, no space other than U+0020 and none at
//     either end.
//   - Text (event text, form fields, suite text) is valid UTF-8 with no
//     control character other than tab, line feed and carriage return.
//     Invisible format characters in text are left to the write gate, which
//     reports them; they never reach a memory unseen.
//   - Slugs are 1–64 characters of a-z, 0-9, '-', '_' and '.', starting
//     with a letter or digit.

// CheckIdentifier returns what is wrong with an identifier, or "".
func CheckIdentifier(v string) string {
	if !utf8.ValidString(v) {
		return "is not valid UTF-8"
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return fmt.Sprintf("holds the non-printable character %U", r)
		}
	}
	if strings.TrimSpace(v) != v {
		return "starts or ends with a space"
	}
	if strings.ContainsRune(v, utf8.RuneError) {
		// What a decoder makes of an invalid byte or escape (a JSON lone
		// surrogate, \udfff): two different ids would become one.
		return "holds U+FFFD, the replacement for an invalid character or escape"
	}
	if v != "" && !visible(v) {
		return "has no visible character (only marks, fillers or blanks)"
	}
	return ""
}

// visible reports whether v has a character that shows: not a mark, a
// default-ignorable code point (U+3164 HANGUL FILLER and its kin) or a
// blank pattern (U+2800 BRAILLE PATTERN BLANK).
func visible(v string) bool {
	for _, r := range v {
		if !unicode.IsMark(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) &&
			!unicode.Is(unicode.Variation_Selector, r) && r != '\u2800' {
			return true
		}
	}
	return false
}

// CheckText returns what is wrong with a text, or "".
func CheckText(v string) string {
	if !utf8.ValidString(v) {
		return "is not valid UTF-8"
	}
	for _, r := range v {
		if IsControl(r) {
			return fmt.Sprintf("holds the control character %U", r)
		}
	}
	return ""
}

// IsControl reports a control character that text may not hold: C0 except
// tab, line feed and carriage return; DEL; C1.
func IsControl(r rune) bool {
	switch r {
	case '\t', '\n', '\r':
		return false
	}
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// CheckSlug returns what is wrong with a project slug, or "".
func CheckSlug(v string) string {
	switch {
	case v == "":
		return "is required"
	case len(v) > 64:
		return "is longer than 64 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '_' || c == '.') && i > 0:
		default:
			return "may hold only a-z, 0-9, '-', '_' and '.', starting with a letter or digit"
		}
	}
	return ""
}
