package main

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/locale"
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
	// The navigation bar: the text of no two items may overlap, and each
	// lies inside the window.
	const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
	const items = [...document.querySelectorAll('body > header nav > ul > li')].filter(shown);
	const boxes = items.map((li) => {
		const el = li.querySelector(':scope > a, :scope > details > summary') || li;
		const range = document.createRange();
		range.selectNodeContents(el);
		let r = range.getBoundingClientRect();
		if (getComputedStyle(el).overflowX !== 'visible') {
			// Text cut with an ellipsis shows only what fits its box.
			const box = el.getBoundingClientRect();
			r = new DOMRect(Math.max(r.left, box.left), r.top, Math.max(0, Math.min(r.right, box.right) - Math.max(r.left, box.left)), r.height);
		}
		return { name: el.textContent.trim().slice(0, 20), r };
	}).filter((b) => b.r.width > 0);
	for (const li of items) {
		const s = getComputedStyle(li);
		if (s.display === 'list-item' && s.listStyleType !== 'none') {
			out.push('navigation item "' + (li.querySelector(':scope > a, :scope > details > summary') || li).textContent.trim().slice(0, 20) + '" draws a list marker over the item before it');
		}
	}
	for (let i = 0; i < boxes.length; i++) {
		const a = boxes[i].r;
		if (a.left < -1 || a.right > window.innerWidth + 1) {
			out.push('navigation item "' + boxes[i].name + '" is outside the window');
		}
		for (let j = i + 1; j < boxes.length; j++) {
			const b = boxes[j].r;
			if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
				out.push('navigation items "' + boxes[i].name + '" and "' + boxes[j].name + '" overlap');
			}
		}
	}
	// A column of free text keeps a readable width (.cell-text: 12em, about
	// twelve Chinese characters a line).
	for (const cell of document.querySelectorAll('main td.cell-text')) {
		if (!shown(cell)) continue;
		const em = parseFloat(getComputedStyle(cell).fontSize);
		if (cell.getBoundingClientRect().width < 11 * em) {
			out.push('text column of table ' + (cell.closest('table').dataset.testid || '') + ' is ' + Math.round(cell.getBoundingClientRect().width) + 'px wide');
			break;
		}
	}
	// No two labels of a form overlap (the choices of a merge did).
	const labels = [...document.querySelectorAll('main label')].filter((l) => shown(l) && !l.closest('details:not([open])'));
	for (let i = 0; i < labels.length; i++) {
		const a = labels[i].getBoundingClientRect();
		for (let j = i + 1; j < labels.length && j < i + 12; j++) {
			const b = labels[j].getBoundingClientRect();
			if (labels[i].contains(labels[j]) || labels[j].contains(labels[i])) continue;
			if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
				out.push('labels "' + labels[i].textContent.trim().slice(0, 20) + '" and "' + labels[j].textContent.trim().slice(0, 20) + '" overlap');
			}
		}
	}
	// No word is cut across two lines ("Rejec|t") and no text runs a
	// letter or two a line (a column squeezed to one character): the text
	// of the bar and the page, outside code, fields and long tokens (an
	// id, path or URL of more than 24 characters may wrap anywhere).
	const lines = (rects) => {
		const tops = [];
		for (const r of rects) {
			if (r.width > 0 && r.height > 0 && !tops.some((t) => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
		}
		return tops.length;
	};
	const where = (el) => {
		const box = el.closest('td, th, button, a, summary, label, li, dd, dt, p, h1, h2, h3, legend') || el;
		return box.tagName.toLowerCase() + (box.dataset.testid ? '[' + box.dataset.testid + ']' : '');
	};
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	const range = document.createRange();
	let node, words = 0, squeezed = 0, broken = 0;
	while ((node = walker.nextNode())) {
		const el = node.parentElement;
		if (!el || el.closest('textarea, select, script, style, [data-raw], .visually-hidden') || !shown(el)) continue;
		const text = node.data;
		if (text.trim().length >= 3) {
			range.selectNodeContents(node);
			const n = lines(range.getClientRects());
			const chars = text.replace(/\s+/g, '').length;
			if (n >= 3 && chars / n < 2.5 && squeezed < 5) {
				squeezed++;
				out.push('"' + text.trim().slice(0, 30) + '" runs ' + chars + ' characters on ' + n + ' lines in ' + where(el));
			}
		}
		for (const token of text.matchAll(/\S+/g)) {
			if (token[0].length > 24) continue;
			for (const m of token[0].matchAll(/[A-Za-z0-9_'’]+/g)) {
				if (m[0].length < 2 || words > 6000) continue;
				words++;
				range.setStart(node, token.index + m.index);
				range.setEnd(node, token.index + m.index + m[0].length);
				if (lines(range.getClientRects()) > 1 && broken < 5) {
					broken++;
					out.push('the word "' + m[0] + '" is broken across lines in ' + where(el));
				}
			}
		}
	}
	return out;
})()`

// rawLabels lists what the page says outside code, fields and ids that is
// an enumerated value's raw identifier (repeated_across_sessions) instead
// of its label. The identifiers come from the English catalog's labels.
func rawLabels(t *testing.T) string {
	t.Helper()
	ids, err := locale.Catalog(locale.English)
	if err != nil {
		t.Fatal(err)
	}
	var raw []string
	for id := range ids {
		kind, value, ok := strings.Cut(id, ".")
		if ok && strings.Contains(value, "_") && strings.Contains(kind, "_") && !strings.ContainsAny(value, " %") {
			raw = append(raw, value)
		}
	}
	if len(raw) < 8 {
		t.Fatalf("only %d raw identifiers: %v", len(raw), raw)
	}
	list, _ := json.Marshal(raw)
	return `(() => {
	const main = document.querySelector('main').cloneNode(true);
	for (const el of main.querySelectorAll('code, pre, kbd, textarea, select, input, script, [data-raw]')) el.remove();
	const text = main.innerText || main.textContent;
	return ` + string(list) + `.filter((id) => new RegExp('(^|[^a-z_])' + id + '($|[^a-z_])').test(text));
})()`
}

// TestE2ELayoutEveryPage visits every page each role can reach, on a
// 390 px phone and a 1280 px laptop, in one browser: no page is wider than
// the window and no table clips its content.
func TestE2ELayoutEveryPage(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	b := newE2EBrowserFor(t, m, "admin", 1280, 900, 20*time.Minute)
	widths := []int64{1280, 390}
	resize := func(width int64) {
		if _, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: 900, DeviceScaleFactor: 1, // not Mobile: a phone browser zooms out to fit a page too wide, which would hide the overflow

		}); err != nil {
			t.Fatal(err)
		}
		// The page's own resize handlers run before the next frame.
		if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`, chromedp.EvalAwaitPromise)); err != nil {
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
	// ... and words cut inside: a button whose word breaks at any letter,
	// and a column too narrow for more than a character a line.
	b.do(chromedp.Navigate(b.base + "/"))
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => {
		const button = document.createElement('button');
		button.textContent = 'Reject';
		button.style.width = '3em';
		button.style.overflowWrap = 'anywhere';
		const column = document.createElement('div');
		column.textContent = '记忆治理控制台';
		column.style.width = '1.2em';
		document.querySelector('main').append(button, column);
		return true;
	})()`)); err != nil {
		t.Fatal(err)
	}
	if problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](layoutProblems)); err != nil ||
		!slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, `"Reject" is broken`) }) ||
		!slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "记忆治理控制台") }) {
		t.Fatalf("a word broken inside and a text one character wide were not both reported: %q (%v)", problems, err)
	}
	// measure checks the open page at each width: its layout, and, at
	// axeWidth (0: none), axe-core (contrast, names, landmarks, keyboard
	// reach of what scrolls).
	axeRuns, axeTime := 0, time.Duration(0)
	measure := func(what string, axeWidth int64) {
		for _, width := range widths {
			resize(width)
			problems, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](layoutProblems))
			if err != nil {
				t.Fatalf("%s at %dpx: %v", what, width, err)
			}
			for _, pr := range problems {
				t.Errorf("%s at %dpx: %s", what, width, pr)
			}
			if width == axeWidth {
				axeRuns++
				start := time.Now()
				defer func() { axeTime += time.Since(start) }()
				for _, v := range b.axeViolations() {
					t.Errorf("%s at %dpx: axe-core: %s", what, width, v)
				}
			}
		}
	}
	// axe-core, the slow part, checks each kind of page once per role
	// (pages that differ only in ids or a project's slug are one kind), in
	// English on a laptop; a member's pages, which a phone shows most,
	// again in Chinese on a phone.
	kind := regexp.MustCompile(`[0-9]+|/projects/[^/?]+`)
	axed := map[string]bool{}
	axeAt := func(user, lang, page string) int64 {
		if lang != locale.English && user != "family-chen" {
			return 0
		}
		u, _ := url.Parse(page)
		keys := slices.Sorted(maps.Keys(u.Query()))
		key := user + " " + lang + " " + kind.ReplaceAllString(u.Path, "N") + "?" + strings.Join(keys, "&")
		if axed[key] {
			return 0
		}
		axed[key] = true
		if lang == locale.English {
			return widths[0]
		}
		return widths[1]
	}
	ctx := context.Background()
	raw := rawLabels(t)
	for _, user := range []string{"admin", "reviewer", "family-chen"} {
		pages, status, from := crawl(t, m, user, 1, 80)
		// Every link a role is shown leads somewhere it may go.
		for u, st := range status {
			if st >= 400 {
				t.Errorf("%s is shown a link to %s that answers %d (on %s)", user, u, st, from[u])
			}
		}
		if user == "admin" {
			pages = withAdminPages(t, m, pages)
		}
		account, err := m.Store.FindAccountByUsername(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		name, value := sessionCookie(t, m, user)
		httpOnly := true
		if _, err := chromedp.Call(b.ctx, network.SetCookie, network.SetCookieParams{
			Name: name, Value: value, URL: b.base + "/", HTTPOnly: &httpOnly, SameSite: network.CookieSameSiteLax,
		}); err != nil {
			t.Fatal(err)
		}
		// Once in each language: Chinese labels are wider than English ones,
		// and a CJK font wraps differently.
		for _, lang := range locale.Languages {
			if err := m.Store.SetAccountLanguage(ctx, account.ID, lang); err != nil {
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
				if !b.eval(`document.documentElement.lang === ` + strconv.Quote(lang)) {
					t.Fatalf("%s as %s: the page is not in %s", p, user, lang)
				}
				// Measured at each width without reloading: the layout follows
				// the window as it does when a phone turns.
				measure(p+" as "+user+" in "+lang, axeAt(user, lang, p))
				if found, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](raw)); err != nil {
					t.Fatal(err)
				} else if len(found) > 0 {
					t.Errorf("%s as %s in %s shows raw identifiers %q", p, user, lang, found)
				}
			}
			if user != "family-chen" {
				// A recall with a result: the package, the trace and the scope.
				resize(widths[0])
				b.do(chromedp.Navigate(b.base+"/recall"),
					chromedp.SetValue(css(testidSel("recall-task")), "带孩子去北京玩三天"),
					chromedp.Click(css(testidSel("recall-submit"))),
					chromedp.WaitVisible(css(testidSel("recall-summary"))))
				measure("a recall result as "+user+" in "+lang, axeAt(user, lang, "/recall?result"))
				visited++
			}
			t.Logf("%s in %s: %d pages at %v px (axe-core: %d runs so far, %v)", user, lang, visited, widths, axeRuns, axeTime.Round(time.Second))
		}
	}
}
