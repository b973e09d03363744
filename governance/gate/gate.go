package gate

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// Patterns is the write gate as a classifier (governance.Classifier): the
// patterns, the risk features and the low-risk set of patterns/*.txt. It
// is the default classifier of every caller; it fails only when ctx is
// done.
var Patterns governance.Classifier = governance.ClassifierFunc(func(ctx context.Context, text string) (governance.GateResult, error) {
	if err := ctx.Err(); err != nil {
		return governance.GateResult{}, err
	}
	return Scan(text), nil
})

// Scan runs the write gate over one text. The text is normalised first
// (see normalise): invisible characters are removed and each kind reported,
// compatibility forms and look-alike letters are read as the letters they
// imitate, and encoded runs (base64, hex, percent encoding, HTML entities,
// text spelled in variation selectors or tags) are decoded and scanned too.
// Every finding's span (Start, End) is in the original text.
func Scan(text string) governance.GateResult {
	res := governance.GateResult{Text: text}
	if text == "" {
		return res
	}
	n := normalise(text, nil)
	views := []*gateView{&n.view}
	if dv, hid, ok := decodedViewHidden(&n.view); ok {
		views = append(views, &dv)
		n.invisible = append(n.invisible, hid.invisible...)
		n.payloads = append(n.payloads, hid.payloads...)
		if dv2, hid2, ok := decodedViewHidden(&dv); ok {
			views = append(views, &dv2)
			n.invisible = append(n.invisible, hid2.invisible...)
			n.payloads = append(n.payloads, hid2.payloads...)
		}
	}
	if rv, ok := readingView(&n.view); ok {
		views = append(views, &rv)
	}
	for i := range n.payloads {
		p := &n.payloads[i]
		views = append(views, p)
		if dv, ok := decodedView(p); ok {
			dv.encoding = p.encoding
			views = append(views, &dv)
		}
	}

	// Each view is read once by the literal prefilter.
	lits := make([]*scanned, len(views))
	for i, v := range views {
		lits[i] = gateIndex.scanPooled(v.text)
	}
	defer func() {
		for _, l := range lits {
			l.release()
		}
	}()

	// Credentials, in original coordinates, from every view.
	var secrets []secretSpan
	for i, v := range views {
		for _, sp := range findSecrets(v.text, lits[i]) {
			sp.lo, sp.hi = v.origin(sp.lo, sp.hi)
			sp.matchLo, sp.matchHi = v.origin(sp.matchLo, sp.matchHi)
			secrets = append(secrets, sp)
		}
	}
	secrets = mergeSecrets(secrets)

	seen := map[string]bool{}
	add := func(category, pattern string, lo, hi int, redacted bool) {
		if seen[pattern] {
			return
		}
		seen[pattern] = true
		f := governance.Finding{
			Category: category, Pattern: pattern, Start: lo, End: hi, Redacted: redacted,
			Excerpt: excerpt(text, lo, hi, secrets, true),
		}
		f.Because(governance.Say(gateWhy(category, pattern)))
		res.Findings = append(res.Findings, f)
	}
	for _, run := range n.invisible {
		add(governance.GateInvisibleUnicode, run.kind, run.lo, run.hi, false)
	}
	for _, p := range n.payloads {
		lo, hi := p.origin(0, max(1, len(p.text)))
		add(governance.GateEncodedPayload, p.encoding, lo, hi, false)
	}
	for i, v := range views {
		for j := range gateRules {
			r := &gateRules[j]
			if r.secret || seen[r.pattern] || i > 0 && r.category == governance.GateAuthority || r.feature && res.Blocked() || !r.mayMatch(lits[i]) {
				// Risk features are read in the text as written: text that
				// had to be decoded or read back is one (encoded_text).
				continue
			}
			loc := r.find(v.text, lits[i])
			if loc == nil {
				continue
			}
			lo, hi := v.origin(loc[0], loc[1])
			add(r.category, r.pattern, lo, hi, false)
			if v.encoding != "" && r.category != governance.GateAuthority {
				add(governance.GateEncodedPayload, v.encoding, lo, hi, false)
			}
		}
	}
	for _, sp := range secrets {
		add(governance.GateCredentials, sp.pattern, sp.matchLo, sp.matchHi, true)
	}
	for _, f := range res.Findings {
		if f.Category == governance.GateAuthority && (f.Pattern == "url" || f.Pattern == "email" || f.Pattern == "destination") {
			if la, ok := lookalikeFinding(text, f.Start, f.End); ok && !seen[la.Pattern] {
				seen[la.Pattern] = true
				res.Findings = append(res.Findings, la)
			}
		}
	}
	if len(views) > 1 {
		// Text a reader cannot read as written, whatever it says, is for
		// a reviewer.
		// A text of nothing but hidden characters reads as nothing: its
		// span is the whole text.
		lo, hi := 0, len(text)
		if n.view.text != "" {
			lo, hi = encodedSpan(&n.view)
		}
		add(governance.GateAuthority, "encoded_text", lo, hi, false)
	}
	prot, protView := protectiveSpans(&n.view, lits[0])
	res.Findings = outsideSpans(res.Findings, prot)
	if len(res.Findings) == 0 {
		var why notPlaced
		res.LowRisk, why = place(n.view.text, lits[0], protView)
		if res.LowRisk == "" && len(n.view.text) > 0 {
			lo, hi := n.view.origin(why.lo, why.hi)
			res.NotPlaced = &governance.NotPlaced{Clause: strings.TrimSpace(text[lo:hi]), Reason: why.reason}
			readAsks(res.NotPlaced, text, &n.view, lits[0], why)
		}
	}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		return classRank(res.Findings[i].Category) < classRank(res.Findings[j].Category)
	})
	if len(secrets) > 0 {
		res.Text = replaceSpans(text, secrets)
	}
	return res
}

