package main

import (
	"context"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/locale"
)

// catalogEnglish lists the fixed English fragments of the interface: the
// English catalog's texts cut at their values ({{.X}}, %d), kept when they
// are a phrase (two words or more) and the Chinese catalog says them
// differently. One of them on a Chinese page is a sentence that skipped
// translation.
func catalogEnglish(t *testing.T) []string {
	t.Helper()
	ids, err := locale.Catalog(locale.English)
	if err != nil {
		t.Fatal(err)
	}
	en, zh := locale.For(locale.English), locale.For(locale.Chinese)
	cut := regexp.MustCompile(`\{\{[^}]*\}\}|%(\[\d+\])?[-+# 0-9.]*[a-zA-Z%]|[\n\t]`)
	phrase := regexp.MustCompile(`^[A-Za-z][A-Za-z'’-]+(?: [A-Za-z'’-]+)+[.,;:!?]?$`)
	seen := map[string]bool{}
	var out []string
	for id := range ids {
		if strings.HasPrefix(id, "cli.") {
			continue
		}
		e := en.T(id)
		if e == id && strings.Contains(id, ".") || e == zh.T(id) {
			continue // a plural (needs a count) or the same in both
		}
		for _, f := range cut.Split(e, -1) {
			f = strings.TrimSpace(f)
			if len(f) >= 12 && phrase.MatchString(f) && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestE2EChinesePagesSayNoCatalogEnglish crawls every page an admin, a
// reviewer and a member reach, in Chinese, over HTTP, and fails when a page
// shows a fixed English phrase of the catalogs outside code and form
// values: a heading, a reason or a button that Go code passed through
// untranslated (the "forget everything about me" page did; a candidate's
// "Blocked by the write gate" reason did on the candidates page).
func TestE2EChinesePagesSayNoCatalogEnglish(t *testing.T) {
	if testing.Short() {
		t.Skip("crawl skipped with -short")
	}
	t.Parallel()
	m := e2eConsole(t)
	ctx := context.Background()
	fragments := catalogEnglish(t)
	if len(fragments) < 200 {
		t.Fatalf("only %d English fragments; is the scan broken?", len(fragments))
	}
	// Reasons the heartbeat stores in English and pages translate.
	fragments = append(fragments, "Blocked by the write gate", "Repeated across", "Adds evidence to rule", "Said by")
	space := regexp.MustCompile(`\s+`)
	pages := 0
	for _, user := range []string{"admin", "reviewer", "family-chen"} {
		list, _, _ := crawl(t, m, user, 2, 200)
		if user == "admin" {
			list = withAdminPages(t, m, list)
		}
		list = append(list, "/me/forget")
		a, err := m.Store.FindAccountByUsername(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Store.SetAccountLanguage(ctx, a.ID, locale.Chinese); err != nil {
			t.Fatal(err)
		}
		name, value := sessionCookie(t, m, user)
		for _, p := range list {
			req, _ := http.NewRequest(http.MethodGet, m.URL()+p, nil)
			req.AddCookie(&http.Cookie{Name: name, Value: value})
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				res.Body.Close()
				continue
			}
			doc, err := goquery.NewDocumentFromReader(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			pages++
			doc.Find("code, pre, kbd, textarea, select, input, script, style, [data-raw]").Remove()
			text := space.ReplaceAllString(doc.Find("body").Text(), " ")
			for _, f := range fragments {
				if strings.Contains(text, f) {
					t.Errorf("%s as %s in Chinese shows %q", p, user, f)
				}
			}
		}
	}
	t.Logf("%d pages, %d English fragments looked for", pages, len(fragments))
}
