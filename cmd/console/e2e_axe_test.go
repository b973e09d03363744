package main

import (
	_ "embed"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core, vendored from npm for the tests only
// (testdata/axe-core/README.md); the console never serves it.
//
//go:embed testdata/axe-core/axe.min.js
var axeSource string

// axeRun runs every axe-core rule (WCAG 2 A and AA and best practices) on
// the open page and lists its violations, one line each: the rule, its
// impact and the first elements it names.
const axeRun = `(async () => {
	const r = await axe.run(document, { resultTypes: ['violations'] });
	return r.violations.map((v) => v.id + ' (' + v.impact + ', ' + v.nodes.length + '): ' + v.help + ': ' +
		v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' {' + (n.failureSummary || '').split('\n').slice(1, 2).join('').trim() + '}').join('; '));
})()`

// axeViolations injects axe-core into the open page (once per document)
// and returns what it finds.
func (b *e2eBrowser) axeViolations() []string {
	b.t.Helper()
	if !b.eval(`typeof window.axe === 'object'`) {
		if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](axeSource+"\n;true")); err != nil {
			b.t.Fatalf("injecting axe-core: %v", err)
		}
	}
	found, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe-core: %v", err)
	}
	return found
}

// TestAxeFindsViolations: the check can fail. A page given an image
// without a text alternative and a button without a name has violations.
func TestAxeFindsViolations(t *testing.T) {
	e2eChrome(t)
	t.Parallel()
	m := e2eConsole(t)
	b := newE2EBrowser(t, m, "admin", 1280, 900)
	b.do(chromedp.Navigate(b.base + "/"))
	if found := b.axeViolations(); len(found) != 0 {
		t.Errorf("the dashboard has axe-core violations: %q", found)
	}
	b.do(chromedp.Navigate(b.base + "/"))
	b.eval(`(() => { const m = document.querySelector('main'); m.insertAdjacentHTML('beforeend', '<img src="/static/favicon.svg"><button></button>'); return true })()`)
	found := b.axeViolations()
	for _, rule := range []string{"image-alt", "button-name"} {
		if !strings.Contains(strings.Join(found, "\n"), rule+" ") {
			t.Errorf("axe-core did not report %s: %q", rule, found)
		}
	}
}
