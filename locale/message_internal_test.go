package locale

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// catalogFields lists every message id of the catalogs (both languages)
// with the template fields any of its forms uses.
func catalogFields(t *testing.T) map[string][]string {
	t.Helper()
	field := regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)
	files, err := fs.Glob(catalogFS, "catalog/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]map[string]bool{}
	for _, f := range files {
		buf, err := catalogFS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := toml.Unmarshal(buf, &raw); err != nil {
			t.Fatal(err)
		}
		for id, v := range raw {
			if fields[id] == nil {
				fields[id] = map[string]bool{}
			}
			var srcs []string
			switch v := v.(type) {
			case string:
				srcs = append(srcs, v)
			case map[string]any:
				for _, form := range v {
					if s, ok := form.(string); ok {
						srcs = append(srcs, s)
					}
				}
			}
			for _, src := range srcs {
				for _, m := range field.FindAllStringSubmatch(src, -1) {
					fields[id][m[1]] = true
				}
			}
		}
	}
	out := map[string][]string{}
	for id, fs := range fields {
		out[id] = []string{}
		for f := range fs {
			out[id] = append(out[id], f)
		}
		sort.Strings(out[id])
	}
	return out
}

// slow is what localize answered before messages were prepared: go-i18n on
// every call.
func slow(l *Localizer, id string, n int, counted bool, kv []any) (string, bool) {
	s, err := l.localizeSlow(id, n, counted, kv)
	if err != nil && s == "" {
		return id, true
	}
	return s, err != nil
}

// counts cover every CLDR plural class of both languages, the remembered
// range's edges and beyond it.
var counts = []int{-1, 0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 19, 20, 21, 22, 100, 101, 102, 111, 1000, 1001, 1023, 1024, 1025, 12345, 1000000}

// compareAll checks the prepared path against go-i18n for every catalog
// id in both languages: no values, string and integer values for its
// fields, a repeated name, a field left out, and each count; and the
// missing hook hears of the same ids.
func compareAll(t *testing.T, ids map[string][]string, localizer func(code string) *Localizer) int {
	checked := 0
	for _, code := range Languages {
		base := localizer(code)
		for id, fields := range ids {
			calls := [][]any{nil}
			var strs, ints, repeated, partial []any
			for i, f := range fields {
				strs = append(strs, f, "v"+f)
				ints = append(ints, f, 40+i)
				repeated = append(repeated, f, "first", f, int64(7))
				if i > 0 {
					partial = append(partial, f, "only")
				}
			}
			calls = append(calls, []any{"Odd"})
			if len(fields) > 0 {
				calls = append(calls, append(strs, "Extra", "x"), ints, repeated, partial)
			}
			for _, kv := range calls {
				for _, c := range append([]int{-2}, counts...) {
					counted := c != -2
					var fast, slowMissing []string
					l := base.OnMissing(func(id string) { fast = append(fast, id) })
					var got string
					skv := kv
					if counted {
						got = l.N(id, c, kv...)
						// N adds the formatted count as {{.Count}}.
						skv = append(append([]any{}, kv...), "Count", l.Number(c))
					} else {
						got = l.T(id, kv...)
					}
					want, missing := slow(l, id, c, counted, skv)
					if missing {
						slowMissing = []string{id}
					}
					if got != want || fmt.Sprint(fast) != fmt.Sprint(slowMissing) {
						t.Errorf("%s %q kv=%v count=%d counted=%v: got %q (missing %v), want %q (missing %v)",
							code, id, kv, c, counted, got, fast, want, slowMissing)
					}
					checked++
				}
			}
			s, ok := base.translated(id)
			ws, wtag, err := base.loc.LocalizeWithTag(&i18n.LocalizeConfig{MessageID: id})
			if wok := err == nil && wtag == base.tag; s != ws && wok || ok != wok {
				t.Errorf("%s translated(%q) = %q, %v; want %q, %v", code, id, s, ok, ws, wok)
			}
		}
	}
	return checked
}

func TestPreparedMessagesMatchGoI18n(t *testing.T) {
	ids := catalogFields(t)
	ids["no.such.message"] = []string{"Name"}
	for _, code := range Languages {
		l := For(code)
		if For(code) != l {
			t.Errorf("For(%q) builds a new localizer per call", code)
		}
		// The pages' messages take the prepared path.
		for _, id := range []string{"timeline.turn", "timeline.event_count", "nav.events", "event_role.user"} {
			if l.msgs[id] == nil {
				t.Errorf("%s: %q is not prepared", code, id)
			}
		}
	}
	n := compareAll(t, ids, For)
	t.Logf("%d calls compared over %d ids", n, len(ids))
}

// TestPreparedMessagesConcurrent compares from several goroutines at once,
// sharing the localizers and the plural rules' remembered answers (run it
// with -race).
func TestPreparedMessagesConcurrent(t *testing.T) {
	ids := catalogFields(t)
	some := map[string][]string{}
	for _, id := range []string{"timeline.turn", "timeline.event_count", "memory.event_count", "nav.events", "duration.days"} {
		some[id] = ids[id]
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { compareAll(t, some, For) })
	}
	wg.Wait()
}