func classRank(c string) int {
	for i, x := range governance.GateClasses {
		if x == c {
			return i
		}
	}
	return len(governance.GateClasses)
}

// mergeSecrets sorts credential spans and merges overlapping ones.
func mergeSecrets(spans []secretSpan) []secretSpan {
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var merged []secretSpan
	for _, sp := range spans {
		if n := len(merged); n > 0 && sp.lo < merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, sp.hi)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

func replaceSpans(s string, spans []secretSpan) string {
	var b strings.Builder
	cur := 0
	for _, sp := range spans {
		if sp.lo < cur {
			continue
		}
		b.WriteString(s[cur:sp.lo])
		b.WriteString(mask(sp.pattern))
		cur = sp.hi
	}
	b.WriteString(s[cur:])
	return b.String()
}

func mask(pattern string) string { return governance.CredentialMask(pattern) }

// WithheldMarker stands in recalled and summarised text for what the write
// gate blocked.
const WithheldMarker = governance.WithheldMarker

// Withhold returns text with every sentence that holds a blocking finding
// replaced by WithheldMarker (and credentials redacted), and whether
// anything was withheld. Recalled text and exports pass through it, so
// nothing the gate blocks reaches an agent.
func Withhold(text string) (string, bool) {
	return WithholdFor(text, false)
}

// withheldInSummaries reports whether an authority marker's own words are
// withheld from text nobody reviews: a link, an address or a command is
// something an agent could act on; the name of a secret or a check is not.
func withheldInSummaries(pattern string) bool {
	return pattern == "url" || pattern == "email" || pattern == "shell_command"
}

// WithholdFor scans text once and rewrites it: blocked sentences become
// WithheldMarker, credentials their mask, and with authority set URLs,
// e-mail addresses and commands a marker of their own.
func WithholdFor(text string, authority bool) (string, bool) {
	res := Scan(text)
	if len(res.Findings) == 0 {
		return text, false
	}
	type span struct {
		lo, hi int
		mark   string
		rank   int // a withheld sentence wins over what it contains
	}
	var spans []span
	blocked := false
	for _, f := range res.Findings {
		switch {
		case f.End <= f.Start || f.Start < 0 || f.End > len(text):
		case f.Blocks():
			lo, hi := sentenceAround(text, f.Start, f.End)
			spans = append(spans, span{lo, hi, WithheldMarker, 0})
			blocked = true
		case authority && f.Category == governance.GateAuthority && withheldInSummaries(f.Pattern):
			mark := "[command withheld until reviewed]"
			switch f.Pattern {
			case "url":
				mark = "[link withheld until reviewed]"
			case "email":
				mark = "[e-mail address withheld until reviewed]"
			}
			spans = append(spans, span{f.Start, f.End, mark, 1})
		}
	}
	if !blocked && !authority {
		return res.Text, false
	}
	// Credentials are masked wherever no larger span covers them.
	for _, f := range res.Findings {
		if f.Redacted {
			for _, sp := range findSecretsOrig(text) {
				spans = append(spans, span{sp.lo, sp.hi, mask(sp.pattern), 2})
			}
			break
		}
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].lo != spans[j].lo {
			return spans[i].lo < spans[j].lo
		}
		return spans[i].rank < spans[j].rank
	})
	var b strings.Builder
	cur := 0
	for _, sp := range spans {
		if sp.lo < cur {
			continue
		}
		b.WriteString(text[cur:sp.lo])
		b.WriteString(sp.mark)
		cur = sp.hi
	}
	b.WriteString(text[cur:])
	return b.String(), blocked
}

// quoteWindow is the length, in runes, of a passage that counts as quoted.
const quoteWindow = 12

