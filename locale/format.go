package locale

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/nicksnyder/go-i18n/v2/i18n"
)

// Sentences that carry a value ("Rule %d is not in project %s.") are kept
// in the catalogs under their English fmt format, and the other language's
// entry is a fmt format too, which may reorder the values with explicit
// indexes (%[2]s). Such a sentence travels as a governance.Text (its format
// and values) from where it is made to where it is shown, stored as JSON
// when it is kept, and is translated with its values (Text, Phrasef);
// English text is never read back into a format.

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
// English format, filled with args, each translated (Text). With no entry,
// the English sentence.
func (l *Localizer) Phrasef(format string, args ...any) string {
	return l.Text(governance.Say(format, args...))
}

// value is a string value of a sentence in l's language: a constant
// sentence of the catalogs (it has a space) translated; a word of the
// "value" area (a status, an action, a role that an English sentence
// names) labelled; anything else (a name, a number, an id) as it is.
func (l *Localizer) value(v string) string {
	if strings.Contains(v, " ") {
		return l.Phrase(v)
	}
	if v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz_") == "" {
		if s, ok := l.translated("value." + v); ok {
			return s
		}
	}
	return v
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
	return l.Text(governance.ErrorText(err))
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
