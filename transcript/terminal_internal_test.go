package transcript

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

func TestTerminalRender(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"colours", "\x1b[1;31mFAIL\x1b[0m TestDueDate \x1b[2m(0.01s)\x1b[22m", "FAIL TestDueDate (0.01s)"},
		{"256 and true colour", "\x1b[38;5;196mred\x1b[39m \x1b[38:2::255:0:0mrgb\x1b[m", "red rgb"},
		{"progress redrawn with CR", "Downloading  10%\rDownloading  55%\rDownloading 100%\ndone", "Downloading 100%\ndone"},
		{"shorter redraw keeps the tail", "abcdef\rxy", "xycdef"},
		{"redraw erased", "building 3/9\r\x1b[Kbuilt 9/9", "built 9/9"},
		{"erase whole line", "spinner |\x1b[2K\rok", "ok"},
		{"CRLF is a line end", "one\r\ntwo\r\n", "one\ntwo"},
		{"backspace bold", "B\bBo\bol\bld\bd", "Bold"},
		{"backspace underline", "_\bu_\bn", "un"},
		{"underline after the letter", "u\b_n\b_", "un"},
		{"backspace at the start", "\b\bok", "ok"},
		{"cursor up redraws a line", "step 1 ...\nstep 2 ...\x1b[1A\r\x1b[2Kstep 1 done\n\x1b[2Kstep 2 done", "step 1 done\nstep 2 done"},
		{"cursor forward pads", "a\x1b[3Cb", "a   b"},
		{"column", "hello\x1b[1GJ", "Jello"},
		{"window title and hyperlink", "\x1b]0;npm test\x07\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\ text", "link text"},
		{"bell and other controls", "ding\x07 \x0e\x0fdone\x7f", "ding done"},
		{"C1 as UTF-8", "a\u009b31mb", "a31mb"},
		{"private modes", "\x1b[?25l\x1b[?2004hready\x1b[?25h", "ready"},
		{"clear screen keeps what was shown", "old\x1b[2J\x1b[Hnew", "old\nnew"},
		{"saved cursor", "12345\x1b[s\x1b[1Gab\x1b[uZ", "ab345Z"},
		{"unicode", "\x1b[32m✓\x1b[0m 通过 — café", "✓ 通过 — café"},
		{"huge movement is bounded", "a\x1b[999999999B\x1b[999999999Cb", "a" + strings.Repeat("\n", maxTerminalMove) + strings.Repeat(" ", maxTerminalMove) + "b"},
		{"tab kept", "a\tb\x1b[0m", "a\tb"},
		{"delete and insert", "abcdef\x1b[3D\x1b[2Pz\x1b[1G\x1b[2@", "  abcz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newTerminal().render(tc.in); got != tc.want {
				t.Errorf("render(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTerminalPlain(t *testing.T) {
	term := newTerminal()
	for _, tc := range []struct{ in, want string }{
		{"see \x1b[31merror\x1b[0m here", "see error here"},
		{"keeps\r\nline ends\tand tabs\r", "keeps\r\nline ends\tand tabs\r"},
		{"no\bbackspace\x00nul", "nobackspacenul"},
		{"50%\r100%", "50%\r100%"}, // message text is not interpreted
	} {
		if got := term.plainText(tc.in); got != tc.want {
			t.Errorf("plainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if p := governance.CheckText(term.plainText(tc.in)); p != "" {
			t.Errorf("plainText(%q): %s", tc.in, p)
		}
	}
}

func TestNeedsCleaning(t *testing.T) {
	for in, want := range map[string]bool{
		"plain":         false,
		"tab\tand\nlf":  false,
		"crlf\r\nonly":  false,
		"progress\rbar": true,
		"ends in cr\r":  true,
		"\x1b[0m":       true,
		"del\x7f":       true,
		"c1 \u0085":     true,
		"é and 中文":      false,
	} {
		if got := needsCleaning(in); got != want {
			t.Errorf("needsCleaning(%q) = %v, want %v", in, got, want)
		}
	}
}

// Whatever bytes a tool printed, rendered text is valid event text.
func FuzzTerminalRender(f *testing.F) {
	for _, s := range []string{"\x1b[31mx\x1b[0m", "a\rb\bc", "\x1b]0;t\x07", "\x1b[5A\x1b[2J", "\x1bP1;2|x\x1b\\", "\u009b1m"} {
		f.Add(s)
	}
	term := newTerminal()
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || len(s) > 1<<12 {
			return // lines() refuses invalid UTF-8 before any text is read
		}
		for _, out := range []string{term.render(s), term.plainText(s)} {
			if p := governance.CheckText(out); p != "" {
				t.Fatalf("cleaned %q into %q: %s", s, out, p)
			}
		}
	})
}