// WithholdQuoted replaces, in text, every sentence that repeats a passage
// of quoteWindow runes of one of blocked (or the whole of a shorter one)
// by WithheldMarker.
func WithholdQuoted(text string, blocked []string) string {
	type span struct{ lo, hi int }
	var spans []span
	mark := func(w string) {
		for from := 0; ; {
			i := strings.Index(text[from:], w)
			if i < 0 {
				return
			}
			lo, hi := sentenceAround(text, from+i, from+i+len(w))
			spans = append(spans, span{lo, hi})
			from = from + i + len(w)
		}
	}
	for _, b := range blocked {
		r := []rune(b)
		if len(r) <= quoteWindow {
			if strings.TrimSpace(b) != "" {
				mark(b)
			}
			continue
		}
		for i := 0; i+quoteWindow <= len(r); i++ {
			if w := string(r[i : i+quoteWindow]); strings.TrimSpace(w) != "" {
				mark(w)
			}
		}
	}
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var out strings.Builder
	cur := 0
	for _, sp := range spans {
		if sp.hi <= cur {
			continue
		}
		if sp.lo < cur {
			sp.lo = cur
		} else {
			out.WriteString(text[cur:sp.lo])
			out.WriteString(WithheldMarker)
		}
		cur = sp.hi
	}
	out.WriteString(text[cur:])
	return out.String()
}

// findSecretsOrig returns the credential spans of text in its own
// coordinates (through the normalised views, as Scan finds them).
func findSecretsOrig(text string) []secretSpan {
	n := normalise(text, nil)
	var out []secretSpan
	for _, sp := range findSecrets(n.view.text, gateIndex.scan(n.view.text)) {
		sp.lo, sp.hi = n.view.origin(sp.lo, sp.hi)
		out = append(out, sp)
	}
	if dv, ok := decodedView(&n.view); ok {
		for _, sp := range findSecrets(dv.text, gateIndex.scan(dv.text)) {
			sp.lo, sp.hi = dv.origin(sp.lo, sp.hi)
			out = append(out, sp)
		}
	}
	return mergeSecrets(out)
}

// sentenceAround widens [lo, hi) to the sentence (or quoted passage) around it.
func sentenceAround(s string, lo, hi int) (int, int) {
	const ends = "。！？!?\n\"“”「」"
	for lo > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:lo])
		if strings.ContainsRune(ends, r) || r == '.' && lo < len(s) && (s[lo] == ' ') {
			break
		}
		lo -= size
	}
	for hi < len(s) {
		r, size := utf8.DecodeRuneInString(s[hi:])
		if strings.ContainsRune(ends, r) || r == '.' && (hi+1 == len(s) || s[hi+1] == ' ') {
			break
		}
		hi += size
	}
	return lo, hi
}

// Excerpts.

const (
	excerptContext  = 24 // runes shown either side of a match
	excerptMatchMax = 80 // runes of the match itself
)

// excerpt returns a short, single-line window around s[lo:hi]. Secrets that
// overlap the window are masked whole, so no part of one is ever shown;
// with showInvisible, invisible characters are written as <U+XXXX>.
func excerpt(s string, lo, hi int, secrets []secretSpan, showInvisible bool) string {
	lo, hi = max(0, min(lo, len(s))), max(0, min(hi, len(s)))
	if n := utf8.RuneCountInString(s[lo:hi]); n > excerptMatchMax {
		// Walked in s's own bytes: an invalid byte is one rune of one
		// byte here, but three bytes (U+FFFD) once converted to runes.
		hi = lo
		for range excerptMatchMax {
			_, size := utf8.DecodeRuneInString(s[hi:])
			hi += size
		}
	}
	start, end := lo, hi
	for i := 0; i < excerptContext && start > 0; i++ {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	for i := 0; i < excerptContext && end < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}

	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	hiddenRun := 0
	write := func(part string) {
		for _, r := range part {
			if showInvisible && invisibleKind(r) != "" {
				// The first three invisible characters are shown; the
				// rest stand as one ellipsis.
				hiddenRun++
				switch {
				case hiddenRun <= 3:
					fmt.Fprintf(&b, "<U+%04X>", r)
				case hiddenRun == 4:
					b.WriteString("<…>")
				}
				continue
			}
			switch {
			case unicode.IsSpace(r):
				b.WriteByte(' ')
			default:
				b.WriteRune(r)
			}
		}
	}
	cur := start
	for _, sp := range secrets {
		if sp.hi <= start || sp.lo >= end || sp.lo < cur {
			continue
		}
		if sp.lo > cur {
			write(s[cur:sp.lo])
		}
		b.WriteString(mask(sp.pattern))
		cur = sp.hi
	}
	if cur < end {
		write(s[cur:end])
	}
	if end = max(end, cur); end < len(s) {
		b.WriteString("…")
	}
	return b.String()
}

