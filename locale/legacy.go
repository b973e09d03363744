package locale

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Legacy reading of English text back into catalog formats. The one path
// for a sentence with values is a governance.Text translated with its
// values (Text); what is here serves only the callers that still hand
// formatted English — a skill version's reason, an eval case's problems
// that its kind keeps as English only, and an eval run's error — and goes
// when they carry Texts too (docs/i18n.md names them and why).

// PhraseFormatted translates English text that a catalog format produced
// (or several such sentences, one a line or joined by "; ") by reading
// its values back. A sentence no format matches is shown as it is.
func (l *Localizer) PhraseFormatted(english string) string {
	return l.legacyPhrase(english, 3)
}

func (l *Localizer) legacyPhrase(english string, depth int) string {
	if english == "" || l.code == English {
		return english
	}
	if s, ok := l.translated(english); ok {
		return s
	}
	// A text of several sentences, one a line, translates line by line;
	// a list joined by "; " item by item when every item is a sentence of
	// the catalogs (a format's lazy value would swallow the rest of the
	// list), else as a whole when a format matches it.
	if s, ok := l.legacySplit(english, "\n", depth, false); ok {
		return s
	}
	if s, ok := l.legacySplit(english, "; ", depth, true); ok {
		return s
	}
	if s, ok := l.match(english, depth); ok {
		return s
	}
	if s, ok := l.legacySplit(english, "; ", depth, false); ok {
		return s
	}
	// "name: sentence" (a field, a step, a file) translates the sentence.
	if i := strings.Index(english, ": "); i > 0 && depth > 0 && !strings.Contains(english[:i], " ") {
		if rest := l.legacyPhrase(english[i+2:], depth-1); rest != english[i+2:] {
			return l.T("msg.labelled", "Label", english[:i], "Text", rest)
		}
	}
	return english
}

// split translates the parts of english between sep, when all of them
// translate (every) or at least one does.
func (l *Localizer) legacySplit(english, sep string, depth int, every bool) (string, bool) {
	if depth == 0 || !strings.Contains(english, sep) {
		return "", false
	}
	parts := strings.Split(english, sep)
	changed := 0
	for i, p := range parts {
		if tr := l.legacyPhrase(p, depth-1); tr != p {
			parts[i] = tr
			changed++
		}
	}
	if changed == 0 || every && changed < len(parts) {
		return "", false
	}
	if sep == "; " {
		sep = l.T("msg.list_separator")
	}
	return strings.Join(parts, sep), true
}

// pattern is a catalog format turned into a regular expression that
// matches the English sentences it formats.
type pattern struct {
	id      string
	re      *regexp.Regexp
	args    []int // the argument number of each capture
	literal int   // length of the fixed text: the longer, the more specific
}

var patterns = sync.OnceValue(func() []pattern {
	ids, err := Catalog(English)
	if err != nil {
		return nil
	}
	var ps []pattern
	for id := range ids {
		if !HasVerbs(id) {
			continue
		}
		if p, ok := compile(id); ok {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].literal != ps[j].literal {
			return ps[i].literal > ps[j].literal
		}
		return ps[i].id < ps[j].id
	})
	return ps
})

func compile(format string) (pattern, bool) {
	p := pattern{id: format}
	var b strings.Builder
	b.WriteString(`^(?s)`)
	last, n := 0, 0
	for _, loc := range verb.FindAllStringSubmatchIndex(format, -1) {
		lit := format[last:loc[0]]
		b.WriteString(regexp.QuoteMeta(lit))
		p.literal += len(lit)
		last = loc[1]
		m := format[loc[0]:loc[1]]
		if m == "%%" {
			b.WriteString("%")
			continue
		}
		if loc[2] >= 0 {
			n, _ = strconv.Atoi(format[loc[2]+1 : loc[3]-1])
		} else {
			n++
		}
		p.args = append(p.args, n)
		switch m[len(m)-1] {
		case 'd':
			b.WriteString(`(-?\d+)`)
		case 'q':
			b.WriteString(`("(?:[^"\\]|\\.)*")`)
		default:
			b.WriteString(`(.+?)`)
		}
	}
	lit := format[last:]
	b.WriteString(regexp.QuoteMeta(lit) + `$`)
	p.literal += len(lit)
	if p.literal < 4 {
		return p, false // "%s: %s" would match anything
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return p, false
	}
	p.re = re
	return p, true
}

// value is one value of a sentence in l's language: a sentence itself (it
// has a space) translated; a word of the "value" area (a status, an
// action, a role that an English sentence names) labelled; anything else
// (a name, a number, an id) as it is.
func (l *Localizer) legacyValue(v string, depth int) string {
	if strings.Contains(v, " ") {
		return l.legacyPhrase(v, depth)
	}
	if v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz_") == "" {
		if s, ok := l.translated("value." + v); ok {
			return s
		}
	}
	return v
}

// match translates an English sentence that a catalog format produced, by
// reading its values back; depth bounds the translation of values that are
// sentences themselves.
func (l *Localizer) match(english string, depth int) (string, bool) {
	for _, p := range patterns() {
		m := p.re.FindStringSubmatch(english)
		if m == nil {
			continue
		}
		tr, ok := l.translated(p.id)
		if !ok {
			continue
		}
		byArg := map[int]string{}
		for i, n := range p.args {
			v := m[i+1]
			if depth > 0 && !strings.HasPrefix(v, `"`) {
				v = l.legacyValue(v, depth-1)
			}
			byArg[n] = v
		}
		n := 0
		out := verb.ReplaceAllStringFunc(tr, func(vb string) string {
			if vb == "%%" {
				return "%"
			}
			if i := strings.IndexByte(vb, ']'); strings.HasPrefix(vb, "%[") && i > 0 {
				n, _ = strconv.Atoi(vb[2:i])
			} else {
				n++
			}
			return byArg[n]
		})
		return out, true
	}
	return "", false
}
