package locale

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/nicksnyder/go-i18n/v2/i18n"
)

// Sentences that carry a value ("Rule %d is not in project %s.") are kept
// in the catalogs under their English fmt format, and the other language's
// entry is a fmt format too, which may reorder the values with explicit
// indexes (%[2]s). Code that still has the values (a *governance.Error, the
// command line) translates with Phrasef; text that was formatted earlier
// and kept (a field error, an eval case's reason, a followed file's last
// error) is matched against the English formats by Phrase.

// verb is one fmt verb of a format: %d, %q, %[2]s, %.2f, %%.
var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0-9.]*[a-zA-Z%]`)

// HasVerbs reports whether s is a fmt format with at least one value.
func HasVerbs(s string) bool {
	for _, m := range verb.FindAllString(s, -1) {
		if m != "%%" {
			return true
		}
	}
	return false
}

// Verbs lists the values a format uses as "argument number:verb letter"
// (explicit indexes resolved), sorted: a translation must use the same.
func Verbs(format string) []string {
	var out []string
	n := 0
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if m[0] == "%%" {
			continue
		}
		if m[1] != "" {
			n, _ = strconv.Atoi(strings.Trim(m[1], "[]"))
		} else {
			n++
		}
		out = append(out, strconv.Itoa(n)+":"+m[0][len(m[0])-1:])
	}
	sort.Strings(out)
	return out
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

// translated is the catalog entry of id in l's language, if it has one.
func (l *Localizer) translated(id string) (string, bool) {
	if m := l.msgs[id]; m != nil {
		if s, missing, ok := m.execute(0, false, nil); ok {
			return s, !missing
		}
	}
	s, tag, err := l.loc.LocalizeWithTag(&i18n.LocalizeConfig{MessageID: id})
	if err != nil || tag != l.tag {
		return "", false
	}
	return s, true
}

// Phrasef formats a sentence with values: the catalog's translation of the
// English format, filled with args. A value that is itself an English
// sentence is translated too. With no entry, the English sentence.
func (l *Localizer) Phrasef(format string, args ...any) string {
	if l.code == English {
		return fmt.Sprintf(format, args...)
	}
	tr, ok := l.translated(format)
	if !ok {
		return l.Phrase(fmt.Sprintf(format, args...))
	}
	vals := make([]any, len(args))
	for i, a := range args {
		// A string value (a status's typed string too) may be a sentence
		// or a labelled word.
		if v := reflect.ValueOf(a); v.IsValid() && v.Kind() == reflect.String {
			if s := v.String(); l.value(s, 3) != s {
				a = l.value(s, 3)
			}
		}
		vals[i] = a
	}
	return fmt.Sprintf(tr, vals...)
}

// value is one value of a sentence in l's language: a sentence itself (it
// has a space) translated; a word of the "value" area (a status, an
// action, a role that an English sentence names) labelled; anything else
// (a name, a number, an id) as it is.
func (l *Localizer) value(v string, depth int) string {
	if strings.Contains(v, " ") {
		return l.phrase(v, depth)
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
				v = l.value(v, depth-1)
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

// ErrorMessage is err's user-safe message in l's language: a
// *governance.Error's format and values translated (Phrasef), other errors
// as governance.ErrorMessage, translated when the catalogs hold it.
func (l *Localizer) ErrorMessage(err error) string {
	var e *governance.Error
	if errors.As(err, &e) && e.Format != "" && l.code != English {
		// A whole sentence of the catalogs ("Rule not found.") says it
		// better than its format with an English word filled in.
		if s, ok := l.translated(e.Message); ok {
			return s
		}
		if _, ok := l.translated(e.Format); ok {
			return l.Phrasef(e.Format, e.Args...)
		}
	}
	return l.Phrase(governance.ErrorMessage(err))
}

// ShortDuration formats a measured time (a request, an eval case): "12 ms",
// "1.4 s", and from a minute on as Duration does.
func (l *Localizer) ShortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return l.T("duration.ms", "N", l.Number(int(d.Round(time.Millisecond)/time.Millisecond)))
	case d < time.Minute:
		return l.T("duration.s", "N", strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64))
	}
	return l.Duration(d)
}
