package locale

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
)

// Text translates a sentence kept as its message id and values: the
// catalog's translation of the id (its English fmt format) filled with the
// values, each in its turn translated (a Text, a constant sentence, a
// labelled word). Lines translate one by one, one a line. An id the
// catalogs lack comes out in English.
func (l *Localizer) Text(t governance.Text) string {
	return l.text(t, 4)
}

func (l *Localizer) text(t governance.Text, depth int) string {
	if len(t.Lines) > 0 {
		out := make([]string, len(t.Lines))
		for i, line := range t.Lines {
			out[i] = l.text(line, depth)
		}
		return strings.Join(out, "\n")
	}
	if len(t.Args) == 0 {
		if !HasVerbs(t.ID) {
			// A constant sentence, or a message id.
			if s, ok := l.translated(t.ID); ok {
				return s
			}
		}
		// No entry, or a stored English sentence that holds a "%".
		return t.ID
	}
	if l.code == English {
		return l.english(t)
	}
	tr, ok := l.translated(t.ID)
	if !ok && strings.IndexFunc(t.ID, unicode.IsLetter) < 0 {
		// A format of values alone ("%s", "%s: %s") says nothing itself.
		tr, ok = t.ID, true
	}
	if !ok {
		return l.english(t)
	}
	vals := make([]any, len(t.Args))
	for i, a := range t.Args {
		vals[i] = l.arg(a, depth)
	}
	return fmt.Sprintf(tr, vals...)
}

// english is t in English, its nested sentences too.
func (l *Localizer) english(t governance.Text) string {
	vals := make([]any, len(t.Args))
	for i, a := range t.Args {
		if nt, ok := a.(governance.Text); ok {
			a = l.english(nt)
		}
		vals[i] = a
	}
	return fmt.Sprintf(t.ID, vals...)
}

// arg is one value of a sentence in l's language: a Text translated; a
// string (a typed one too) that is a sentence of the catalogs, or a word
// of the "value" area (a status, an action, a role), translated; anything
// else (a name, a number, an id) as it is.
func (l *Localizer) arg(a any, depth int) any {
	if t, ok := a.(governance.Text); ok {
		if depth == 0 {
			return t.String()
		}
		return l.text(t, depth-1)
	}
	if v := reflect.ValueOf(a); v.IsValid() && v.Kind() == reflect.String {
		return l.value(v.String())
	}
	return a
}