// TestPreparedMessagesFallback covers what the real catalogs do not hold
// (TestCatalogs keeps both languages complete): ids only English has,
// forms a language lacks, empty messages, delimiters and templates beyond
// {{.Field}}.
func TestPreparedMessagesFallback(t *testing.T) {
	files := map[string]string{
		"catalog/a.en.toml": `
plain = "Plain"
field = "Hello {{.Name}}"
en_only = "Only {{.Name}} in English"
complex = "{{if .Name}}named {{.Name}}{{else}}nameless{{end}}"
empty = ""
["counted"]
one = "{{.Count}} thing"
other = "{{.Count}} things"
["one_only"]
one = "just {{.Count}}"
["delims"]
leftDelim = "<<"
rightDelim = ">>"
other = "<<.Count>> with delimiters"
`,
		"catalog/a.zh-CN.toml": `
plain = "普通"
field = "你好 {{.Name}}"
complex = "{{.Name}}的{{printf \"%q\" .Name}}"
empty = ""
["counted"]
other = "{{.Count}} 个"
["one_only"]
one = "只有 {{.Count}}"
`,
	}
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	var parsed []*i18n.MessageFile
	ids := map[string][]string{}
	for _, name := range []string{"catalog/a.en.toml", "catalog/a.zh-CN.toml"} {
		mf, err := b.ParseMessageFileBytes([]byte(files[name]), name)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, mf)
		for _, m := range mf.Messages {
			ids[m.ID] = []string{"Count", "Name"}
		}
	}
	c, err := newCatalogs(b, parsed)
	if err != nil {
		t.Fatal(err)
	}
	zh := c.localizers[Chinese]
	if m := zh.msgs["en_only"]; m == nil || !m.fallback {
		t.Errorf("zh-CN en_only: %+v, want English's message, reported missing", m)
	}
	for _, id := range []string{"complex", "delims"} {
		if zh.msgs[id] != nil || c.localizers[English].msgs[id] != nil {
			t.Errorf("%q is prepared; it needs text/template", id)
		}
	}
	ids["no.such.message"] = []string{"Name"}
	n := compareAll(t, ids, func(code string) *Localizer { return c.localizers[code] })
	t.Logf("%d calls compared", n)
}

func TestSplitTemplate(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []part
		ok   bool
	}{
		{"plain", []part{{text: "plain"}}, true},
		{"Turn {{.Turn}}", []part{{text: "Turn "}, {field: "Turn"}}, true},
		{"{{ .A }}-{{.B2}}", []part{{field: "A"}, {text: "-"}, {field: "B2"}}, true},
		{"a }} b", []part{{text: "a }} b"}}, true},
		{"{{.A.B}}", nil, false},
		{"{{- .A}}", nil, false},
		{"{{.A -}}", nil, false},
		{"{{if .A}}x{{end}}", nil, false},
		{"{{.A | printf}}", nil, false},
		{"{{/* note */}}", nil, false},
		{"{{.A", nil, false},
		{"{{.}}", nil, false},
		{"{{.9}}", nil, false},
	} {
		got, ok := splitTemplate(tc.src)
		if ok != tc.ok || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("splitTemplate(%q) = %v, %v; want %v, %v", tc.src, got, ok, tc.want, tc.ok)
		}
	}
}

// TestEnumPrepared: Enum's lookup without building the id answers as
// T(kind.value) did, for every id of the catalogs split at each dot, for
// values they lack, and with the missing hook.
func TestEnumPrepared(t *testing.T) {
	ids := catalogFields(t)
	ids["event_role.no_such_role"] = nil
	ids["nokind.x"] = nil
	ids[strings.Repeat("k", 70)+".long_value"] = nil
	for _, code := range Languages {
		for id := range ids {
			for i := 0; i < len(id); i++ {
				if id[i] != '.' || i == len(id)-1 {
					continue
				}
				kind, value := id[:i], id[i+1:]
				var got, want []string
				l := For(code).OnMissing(func(id string) { got = append(got, id) })
				s := l.Enum(kind, value)
				ref := For(code).OnMissing(func(id string) { want = append(want, id) })
				w := ref.T(kind + "." + value)
				if w == kind+"."+value {
					w = strings.ReplaceAll(value, "_", " ")
				}
				if s != w || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s Enum(%q, %q) = %q (missing %v), want %q (missing %v)", code, kind, value, s, got, w, want)
				}
			}
		}
	}
}

// TestDateTimeFormats: the buffered Date and DateTime write what the
// formats they replaced wrote.
func TestDateTimeFormats(t *testing.T) {
	en, zh := For(English), For(Chinese)
	for _, tm := range []time.Time{
		time.Date(2026, 11, 30, 14, 5, 0, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 59, 999, time.FixedZone("X", 9*3600)),
		time.Date(999, 12, 31, 23, 59, 0, 0, time.UTC),
		time.Date(12345, 6, 7, 0, 0, 0, 0, time.UTC),
		{},
	} {
		u := tm.UTC()
		zhDate := fmt.Sprintf("%d年%d月%d日", u.Year(), u.Month(), u.Day())
		for _, c := range []struct{ got, want string }{
			{en.Date(tm), u.Format("2 Jan 2006")},
			{zh.Date(tm), zhDate},
			{en.DateTime(tm), u.Format("2 Jan 2006") + " " + u.Format("15:04") + " UTC"},
			{zh.DateTime(tm), zhDate + " " + u.Format("15:04") + " UTC"},
		} {
			if c.got != c.want {
				t.Errorf("%v: got %q, want %q", tm, c.got, c.want)
			}
		}
	}
}
