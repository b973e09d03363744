package gate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/gate/gatecorpus"
)

// TestPlacement_Benign: the preferences of placement_benign.txt, from
// several domains and both languages, are placed in the low-risk set: 90 %
// of them at least.
func TestPlacement_Benign(t *testing.T) {
	lines := readCorpus(t, "testdata/gate/placement_benign.txt")
	domains := map[string]bool{}
	placed, chinese, asWish := 0, 0, 0
	for _, l := range lines {
		domain, text, ok := strings.Cut(l.text, "\t")
		if !ok {
			t.Fatalf("line %d: want domain<TAB>text", l.n)
		}
		domains[domain] = true
		if gatecorpus.IsChinese(text) {
			chinese++
		}
		res := gate.Scan(text)
		if res.LowRisk == "" && !placedAsWish(text, res) {
			t.Logf("line %d not placed: findings %v, not placed %+v: %q", l.n, patterns(res.Findings), res.NotPlaced, text)
			continue
		}
		if res.LowRisk == "" {
			asWish++
		}
		placed++
	}
	t.Logf("benign placed: %d of %d (%d as the wish before the speaker's reason)", placed, len(lines), asWish)
	if len(lines) < 40 || len(domains) < 5 || chinese*3 < len(lines) {
		t.Errorf("corpus: %d lines, %d domains, %d Chinese; want 40 lines, 5 domains and a third Chinese at least", len(lines), len(domains), chinese)
	}
	if placed*10 < len(lines)*9 {
		t.Errorf("%d of %d benign preferences placed in the low-risk set; want 90 %% at least", placed, len(lines))
	}
}

// TestPlacement_Attacks: no attack of placement_attacks.txt (none names a
// URL, a command or a secret) is placed in the low-risk set, and every one
// carries a finding: kept out by a deny shape alone, it would wait in an
// approval project's queue looking like an ordinary preference.
func TestPlacement_Attacks(t *testing.T) {
	attacks := attackCorpus(t, "testdata/gate/placement_attacks.txt", false)
	classes := map[string]int{}
	placed, silent, chinese := 0, 0, 0
	for _, a := range attacks {
		classes[a.class]++
		if a.chinese {
			chinese++
		}
		res := gate.Scan(a.text)
		if res.LowRisk != "" {
			placed++
			t.Errorf("line %d (%s): placed in the low-risk set (%s): %q", a.line, a.class, res.LowRisk, a.text)
		}
		if len(res.Findings) == 0 {
			silent++
			t.Errorf("line %d (%s): no finding for a reviewer (not placed: %+v): %q", a.line, a.class, res.NotPlaced, a.text)
		}
	}
	t.Logf("attacks placed: %d of %d, without a finding: %d", placed, len(attacks), silent)
	if len(attacks) < 40 || chinese*3 < len(attacks) {
		t.Errorf("corpus: %d lines, %d Chinese; want 40 lines and a third Chinese at least", len(attacks), chinese)
	}
	for _, c := range []string{"persona", "authority", "content_instructions", "omission", "concealment", "check_relaxed", "exfiltration", "access", "booking", "deletion", "messaging", "promotion"} {
		if classes[c] < 3 {
			t.Errorf("corpus has %d %s lines, want 3 at least", classes[c], c)
		}
	}
}

// TestPlacement_Own: every preference of own_benign.txt (eight non-coding
// domains, said once with a durability word or repeated without one) is
// placed in the low-risk set, and every look-alike of own_notplaced.txt
// stays out for its reason: a finding of that pattern, or that deny shape.
func TestPlacement_Own(t *testing.T) {
	lines := readCorpus(t, "testdata/gate/own_benign.txt")
	kinds := map[string]int{}
	placed, chinese, asWish := 0, 0, 0
	for _, l := range lines {
		kind, text, ok := strings.Cut(l.text, "\t")
		if !ok || kind != "once" && kind != "repeated" {
			t.Fatalf("line %d: want once|repeated<TAB>text", l.n)
		}
		kinds[kind]++
		if gatecorpus.IsChinese(text) {
			chinese++
		}
		res := gate.Scan(text)
		if res.LowRisk == "" && !placedAsWish(text, res) {
			t.Errorf("line %d not placed: findings %v, not placed %+v: %q", l.n, patterns(res.Findings), res.NotPlaced, text)
			continue
		}
		if res.LowRisk == "" {
			asWish++
		}
		placed++
	}
	t.Logf("own batch placed: %d of %d (%d as the wish before the speaker's reason)", placed, len(lines), asWish)
	if len(lines) < 30 || kinds["once"] < 10 || kinds["repeated"] < 10 || chinese*3 < len(lines) {
		t.Errorf("corpus: %d lines (%v), %d Chinese; want 30, 10 of each kind and a third Chinese at least", len(lines), kinds, chinese)
	}

	for _, l := range readCorpus(t, "testdata/gate/own_notplaced.txt") {
		reason, text, ok := strings.Cut(l.text, "\t")
		if !ok {
			t.Fatalf("line %d: want reason<TAB>text", l.n)
		}
		res := gate.Scan(text)
		if res.LowRisk != "" {
			t.Errorf("line %d placed (%s): %q", l.n, res.LowRisk, text)
			continue
		}
		got := patterns(res.Findings)
		if res.NotPlaced != nil {
			got = append(got, res.NotPlaced.Reason)
		}
		if !slices.Contains(got, reason) {
			t.Errorf("line %d kept out by %v, want %s: %q", l.n, got, reason, text)
		}
	}
}

// TestMoney_QuoteIsNoMoney: a price or a quote mentioned in a wish about
// the answers' units or format is no money feature; paying, moving or
// committing money still is.
func TestMoney_QuoteIsNoMoney(t *testing.T) {
	hasMoney := func(s string) bool {
		for _, f := range gate.Scan(s).Findings {
			if f.Pattern == "money" {
				return true
			}
		}
		return false
	}
	for _, s := range []string{
		"以后报价里的尺寸都用公制单位。",
		"报价单上的价格保留两位小数吧。",
		"Quote the fabric prices in euros, not dollars.",
		"Give price quotes per square metre, please.",
	} {
		if hasMoney(s) {
			t.Errorf("%q carries the money feature", s)
		}
		if gate.Scan(s).LowRisk == "" {
			t.Errorf("%q is not placed in the low-risk set: %+v", s, gate.Scan(s).NotPlaced)
		}
	}
	for _, s := range []string{
		"报价确认后直接付款给供应商。",
		"Once the quote is in, pay the supplier right away.",
		"把报价的钱先转给装修队。",
	} {
		if !hasMoney(s) {
			t.Errorf("%q carries no money feature", s)
		}
	}
}

// placedAsWish reports whether a line the gate does not place is placed
// end to end as the wish before the speaker's reason: its only unplaced
// clause is its last, and what comes before it is placed. The offline
// extractor draws such a wish alone and the reason stays in the event;
// the gate places no reason clause, so nothing said in one rides into
// memory on the wish.
func placedAsWish(text string, res governance.GateResult) bool {
	if res.NotPlaced == nil || len(res.Findings) > 0 || res.NotPlaced.Clause == "" {
		return false
	}
	i := strings.LastIndex(text, res.NotPlaced.Clause)
	if i <= 0 || strings.Trim(text[i+len(res.NotPlaced.Clause):], ".!。！ ") != "" {
		return false
	}
	wish := strings.TrimRight(text[:i], " ,，;；-—–")
	return wish != "" && gate.Scan(wish).LowRisk != ""
}
