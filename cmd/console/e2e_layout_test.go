package main

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// crawl follows the console's links from "/" as one account over plain
// HTTP (the session cookie of a browser), and returns every address it
// reached with the status it got. Addresses that differ only in ids count
// as one page; at most perPattern of each are fetched.
func crawl(t *testing.T, m *Main, username string, perPattern, limit int) (pages []string, status map[string]int, from map[string]string) {
	t.Helper()
	name, value := sessionCookie(t, m, username)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	status, from = map[string]int{}, map[string]string{}
	seen := map[string]int{}
	queue := []string{"/"}
	from["/"] = "(start)"
	digits := regexp.MustCompile(`[0-9]+`)
	for len(queue) > 0 && len(status) < limit {
		u := queue[0]
		queue = queue[1:]
		req, _ := http.NewRequest(http.MethodGet, m.URL()+u, nil)
		req.AddCookie(&http.Cookie{Name: name, Value: value})
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		status[u] = res.StatusCode
		isHTML := strings.HasPrefix(res.Header.Get("Content-Type"), "text/html")
		if res.StatusCode != http.StatusOK || !isHTML {
			res.Body.Close()
			continue
		}
		pages = append(pages, u)
		doc, err := goquery.NewDocumentFromReader(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			ref, err := url.Parse(href)
			if err != nil || ref.Host != "" || ref.Scheme != "" || !strings.HasPrefix(ref.Path, "/") {
				return
			}
			ref.Fragment = ""
			next := ref.RequestURI()
			if _, ok := from[next]; ok {
				return
			}
			keys := []string{}
			for k := range ref.Query() {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			pattern := digits.ReplaceAllString(ref.Path, "N") + "?" + strings.Join(keys, "&")
			if seen[pattern] >= perPattern {
				return
			}
			seen[pattern]++
			from[next] = u
			queue = append(queue, next)
		})
	}
	return pages, status, from
}

// TestE2ECrawlAsAdmin: every link an administrator can follow answers 2xx.
func TestE2ECrawlAsAdmin(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	pages, status, from := crawl(t, m, "admin", 3, 600)
	if len(pages) < 20 {
		t.Fatalf("the crawl reached only %d pages", len(pages))
	}
	bad := 0
	for u, st := range status {
		if st < 200 || st > 299 {
			bad++
			t.Errorf("GET %s = %d (linked from %s)", u, st, from[u])
		}
	}
	requireAdminPagesCrawled(t, status)
	t.Logf("%d addresses, %d pages, %d not 2xx", len(status), len(pages), bad)
}

// layoutProblems measures the open page: is the document wider than the
// window, and does a table clip its content (a cell or a box around a
// table that hides what does not fit)?
const layoutProblems = `(() => {
	const out = [];
	const doc = document.documentElement;
	if (doc.scrollWidth > window.innerWidth + 1) {
		let widest = null, w = 0;
		for (const el of document.querySelectorAll('main *, header *')) {
			const r = el.getBoundingClientRect();
			if (r.right > w && getComputedStyle(el).position !== 'fixed') { w = r.right; widest = el; }
		}
		const name = widest ? widest.tagName.toLowerCase() + (widest.className ? '.' + String(widest.className).split(' ').join('.') : '') + (widest.dataset.testid ? '[' + widest.dataset.testid + ']' : '') : '?';
		out.push('page is ' + doc.scrollWidth + 'px wide in a ' + window.innerWidth + 'px window (widest: ' + name + ')');
	}
	for (const table of document.querySelectorAll('main table')) {
		for (const cell of table.querySelectorAll('td, th')) {
			const s = getComputedStyle(cell);
			if (s.overflow !== 'visible' && cell.scrollWidth > cell.clientWidth + 1) {
				out.push('a cell of table ' + (table.dataset.testid || '') + ' clips: ' + cell.textContent.trim().slice(0, 40));
				break;
			}
		}
		let box = table.parentElement;
		while (box && box.tagName !== 'MAIN') {
			const s = getComputedStyle(box);
			if ((s.overflowX === 'hidden' || s.overflowX === 'clip') && table.scrollWidth > box.clientWidth + 1) {
				out.push('table ' + (table.dataset.testid || '') + ' is cut off by its box');
				break;
			}
			box = box.parentElement;
		}
	}
	return out;
})()`

// TestE2ELayoutEveryPage visits every page each role can reach, on a
// 390 px phone and a 1280 px laptop, in one browser: no page is wider than
// the window and no table clips its content.
func TestE2ELayoutEveryPage(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	b := newE2EBrowserFor(t, m, "admin", 1280, 900, 10*time.Minute)
	widths := []int64{1280, 390}
	resize := func(width int64) {
		if _, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: 900, DeviceScaleFactor: 1, // not Mobile: a phone browser zooms out to fit a page too wide, which would hide the overflow

		}); err != nil {
			t.Fatal(err)
		}
	}
	// The measure itself finds a page made too wide on purpose.
	resize(390)
	b.do(chromedp.Navigate(b.base + "/"))
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => { const d = document.createElement('div'); d.style.width = '900px'; d.style.height = '1px'; document.querySelector('main').append(d); return true })()`)); err != nil {
		t.Fatal(err)
	}
	if problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](layoutProblems)); err != nil || len(problems) == 0 {
		t.Fatalf("a 900 px element at 390 px was not reported (%v)", err)
	}
	for _, user := range []string{"admin", "reviewer", "family-chen"} {
		pages, _, _ := crawl(t, m, user, 1, 80)
		if user == "admin" {
			pages = withAdminPages(t, m, pages)
		}
		name, value := sessionCookie(t, m, user)
		httpOnly := true
		if _, err := chromedp.Call(b.ctx, network.SetCookie, network.SetCookieParams{
			Name: name, Value: value, URL: b.base + "/", HTTPOnly: &httpOnly, SameSite: network.CookieSameSiteLax,
		}); err != nil {
			t.Fatal(err)
		}
		visited := 0
		for _, p := range pages {
			if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".csv") || strings.Contains(p, "/export/") {
				continue // downloads, not pages
			}
			visited++
			resize(widths[0])
			b.do(chromedp.Navigate(b.base + p))
			// Measured at each width without reloading: the layout follows
			// the window as it does when a phone turns.
			for _, width := range widths {
				resize(width)
				problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](layoutProblems))
				if err != nil {
					t.Fatalf("%s as %s at %dpx: %v", p, user, width, err)
				}
				for _, pr := range problems {
					t.Errorf("%s as %s at %dpx: %s", p, user, width, pr)
				}
			}
		}
		t.Logf("%s: %d pages at %v px", user, visited, widths)
	}
}
