package locale

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// The catalogs never change once loaded, so each language's messages are
// resolved once, when they are loaded, the way go-i18n's Localize resolves
// them on every call: the language's own message, else English's (which
// Localize reports as missing). A message whose templates use nothing of
// text/template but literal text and {{.Field}} references (all of the
// catalogs today) is split into those parts, and T and N fill them in
// directly: no language matching, no map of the values, no template
// execution per call. Anything else goes through go-i18n as before.

// The plural forms, in go-i18n's names; other is the default.
const (
	zero = iota
	one
	two
	few
	many
	other
	numForms
)

var formNames = [numForms]string{"zero", "one", "two", "few", "many", "other"}

// entry is one catalog message as one language's localizer finds it.
type entry struct {
	forms [numForms][]part // nil: the message has no such form
	// fallback: the language lacks the id and English's message is shown;
	// go-i18n reports that as an error, so the missing hook hears of it.
	fallback bool
	// plural picks the form for a count, by the rule of the language the
	// message is in.
	plural *pluralRule
}

// part is literal text, or the value of a template field when field is set.
type part struct {
	text, field string
}

// newMessage prepares m, or reports that some form of it needs text/template.
func newMessage(m *i18n.Message, fallback bool, plural *pluralRule) (*entry, bool) {
	if m.LeftDelim != "" || m.RightDelim != "" {
		return nil, false
	}
	out := &entry{fallback: fallback, plural: plural}
	for f, src := range [numForms]string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
		if src == "" {
			continue // go-i18n keeps no template for an empty form
		}
		parts, ok := splitTemplate(src)
		if !ok {
			return nil, false
		}
		out.forms[f] = parts
	}
	return out, true
}

// splitTemplate splits a message template made only of literal text and
// {{.Field}} actions (spaces allowed inside the braces); any other action,
// or an unclosed one, is not split.
func splitTemplate(src string) ([]part, bool) {
	var parts []part
	for src != "" {
		i := strings.Index(src, "{{")
		if i < 0 {
			parts = append(parts, part{text: src})
			break
		}
		if i > 0 {
			parts = append(parts, part{text: src[:i]})
		}
		j := strings.Index(src[i+2:], "}}")
		if j < 0 {
			return nil, false
		}
		field, ok := fieldName(src[i+2 : i+2+j])
		if !ok {
			return nil, false
		}
		parts = append(parts, part{field: field})
		src = src[i+2+j+2:]
	}
	return parts, true
}

// fieldName reads an action's content " .Name " as Name: an ASCII
// identifier after one dot. Trim markers ({{- -}}), pipelines, functions
// and chained fields are refused.
func fieldName(action string) (string, bool) {
	s := strings.Trim(action, " ")
	if len(s) < 2 || s[0] != '.' || action[0] == '-' || action[len(action)-1] == '-' {
		return "", false
	}
	name := s[1:]
	for k := 0; k < len(name); k++ {
		c := name[k]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (k == 0 || c < '0' || c > '9') {
			return "", false
		}
	}
	return name, true
}

// execute fills the message's form for count n (other when !counted) with
// the name/value pairs kv, as go-i18n's Localize would: a form the message
// lacks falls back to other and counts as missing, and with no other either
// the result is empty. ok is false when a value is not of a type this path
// prints exactly as text/template does (a string or an integer): the caller
// asks go-i18n.
func (m *entry) execute(n int, counted bool, kv []any) (s string, missing, ok bool) {
	f := other
	if counted {
		f = m.plural.form(n)
	}
	missing = m.fallback
	parts := m.forms[f]
	if parts == nil {
		missing = true
		if f != other {
			parts = m.forms[other]
		}
	}
	switch {
	case parts == nil:
		return "", true, true
	case len(parts) == 1 && parts[0].field == "":
		return parts[0].text, missing, true
	}
	var b strings.Builder
	for _, p := range parts {
		if p.field == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := fieldValue(kv, p.field)
		if !ok {
			return "", false, false
		}
		b.WriteString(v)
	}
	return b.String(), missing, true
}

