package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/mnemo-console/mnemo/governance"
)

// Terminal output in agents' transcripts. A tool's output is what a
// terminal showed: colours (SGR), cursor movement, erased lines, carriage
// returns that redraw a progress line, backspace overstrikes, window titles
// (OSC). The agents record those bytes as they came, so a real transcript
// holds ESC and its friends, which event text may not hold. Import reads
// them the way a terminal would and keeps the text a person would have seen
// (render); in message text (what the person and the model wrote) escape
// sequences and control characters are only removed, never interpreted
// (plain). The escape sequences themselves are decoded by
// github.com/charmbracelet/x/ansi's DEC-compatible parser; this file only
// says what each one does to the text.

// maxTerminalMove bounds one cursor movement or padding, so that a
// sequence like ESC[99999999B costs nothing.
const maxTerminalMove = 1024

// needsCleaning reports whether s holds a control character that event text
// may not hold, or a carriage return that is not the first half of CRLF
// (a progress line redrawn in place).
func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' || c == '\n':
		case c == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return true
			}
		case c < 0x20 || c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true // a C1 control, U+0080–U+009F
		}
	}
	return false
}

// terminal turns text with terminal control sequences into readable text.
// One is kept per parse and reused (its parser's buffers with it).
type terminal struct {
	p *ansi.Parser
	// The screen: lines of cells, the cursor, the first line of the
	// current screen (a clear starts a new one below the old, so nothing
	// already shown is lost), and a saved cursor.
	lines          [][]rune
	row, col, top  int
	savRow, savCol int
	// overstrike: the last thing done was a backspace, so an underscore
	// printed now underlines the character under it ("_\bx", "x\b_").
	overstrike bool
	plain      bool
	out        strings.Builder
}

func newTerminal() *terminal {
	t := &terminal{p: ansi.NewParser()}
	t.p.SetDataSize(1) // OSC, DCS and APC payloads are dropped unread
	t.p.SetHandler(ansi.Handler{
		Print:     t.print,
		Execute:   t.execute,
		HandleCsi: t.csi,
		HandleEsc: t.esc,
	})
	return t
}

// render is s as a terminal would show it: control sequences applied,
// then removed.
func (t *terminal) render(s string) string {
	t.reset(false)
	for i := 0; i < len(s); i++ {
		t.p.Advance(s[i])
	}
	t.out.Reset()
	for i, l := range t.lines {
		if i > 0 {
			t.out.WriteByte('\n')
		}
		t.out.WriteString(strings.TrimRight(string(l), " "))
	}
	return strings.TrimRight(t.out.String(), "\n")
}

// plainText is s without escape sequences and without the control
// characters event text may not hold; tab, line feed and carriage return
// stay as they are.
func (t *terminal) plainText(s string) string {
	t.reset(true)
	t.out.Reset()
	for i := 0; i < len(s); i++ {
		t.p.Advance(s[i])
	}
	return t.out.String()
}

func (t *terminal) reset(plain bool) {
	t.p.Reset()
	t.plain = plain
	t.lines = append(t.lines[:0], nil)
	t.row, t.col, t.top, t.savRow, t.savCol = 0, 0, 0, 0, 0
	t.overstrike = false
}

func (t *terminal) print(r rune) {
	if governance.IsControl(r) {
		return // a C1 control written as UTF-8: nothing to show
	}
	if t.plain {
		t.out.WriteRune(r)
		return
	}
	line := t.lines[t.row]
	for len(line) < t.col {
		line = append(line, ' ')
	}
	switch {
	case t.col == len(line):
		line = append(line, r)
	case t.overstrike && r == '_' && line[t.col] != ' ':
		// underlining the character already there: keep it
	default:
		line[t.col] = r
	}
	t.lines[t.row] = line
	t.col++
	t.overstrike = false
}

func (t *terminal) execute(b byte) {
	if t.plain {
		switch b {
		case '\t', '\n', '\r':
			t.out.WriteByte(b)
		}
		return
	}
	switch b {
	case '\n', '\v', '\f':
		t.down(1)
		t.col = 0
	case '\r':
		t.col = 0
	case '\b':
		if t.col > 0 {
			t.col--
		}
		t.overstrike = true
		return
	case '\t':
		t.print('\t')
	}
	t.overstrike = false
}

