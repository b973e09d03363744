// Package locale translates what the console shows people: the web pages,
// their messages and the command line's sentences. Catalogs are TOML files
// embedded from locale/catalog, named <area>.<language>.toml (one area per
// part of the console, so parallel changes touch different files), read by
// go-i18n; plural forms follow the CLDR rules of each language. A message
// id lives in exactly one area.
package locale

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/width"
)

//go:embed catalog/*.toml
var catalogFS embed.FS

// The languages of the console, in the order the language switch lists
// them. English is the fallback for everything.
const (
	English = "en"
	Chinese = "zh-CN"
)

// Languages lists the supported language codes.
var Languages = []string{English, Chinese}

// LanguageName is each language's name in itself, for the switch.
func LanguageName(code string) string {
	switch code {
	case Chinese:
		return "简体中文"
	}
	return "English"
}

var tags = []language.Tag{language.English, language.SimplifiedChinese}

var matcher = language.NewMatcher(tags)

// catalogs are the embedded catalogs, parsed once, with a localizer of
// each language built over them.
type catalogs struct {
	bundle     *i18n.Bundle
	localizers map[string]*Localizer
}

// load parses the embedded catalogs once. They are part of the binary, so
// an error here is a build defect that TestCatalogs reports.
var load = sync.OnceValues(func() (*catalogs, error) {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	files, err := fs.Glob(catalogFS, "catalog/*.toml")
	if err != nil {
		return nil, err
	}
	var parsed []*i18n.MessageFile
	for _, f := range files {
		buf, err := catalogFS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		mf, err := b.ParseMessageFileBytes(buf, f)
		if err != nil {
			return nil, fmt.Errorf("locale: %s: %w", f, err)
		}
		parsed = append(parsed, mf)
	}
	return newCatalogs(b, parsed)
})

// newCatalogs builds each language's localizer over the bundle b, which
// holds the message files parsed.
func newCatalogs(b *i18n.Bundle, parsed []*i18n.MessageFile) (*catalogs, error) {
	rules, err := newPluralRules(b.LanguageTags())
	if err != nil {
		return nil, fmt.Errorf("locale: plural rules: %w", err)
	}
	c := &catalogs{bundle: b, localizers: map[string]*Localizer{}}
	for _, code := range Languages {
		l := newLocalizer(b, code)
		l.msgs = resolve(parsed, l.tag, rules)
		c.localizers[code] = l
	}
	return c, nil
}

// Check parses the catalogs and reports the first defect: a file that does
// not parse, or a message id defined in two areas of one language.
func Check() error {
	if _, err := load(); err != nil {
		return err
	}
	for _, code := range Languages {
		if _, err := Catalog(code); err != nil {
			return err
		}
	}
	return nil
}

// Catalog returns the raw message ids of one language, from all its area
// files; an id defined twice is an error.
func Catalog(code string) (map[string]bool, error) {
	files, err := fs.Glob(catalogFS, "catalog/*."+code+".toml")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("locale: no catalog for %q", code)
	}
	ids := map[string]bool{}
	where := map[string]string{}
	for _, f := range files {
		buf, err := catalogFS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var raw map[string]any
		if err := toml.Unmarshal(buf, &raw); err != nil {
			return nil, fmt.Errorf("locale: %s: %w", f, err)
		}
		for k := range raw {
			if prev, dup := where[k]; dup {
				return nil, fmt.Errorf("locale: %q is defined in both %s and %s", k, prev, f)
			}
			ids[k], where[k] = true, f
		}
	}
	return ids, nil
}

// Match picks the language for a person: their saved choice when it is
// one of Languages, else the best match of an Accept-Language header, else
// English.
func Match(saved, acceptLanguage string) string {
	if Supported(saved) {
		return saved
	}
	prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(prefs) == 0 {
		return English
	}
	_, i, conf := matcher.Match(prefs...)
	if conf == language.No {
		return English
	}
	return Languages[i]
}

// Supported reports whether code names a language of the console.
func Supported(code string) bool {
	for _, l := range Languages {
		if l == code {
			return true
		}
	}
	return false
}

// Localizer translates messages into one language. It is immutable and
// shared by every request of its language.
type Localizer struct {
	code    string
	tag     language.Tag
	loc     *i18n.Localizer
	printer *message.Printer
	// msgs are the language's catalog messages prepared once (message.go);
	// ids not in it go through loc.
	msgs map[string]*entry
	// missing, when set, is called with every id the catalogs lack (tests).
	missing func(id string)
}

// For returns the localizer of a language code (English when unknown).
func For(code string) *Localizer {
	if !Supported(code) {
		code = English
	}
	c, err := load()
	if err != nil {
		return newLocalizer(i18n.NewBundle(language.English), code)
	}
	return c.localizers[code]
}

func newLocalizer(b *i18n.Bundle, code string) *Localizer {
	tag := language.MustParse(code)
	return &Localizer{code: code, tag: tag, loc: i18n.NewLocalizer(b, code), printer: message.NewPrinter(tag)}
}

// OnMissing returns a copy of l that calls f with every message id the
// catalogs lack; tests use it to fail on an unknown id.
func (l *Localizer) OnMissing(f func(id string)) *Localizer {
	c := *l
	c.missing = f
	return &c
}

// Lang is the language code (en, zh-CN), for <html lang>.
func (l *Localizer) Lang() string { return l.code }