// fieldValue is how text/template prints the field name of the map that
// localize builds from kv: the last pair's value wins, and a name with no
// pair prints as "<no value>".
func fieldValue(kv []any, name string) (string, bool) {
	for i := (len(kv)/2 - 1) * 2; i >= 0; i -= 2 {
		if k, _ := kv[i].(string); k != name {
			continue
		}
		switch v := kv[i+1].(type) {
		case string:
			return v, true
		case int:
			return strconv.Itoa(v), true
		case int64:
			return strconv.FormatInt(v, 10), true
		}
		return "", false
	}
	return "<no value>", true
}

// pluralRule is go-i18n's CLDR plural rule of one language, read through
// a localizer of a bundle whose one message names, in each of its forms,
// that form: localizing it with a count answers the count's form. Answers
// for counts 0 to 1023 are remembered.
type pluralRule struct {
	loc  *i18n.Localizer
	seen [1024]atomic.Uint32 // form+1; 0: not asked yet
}

const pluralProbe = "plural_form"

// newPluralRules returns the rule of each of the bundle's languages.
func newPluralRules(tags []language.Tag) (map[language.Tag]*pluralRule, error) {
	b := i18n.NewBundle(language.English)
	probe := &i18n.Message{ID: pluralProbe, Zero: formNames[zero], One: formNames[one], Two: formNames[two],
		Few: formNames[few], Many: formNames[many], Other: formNames[other]}
	rules := map[language.Tag]*pluralRule{}
	for _, tag := range tags {
		if err := b.AddMessages(tag, probe); err != nil {
			return nil, err
		}
	}
	for _, tag := range tags {
		rules[tag] = &pluralRule{loc: i18n.NewLocalizer(b, tag.String())}
	}
	return rules, nil
}

// form is the plural form of count n.
func (p *pluralRule) form(n int) int {
	if n >= 0 && n < len(p.seen) {
		if f := p.seen[n].Load(); f != 0 {
			return int(f - 1)
		}
	}
	name, err := p.loc.Localize(&i18n.LocalizeConfig{MessageID: pluralProbe, PluralCount: n})
	f := other
	if err == nil {
		for k, fn := range formNames {
			if fn == name {
				f = k
			}
		}
	}
	if n >= 0 && n < len(p.seen) {
		p.seen[n].Store(uint32(f + 1))
	}
	return f
}

// resolve prepares every message of files for the localizer of tag: its own
// message of each id, else the English one. Ids some form of which needs
// text/template are left out, and so go through go-i18n.
func resolve(files []*i18n.MessageFile, tag language.Tag, rules map[language.Tag]*pluralRule) map[string]*entry {
	byTag := map[language.Tag]map[string]*i18n.Message{}
	for _, f := range files {
		if byTag[f.Tag] == nil {
			byTag[f.Tag] = map[string]*i18n.Message{}
		}
		for _, m := range f.Messages {
			byTag[f.Tag][m.ID] = m // a later file wins, as in the bundle
		}
	}
	out := map[string]*entry{}
	for _, msgs := range byTag {
		for id := range msgs {
			if _, done := out[id]; done {
				continue
			}
			m, in := byTag[tag][id], tag
			if !hasForm(m) {
				m, in = byTag[language.English][id], language.English
			}
			if !hasForm(m) || rules[in] == nil {
				continue
			}
			if prepared, ok := newMessage(m, in != tag, rules[in]); ok {
				out[id] = prepared
			}
		}
	}
	return out
}

// hasForm reports whether m has a template at all: go-i18n treats a message
// with every form empty as absent.
func hasForm(m *i18n.Message) bool {
	return m != nil && m.Zero+m.One+m.Two+m.Few+m.Many+m.Other != ""
}