// down moves the cursor n lines down, adding lines as needed.
func (t *terminal) down(n int) {
	t.row += min(n, maxTerminalMove)
	for len(t.lines) <= t.row {
		t.lines = append(t.lines, nil)
	}
}

func (t *terminal) up(n int) { t.row = max(t.top, t.row-n) }

func (t *terminal) csi(cmd ansi.Cmd, params ansi.Params) {
	if t.plain || cmd.Prefix() != 0 || cmd.Intermediate() != 0 {
		return // private modes and the like change no text
	}
	n, _, _ := params.Param(0, 1)
	n = min(max(n, 1), maxTerminalMove)
	switch cmd.Final() {
	case 'A': // cursor up
		t.up(n)
	case 'B', 'e': // cursor down
		t.down(n)
	case 'C', 'a': // cursor forward
		t.col = min(t.col+n, maxTerminalMove)
	case 'D': // cursor back
		t.col = max(0, t.col-n)
	case 'E': // next line
		t.down(n)
		t.col = 0
	case 'F': // previous line
		t.up(n)
		t.col = 0
	case 'G', '`': // column
		t.col = n - 1
	case 'd': // line
		t.row = t.top
		t.down(n - 1)
	case 'H', 'f': // position
		c, _, _ := params.Param(1, 1)
		t.row = t.top
		t.down(n - 1)
		t.col = min(max(c, 1), maxTerminalMove) - 1
	case 'K': // erase in line
		t.eraseLine(paramOr0(params))
	case 'J': // erase in display
		switch paramOr0(params) {
		case 0:
			t.eraseLine(0)
			t.lines = t.lines[:t.row+1]
		case 1:
			for i := t.top; i < t.row; i++ {
				t.lines[i] = t.lines[i][:0]
			}
			t.eraseLine(1)
		default:
			t.clearScreen()
		}
	case 'X': // erase characters
		line := t.lines[t.row]
		for i := t.col; i < len(line) && i < t.col+n; i++ {
			line[i] = ' '
		}
	case 'P': // delete characters
		line := t.lines[t.row]
		if t.col < len(line) {
			t.lines[t.row] = append(line[:t.col], line[min(len(line), t.col+n):]...)
		}
	case '@': // insert blanks
		line := t.lines[t.row]
		if t.col < len(line) {
			blanks := []rune(strings.Repeat(" ", n))
			t.lines[t.row] = append(line[:t.col], append(blanks, line[t.col:]...)...)
		}
	case 's':
		t.savRow, t.savCol = t.row, t.col
	case 'u':
		t.row, t.col = max(t.top, min(t.savRow, len(t.lines)-1)), t.savCol
	}
	// SGR (colours), scrolling regions, modes and the rest: nothing to show.
}

func paramOr0(params ansi.Params) int {
	v, _, _ := params.Param(0, 0)
	return v
}

// eraseLine erases the cursor's line from the cursor (0), up to it (1) or
// whole (2).
func (t *terminal) eraseLine(mode int) {
	line := t.lines[t.row]
	switch mode {
	case 0:
		if t.col < len(line) {
			t.lines[t.row] = line[:t.col]
		}
	case 1:
		for i := 0; i <= t.col && i < len(line); i++ {
			line[i] = ' '
		}
	default:
		t.lines[t.row] = line[:0]
	}
}

// clearScreen starts a new screen below what was shown: the text stays.
func (t *terminal) clearScreen() {
	last := len(t.lines) - 1
	if len(t.lines[last]) == 0 {
		t.lines = t.lines[:last]
	}
	t.lines = append(t.lines, nil)
	t.top, t.row, t.col = len(t.lines)-1, len(t.lines)-1, 0
}

func (t *terminal) esc(cmd ansi.Cmd) {
	if t.plain || cmd.Intermediate() != 0 {
		return // charset designations and the like
	}
	switch cmd.Final() {
	case '7':
		t.savRow, t.savCol = t.row, t.col
	case '8':
		t.row, t.col = max(t.top, min(t.savRow, len(t.lines)-1)), t.savCol
	case 'D': // index
		t.down(1)
	case 'E': // next line
		t.down(1)
		t.col = 0
	case 'M': // reverse index
		t.up(1)
	case 'c': // reset
		t.clearScreen()
	}
}