// Secrets.

// secretSpan is one secret in a text: [lo, hi) is the secret itself,
// [matchLo, matchHi) the whole match (for an assignment, the key as well).
type secretSpan struct {
	lo, hi           int
	matchLo, matchHi int
	pattern          string
}

// findSecrets returns every secret of s, sorted and without overlaps.
func findSecrets(s string, lits *scanned) []secretSpan {
	var spans []secretSpan
	for i := range gateRules {
		r := &gateRules[i]
		if !r.secret || !r.mayMatch(lits) {
			continue
		}
		for _, loc := range r.findAll(s, lits) {
			lo, hi := firstGroup(loc)
			spans = append(spans, secretSpan{lo: lo, hi: hi, matchLo: loc[0], matchHi: loc[1], pattern: r.pattern})
		}
	}
	return mergeSecrets(spans)
}

// firstGroup returns the span of the first submatch that took part in the
// match, or of the whole match when none did.
func firstGroup(loc []int) (lo, hi int) {
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 {
			return loc[i], loc[i+1]
		}
	}
	return loc[0], loc[1]
}

// notPlaceholder rejects a value that refers to a secret instead of holding
// one: $VAR, ${VAR}, <token>, %VAR%, or an earlier redaction.
func notPlaceholder(s string, loc []int) bool {
	lo, hi := firstGroup(loc)
	return hi > lo && !strings.ContainsAny(s[lo:lo+1], "[<{$%*")
}

// plausibleSecret vets the value of a key/token/password assignment, so that
// "the token is invalid" or "token = tokenizer.encode(x)" are not secrets.
func plausibleSecret(s string, loc []int) bool {
	if !notPlaceholder(s, loc) {
		return false
	}
	lo, hi := firstGroup(loc)
	v := s[lo:hi]
	quoted := lo > 0 && strings.ContainsRune(`'"`, rune(s[lo-1]))
	if len(v) < 6 {
		return false
	}
	lower := strings.ToLower(v)
	for _, ref := range []string{"getenv", "environ", "env.", "${", "(", "xxx", "your", "example", "placeholder", "redacted", "******"} {
		if strings.Contains(lower, ref) {
			return false
		}
	}
	var digit, upper, lowerCase bool
	for _, r := range v {
		digit = digit || unicode.IsDigit(r)
		upper = upper || unicode.IsUpper(r)
		lowerCase = lowerCase || unicode.IsLower(r)
	}
	return digit || quoted && len(v) >= 8 || len(v) >= 16 && upper && lowerCase
}

// FenceTagRemoved replaces a fence or role tag in recalled text.
const FenceTagRemoved = "[fence tag removed]"

// fenceTag matches, in normalised text, a tag that could close the recall
// fence or pose as a role boundary.
var fenceTag = regexp.MustCompile(`(?i)<\s*/?\s*(?:recalled[\s_-]*memory|system|developer|assistant|user|instructions?|tool[\s_-]*(?:result|output)|context|memory)\s*>|<\|[a-z_]+\|>|\[/?INST\]|<</?SYS>>`)

// NeutraliseFence replaces every fence or role tag in text by
// FenceTagRemoved. Tags are found after normalisation, so a look-alike
// letter or an invisible character inside a closing tag cannot end the
// recall fence.
func NeutraliseFence(text string) string {
	if !strings.ContainsAny(text, "<[") && !strings.Contains(text, "＜") && !strings.Contains(text, "﹤") {
		return text
	}
	n := normalise(text, nil)
	locs := fenceTag.FindAllStringIndex(n.view.text, -1)
	if len(locs) == 0 {
		return text
	}
	var b strings.Builder
	cur := 0
	for _, loc := range locs {
		lo, hi := n.view.origin(loc[0], loc[1])
		if lo < cur {
			continue
		}
		b.WriteString(text[cur:lo])
		b.WriteString(FenceTagRemoved)
		cur = hi
	}
	b.WriteString(text[cur:])
	return b.String()
}

// WithholdSummary gates text nobody reviews before an agent reads it (an
// episode summary): blocked sentences are withheld as in Withhold, and
// URLs, e-mail addresses and shell commands — which only a reviewer may
// let through — are replaced by a short marker.
func WithholdSummary(text string) string {
	out, _ := WithholdFor(text, true)
	return out
}

// HidesContent reports whether text carries something a reader does not
// see: invisible characters outside their legitimate uses, or encoded runs
// (base64, hex, percent encoding, HTML entities). Consolidation scans the
// events behind a statement when they do, since an extractor may drop what
// it cannot see.
func HidesContent(text string) bool {
	n := normalise(text, nil)
	if len(n.invisible) > 0 || len(n.payloads) > 0 {
		return true
	}
	_, ok := decodedView(&n.view)
	return ok
}