// T translates the message id. kv are name/value pairs filled into the
// message's {{.Name}} fields. An id missing from the catalogs comes out as
// itself, so a page still renders; tests make that fail.
func (l *Localizer) T(id string, kv ...any) string {
	return l.localize(id, 0, false, kv)
}

// N translates a message with plural forms for count n; the message sees
// the formatted number as {{.Count}}.
func (l *Localizer) N(id string, n int, kv ...any) string {
	return l.localize(id, n, true, append(kv, "Count", l.Number(n)))
}

func (l *Localizer) localize(id string, n int, counted bool, kv []any) string {
	if m := l.msgs[id]; m != nil {
		if s, missing, ok := m.execute(n, counted, kv); ok {
			return l.found(id, s, missing)
		}
	}
	s, err := l.localizeSlow(id, n, counted, kv)
	return l.found(id, s, err != nil)
}

// found is what a translation of id comes out as: s, or id itself when
// empty; a message the language lacks is reported to the missing hook.
func (l *Localizer) found(id, s string, missing bool) string {
	if missing && l.missing != nil {
		l.missing(id)
	}
	if missing && s == "" {
		return id
	}
	return s
}

// localizeSlow asks go-i18n, which matches the language and executes the
// message's template on every call: for ids the catalogs lack, messages
// that need text/template, and values message.go does not print.
func (l *Localizer) localizeSlow(id string, n int, counted bool, kv []any) (string, error) {
	var data map[string]any
	if len(kv) > 0 {
		data = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			data[k] = kv[i+1]
		}
	}
	var count any
	if counted {
		count = n
	}
	return l.loc.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count})
}

// Phrase translates a constant sentence that Go code wrote in English (a
// page title, an error's message): the catalogs hold such sentences under
// their English text. A sentence that carries values is a governance.Text
// (see Text); a sentence with no entry is shown as it is.
func (l *Localizer) Phrase(english string) string {
	if english == "" || l.code == English {
		return english
	}
	if s, ok := l.translated(english); ok {
		return s
	}
	return english
}

// Has reports whether the catalog of l's language defines id.
func (l *Localizer) Has(id string) bool {
	_, tag, err := l.loc.LocalizeWithTag(&i18n.LocalizeConfig{MessageID: id})
	return err == nil && tag == l.tag
}

// Number formats an integer with the language's digit grouping.
func (l *Localizer) Number(n int) string {
	if n > -1000 && n < 1000 {
		return strconv.Itoa(n)
	}
	return l.printer.Sprintf("%d", n)
}

// Width is the number of terminal columns s takes: East Asian wide and
// full-width characters (Chinese) take two.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// Pad fills s with spaces on the right to n terminal columns, for tables
// of the command line (text/tabwriter counts a Chinese character as one
// column, so its columns slip).
func Pad(s string, n int) string {
	if w := Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// Date formats a day: "30 Nov 2026" or "2026年11月30日" (UTC).
func (l *Localizer) Date(t time.Time) string {
	var buf [32]byte
	return string(l.appendDate(buf[:0], t.UTC()))
}

func (l *Localizer) appendDate(b []byte, t time.Time) []byte {
	if l.code == Chinese {
		b = strconv.AppendInt(b, int64(t.Year()), 10)
		b = strconv.AppendInt(append(b, "年"...), int64(t.Month()), 10)
		b = strconv.AppendInt(append(b, "月"...), int64(t.Day()), 10)
		return append(b, "日"...)
	}
	return t.AppendFormat(b, "2 Jan 2006")
}

// DateTime formats a moment to the minute, in UTC, which the console's
// times are kept in: "30 Nov 2026 14:05 UTC" or "2026年11月30日 14:05 UTC".
// Pages show one per event, so it is built in one buffer.
func (l *Localizer) DateTime(t time.Time) string {
	t = t.UTC()
	var buf [48]byte
	b := t.AppendFormat(append(l.appendDate(buf[:0], t), ' '), "15:04")
	return string(append(b, " UTC"...))
}

// Duration formats a length of time in words of the language.
func (l *Localizer) Duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return l.N("duration.seconds", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		return l.N("duration.minutes", int(d.Round(time.Minute)/time.Minute))
	case d < 48*time.Hour:
		return l.N("duration.hours", int(d.Round(time.Hour)/time.Hour))
	}
	return l.N("duration.days", int(d.Round(24*time.Hour)/(24*time.Hour)))
}

// Enum is the human label of an enumerated value (a status, a reason, a
// role): the message "<kind>.<value>". Values with no label come out as
// themselves with underscores turned into spaces, and tests make that fail.
func (l *Localizer) Enum(kind, value string) string {
	if value == "" {
		return ""
	}
	// Pages label a role or status per event: look the prepared message up
	// without building the id as a string.
	var buf [64]byte
	key := append(append(append(buf[:0], kind...), '.'), value...)
	if m := l.msgs[string(key)]; m != nil {
		if s, missing, ok := m.execute(0, false, nil); ok && !missing && s != string(key) {
			return s
		}
	}
	id := kind + "." + value
	s := l.T(id)
	if s == id {
		return strings.ReplaceAll(value, "_", " ")
	}
	return s
}

type ctxKey struct{}

// With returns ctx carrying l.
func With(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the localizer ctx carries, or English.
func From(ctx context.Context) *Localizer {
	if l, ok := ctx.Value(ctxKey{}).(*Localizer); ok {
		return l
	}
	return For(English)
}
