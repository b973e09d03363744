package store

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseSearch: every FTS5 phrase and term the query parser builds, in
// a project's terms, is a well-quoted FTS5 string (starts and ends with a
// quote, inner quotes doubled) around a non-empty body; exact substrings and highlight terms are
// non-empty; with valid UTF-8 input everything is valid UTF-8; and a query
// holding phrases and loose words puts the phrases first among the terms.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{
		"nap", `"route check" invoice`, `下午 午睡`, `"用中文" 回答`,
		`""`, `"unterminated`, `a "" b`, `"a""b"`, `say "he said ""hi"""`,
		"\xff\"\xfe\"", "  \t\n ", `-foo AND bar* NEAR(x)`, "ｆｕｌｌ width",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := parseSearch(text)
		valid := utf8.ValidString(text)
		checkFTS := func(kind string, list [][]string) {
			for _, toks := range list {
				if len(toks) == 0 {
					t.Fatalf("empty %s (query %q)", kind, text)
				}
				for _, tok := range toks {
					if strings.TrimSpace(tok) == "" || strings.ContainsAny(tok, `" _`) {
						t.Fatalf("%s term %q is blank or holds a quote, space or '_' (query %q)", kind, tok, text)
					}
				}
				p := scopedPhrase(7, toks)
				if len(p) < 3 || p[0] != '"' || p[len(p)-1] != '"' {
					t.Fatalf("%s %q is not a quoted non-empty FTS5 string (query %q)", kind, p, text)
				}
				inner := p[1 : len(p)-1]
				if strings.ReplaceAll(inner, `""`, "") != strings.ReplaceAll(inner, `"`, "") {
					t.Fatalf("%s %q holds an undoubled quote (query %q)", kind, p, text)
				}
				if strings.TrimSpace(strings.ReplaceAll(inner, `""`, `"`)) == "" {
					t.Fatalf("%s %q is blank (query %q)", kind, p, text)
				}
				if valid && !utf8.ValidString(p) {
					t.Fatalf("%s %q is not valid UTF-8 (query %q)", kind, p, text)
				}
			}
		}
		checkFTS("phrase", q.phrases)
		checkFTS("term", q.any)
		for _, list := range [][]string{q.exact, q.highlight} {
			for _, s := range list {
				if strings.TrimSpace(s) == "" {
					t.Fatalf("blank exact/highlight term in %+v (query %q)", q, text)
				}
				if valid && !utf8.ValidString(s) {
					t.Fatalf("term %q is not valid UTF-8 (query %q)", s, text)
				}
				if !strings.Contains(text, s) {
					t.Fatalf("term %q is not in the query %q", s, text)
				}
			}
		}
		if len(q.phrases) > 0 && len(q.any) > len(q.phrases) {
			for i, p := range q.phrases {
				if !slices.Equal(q.any[i], p) {
					t.Fatalf("phrase %q not first among the terms %v", p, q.any)
				}
			}
		}
	})
}
