package heuristic

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The lesson reader reads a failure by its structure, not by the words of
// the tools it has seen: the cause from the shape of the failure text (JSON
// error objects at any depth, "field: message" chains, status lines,
// "expected X, got Y", validation sentences), and the change from the diff
// between the failed call's arguments and the passing call's (an argument
// added or left out, a value whose shape changed), beside what the
// assistant said. Values never reach the lesson: a change is named by the
// argument and its shape ("send `amount` as an integer number of cents").

// callArgs are the arguments of the rendered call of tool just before event
// index i, flattened to their leaves, or nil when the call has no JSON
// arguments.
func (s *session) callArgs(i int, tool string) []argLeaf {
	_, c := s.callBefore(i, tool)
	if c == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(c), &v) != nil {
		return nil
	}
	var out []argLeaf
	flattenArgs("", "", v, &out)
	return out
}

// argLeaf is one leaf value of a call's arguments: its path, the name of
// the argument it belongs to (the last key on its path) and its value.
type argLeaf struct {
	path, name string
	value      any
}

func flattenArgs(path, name string, v any, out *[]argLeaf) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			name := k
			if !argName.MatchString(k) {
				name = "" // not a name a lesson can say: its leaves are named by nothing
			}
			flattenArgs(path+"."+k, name, x[k], out)
		}
	case []any:
		for i, vv := range x {
			flattenArgs(path+"["+strconv.Itoa(i)+"]", name, vv, out)
		}
	default:
		*out = append(*out, argLeaf{path: path, name: name, value: v})
	}
}

// argName is an argument name a lesson may say: one identifier, short.
var argName = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_-]{0,39}$`)

// argDiff is how the passing call's arguments differ from the failed
// call's.
type argDiff struct {
	added, removed []string // argument names
	shaped         []shapeChange
	typo           bool // a value corrected by a letter or two: a one-off
	// a value replaced by another of the same shape ("HX-2291" → "HX-2219",
	// one ticket's id for another's): the case's value, not the call's way
	revalued bool
	// the names of the revalued arguments, and the numbers among them
	// moved within their shape (a limit of 500 sent as 100)
	revaluedNames []string
	bounds        []boundChange
}

// boundChange is a number argument sent with another value of its shape.
type boundChange struct {
	name     string
	from, to float64
}

type shapeChange struct {
	name, from, to string // the argument and its value's shapes
	cents          bool   // a decimal amount sent as its hundredfold integer
	letters        int    // the length of a code the value became
}

func diffArgs(failed, passed []argLeaf) argDiff {
	var d argDiff
	byPath := make(map[string]argLeaf, len(failed))
	failedNames := make(map[string]bool, len(failed))
	for _, f := range failed {
		byPath[f.path], failedNames[f.name] = f, true
	}
	passedPaths := make(map[string]bool, len(passed))
	passedNames := make(map[string]bool, len(passed))
	addName := func(list *[]string, name string) {
		if name != "" && !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	// A value sent as an object or a list instead ("filters": "locale=de"
	// → {"locale": "de"}, "to": "a@b" → ["a@b"]): its leaves are under the
	// path of the failed call's leaf.
	restructured := map[string]bool{}
	for _, p := range passed {
		if _, ok := byPath[p.path]; ok {
			continue
		}
		for k := 1; k < len(p.path); k++ {
			if c := p.path[k]; c != '.' && c != '[' {
				continue
			}
			f, ok := byPath[p.path[:k]]
			if !ok || restructured[f.path] || f.name == "" {
				continue
			}
			restructured[f.path] = true
			to := "object"
			if p.path[k] == '[' {
				to = "list"
			}
			if !slices.ContainsFunc(d.shaped, func(o shapeChange) bool { return o.name == f.name }) {
				d.shaped = append(d.shaped, shapeChange{name: f.name, from: shapeOf(f.value), to: to})
			}
		}
	}
	for _, p := range passed {
		passedPaths[p.path], passedNames[p.name] = true, true
		f, ok := byPath[p.path]
		if !ok {
			if under(p.path, restructured) {
				continue
			}
			if !failedNames[p.name] {
				// An argument left out and added under its own name is
				// a changed value, not a new argument.
				addName(&d.added, p.name)
			}
			continue
		}
		if f.value == p.value {
			continue
		}
		from, to := shapeOf(f.value), shapeOf(p.value)
		if from == to {
			if a, b := fmt.Sprint(f.value), fmt.Sprint(p.value); letters(a) >= 3 && editDistance(a, b) <= min(2, max(1, utf8.RuneCountInString(a)/4)) {
				d.typo = true // a word corrected by a letter or two: "exmaple", "Jon"
			}
			d.revalued = true
			addName(&d.revaluedNames, p.name)
			// Only a JSON number: a number in a string is an id's or a
			// code's, and a case key's value is the case's amount.
			if fv, ok := f.value.(float64); ok && p.name != "" && !lessonVocab.caseKeys[strings.ToLower(p.name)] {
				if pv, ok := p.value.(float64); ok && fv != pv {
					d.bounds = append(d.bounds, boundChange{name: p.name, from: fv, to: pv})
				}
			}
			continue
		}
		if p.name == "" {
			continue
		}
		c := shapeChange{name: p.name, from: from, to: to}
		if fv, ok := number(f.value); ok && (from == "decimal" || from == "decimal string") && to == "integer" {
			if pv, ok := number(p.value); ok && fv*100 > pv-0.5 && fv*100 < pv+0.5 {
				c.cents = true
			}
		}
		if fv, ok := number(p.value); ok && to == "integer" && !strings.Contains(from, "integer") && !strings.Contains(from, "decimal") && from != "digits" {
			switch {
			case fv >= 1e9 && fv < 1e10:
				c.to = "unix seconds" // a date sent as seconds since 1970
			case fv >= 1e12 && fv < 1e13:
				c.to = "unix milliseconds"
			}
		}
		if to == "code" {
			c.letters = utf8.RuneCountInString(fmt.Sprint(p.value))
		}
		if !slices.ContainsFunc(d.shaped, func(o shapeChange) bool { return o.name == c.name }) {
			d.shaped = append(d.shaped, c)
		}
	}
	for _, f := range failed {
		if !passedPaths[f.path] && !passedNames[f.name] && !restructured[f.path] {
			addName(&d.removed, f.name)
		}
	}
	return d
}

// under reports whether path is below one of paths.
func under(path string, paths map[string]bool) bool {
	for k := 1; k < len(path); k++ {
		if c := path[k]; (c == '.' || c == '[') && paths[path[:k]] {
			return true
		}
	}
	return false
}

// changed reports whether the diff says anything a lesson can name.
func (d argDiff) changed() bool { return len(d.added)+len(d.removed)+len(d.shaped) > 0 }

// names are the arguments the diff touches.
func (d argDiff) names() []string {
	out := slices.Concat(d.added, d.removed)
	for _, c := range d.shaped {
		out = append(out, c.name)
	}
	return out
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		if t := strings.TrimSpace(x); decimalRe.MatchString(t) {
			f, err := strconv.ParseFloat(t, 64)
			return f, err == nil
		}
	}
	return 0, false
}

var (
	decimalRe     = regexp.MustCompile(`^-?\d+\.\d+$`)
	digitsRe      = regexp.MustCompile(`^\d+$`)
	phoneCCRe     = regexp.MustCompile(`^\+\d[\d\s().-]{6,}\d$`)
	phoneSepRe    = regexp.MustCompile(`^\(?\d[\d\s().-]{5,}\d$`)
	isoDateRe     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	isoTimeRe     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$`)
	isoOffsetRe   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$`)
	otherDateRe   = regexp.MustCompile(`^\d{1,4}[/.]\d{1,2}[/.]\d{1,4}|\d{1,2}\s*月\s*\d{1,2}\s*日|^\d{1,2}\s+[A-Za-z]{3,9}\s+\d{4}|^[A-Za-z]{3,9}\s+\d{1,2},?\s+\d{4}`)
	codeRe        = regexp.MustCompile(`^[A-Z]{2,4}$`)
	prefixedRe    = regexp.MustCompile(`^[A-Z]{1,4}[-\s]?\d{4,}$`)
	lowerLetterRe = regexp.MustCompile(`\p{Ll}`)
	upperLetterRe = regexp.MustCompile(`\p{Lu}`)
)

// shapeOf names the shape of an argument's value: what kind of value it is,
// never the value.
func shapeOf(v any) string {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "decimal"
	case bool:
		return "bool"
	case nil:
		return "null"
	case string:
		t := strings.TrimSpace(x)
		switch {
		case decimalRe.MatchString(t):
			return "decimal string"
		case digitsRe.MatchString(t) && len(t) >= 7:
			return "digits"
		case digitsRe.MatchString(t):
			return "integer string"
		case isoOffsetRe.MatchString(t):
			return "iso offset"
		case isoTimeRe.MatchString(t):
			return "iso time"
		case isoDateRe.MatchString(t):
			return "iso date"
		case otherDateRe.MatchString(t):
			return "date"
		case phoneCCRe.MatchString(t):
			return "phone cc"
		case phoneSepRe.MatchString(t):
			return "phone sep"
		case codeRe.MatchString(t):
			return "code"
		case prefixedRe.MatchString(t):
			return "prefixed"
		case upperLetterRe.MatchString(t) && !lowerLetterRe.MatchString(t) && !strings.ContainsAny(t, "0123456789"):
			return "upper"
		}
		return "text"
	}
	return "other"
}

// phrase names the diff as a change, in the language asked for, from
// lesson.toml's shape table; "" when the diff names nothing.
func (d argDiff) phrase(zh bool) string {
	var parts []string
	pick := func(en, zhs string) string {
		if zh {
			return zhs
		}
		return en
	}
	sh := lessonVocab.Shape
	// Arguments that changed the same way are named together.
	done := map[int]bool{}
	for i, c := range d.shaped {
		if done[i] {
			continue
		}
		names := []string{c.name}
		for j := i + 1; j < len(d.shaped); j++ {
			o := d.shaped[j]
			if !done[j] && o.from == c.from && o.to == c.to && o.cents == c.cents {
				names, done[j] = append(names, o.name), true
			}
		}
		n := argNames(names, zh)
		var t string
		switch {
		case c.cents:
			t = pick(sh.CentsEN, sh.CentsZH)
		case c.to == "integer" && (c.from == "decimal" || c.from == "decimal string" || c.from == "integer string"):
			t = pick(sh.IntegerEN, sh.IntegerZH)
		case c.to == "decimal" && c.from == "decimal string":
			t = pick(sh.NumberEN, sh.NumberZH)
		case c.to == "phone cc":
			t = pick(sh.CountryCodeEN, sh.CountryCodeZH)
		case c.from == "phone cc" && (c.to == "digits" || c.to == "phone sep"):
			t = pick(sh.NoCountryCodeEN, sh.NoCountryCodeZH)
		case c.from == "phone sep" && c.to == "digits":
			t = pick(sh.DigitsEN, sh.DigitsZH)
		case c.to == "iso date":
			t = pick(sh.ISODateEN, sh.ISODateZH)
		case c.to == "iso time":
			t = pick(sh.ISOTimeEN, sh.ISOTimeZH)
		case c.to == "iso offset":
			t = pick(sh.ISOOffsetEN, sh.ISOOffsetZH)
		case c.to == "code":
			t = strings.ReplaceAll(pick(sh.CodeEN, sh.CodeZH), "{n}", letterCount(c.letters, zh))
		case c.to == "unix seconds":
			t = pick(sh.UnixEN, sh.UnixZH)
		case c.to == "unix milliseconds":
			t = pick(sh.UnixMsEN, sh.UnixMsZH)
		case c.to == "object":
			t = pick(sh.ObjectEN, sh.ObjectZH)
		case c.to == "list":
			t = pick(sh.ListEN, sh.ListZH)
		case c.to == "upper":
			t = pick(sh.UpperEN, sh.UpperZH)
		case c.to == "prefixed" && (c.from == "digits" || c.from == "integer string" || c.from == "integer"):
			t = pick(sh.PrefixEN, sh.PrefixZH)
		case c.to == "integer string" || c.to == "decimal string" || c.to == "digits":
			t = pick(sh.StringEN, sh.StringZH)
		}
		if t != "" {
			parts = append(parts, strings.ReplaceAll(t, "{arg}", n))
		}
	}
	if len(d.added) > 0 {
		parts = append(parts, strings.ReplaceAll(pick(sh.AddedEN, sh.AddedZH), "{arg}", argNames(d.added, zh)))
	}
	if len(d.removed) > 0 {
		parts = append(parts, strings.ReplaceAll(pick(sh.RemovedEN, sh.RemovedZH), "{arg}", argNames(d.removed, zh)))
	}
	if len(parts) > 2 {
		parts = parts[:2]
	}
	return strings.Join(parts, pick(" and ", "，"))
}

// boundPhrase names a number moved within its shape as a change: the
// bound text states for the argument when the passing value keeps it and
// the failed one broke it ("keep `limit` at most 100"), else its direction
// ("send a smaller `page_size`", only when it shrank); "" otherwise. The values the
// case sent are never said. stated is the bound's number as text states it.
func (d argDiff) boundPhrase(text string, zh bool) (phrase, stated string) {
	if len(d.bounds) != 1 || d.changed() {
		return "", "" // one number moved and nothing else: a bound, not a new call
	}
	b := d.bounds[0]
	sh := lessonVocab.Shape
	pick := func(en, zhs string) string {
		if zh {
			return zhs
		}
		return en
	}
	smaller := b.to < b.from
	words := lessonVocab.Cause.BoundMin
	t := pick(sh.AtLeastEN, sh.AtLeastZH)
	if smaller {
		words, t = lessonVocab.Cause.BoundMax, pick(sh.AtMostEN, sh.AtMostZH)
	}
	if n, ok := statedBound(text, b, words, smaller); ok {
		return strings.NewReplacer("{arg}", argNames([]string{b.name}, zh), "{n}", n).Replace(t), n
	}
	if !smaller {
		// A larger value with no bound stated is the case's own number
		// ("qty": 0 then 1), not a limit of the API.
		return "", ""
	}
	return strings.ReplaceAll(pick(sh.SmallerEN, sh.SmallerZH), "{arg}", argNames([]string{b.name}, zh)), ""
}

// statedBound finds in a failure text the bound of argument b: a number
// after one of words, in a text that names the argument, that the passing
// value keeps and the failed value breaks.
func statedBound(text string, b boundChange, words []string, max bool) (string, bool) {
	lower := strings.ToLower(text)
	name := strings.ToLower(b.name)
	if !strings.Contains(lower, name) && !strings.Contains(lower, strings.ReplaceAll(name, "_", " ")) {
		return "", false
	}
	for _, w := range words {
		for off := 0; off < len(lower); {
			i := strings.Index(lower[off:], w)
			if i < 0 {
				break
			}
			at := off + i + len(w)
			off = at
			if isWordByte(w[0]) && off-len(w) > 0 && isWordByte(lower[off-len(w)-1]) {
				continue // "max" of "climax"
			}
			m := boundNumber.FindStringSubmatch(lower[at:])
			if m == nil {
				continue
			}
			n, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				continue
			}
			if max && b.to <= n && b.from > n || !max && b.to >= n && b.from < n {
				return m[1], true
			}
		}
	}
	return "", false
}

// boundNumber is the number right after a bound's words ("≤ 100", "at
// most: 50", "maximum is 1000", "不能超过100").
var boundNumber = regexp.MustCompile(`^\s*(?:is\s+|of\s+|[:=]\s*|为\s*)?(\d+(?:\.\d+)?)\b`)

// argNames writes argument names for a change ("`start` and `end`").
func argNames(names []string, zh bool) string {
	if len(names) > 3 {
		names = names[:3]
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	if zh {
		return strings.Join(q, "、")
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

func letterCount(n int, zh bool) string {
	if zh {
		return fmt.Sprint(n)
	}
	if w := []string{"", "one", "two", "three", "four"}; n < len(w) {
		return w[n]
	}
	return fmt.Sprint(n)
}

// letters counts the letters of s.
func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// editDistance is the Levenshtein distance of a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// mentions reports whether a change in words names one of the arguments
// (its name, or its words: "due_date" is "due date").
func mentions(change string, names []string) bool {
	lower := strings.ToLower(change)
	for _, n := range names {
		n = strings.ToLower(n)
		if strings.Contains(lower, n) || strings.Contains(lower, strings.NewReplacer("_", " ", "-", " ").Replace(n)) {
			return true
		}
	}
	return false
}

// ---- the cause, read by structure ----

// causeCandidate is one message of a failure text that may say its cause.
type causeCandidate struct {
	text, field string
	known       bool // an error's own message: no cause word needed
	score       int
}

// failureCause is what a failure text says went wrong, by its structure:
// the most specific message of a JSON error (at any depth, beside the field
// it is about), else the first line that says an error; cleaned of its
// location, markers, status and codes. args are the failed call's argument
// names, which a cause may keep.
func failureCause(text string, args []string) string {
	t := strings.TrimSpace(text)
	if j := jsonIn(t); j != nil {
		var cands []causeCandidate
		collectMessages(j, "", 0, &cands)
		slices.SortStableFunc(cands, func(a, b causeCandidate) int { return b.score - a.score })
		var fallback string
		for _, c := range cands {
			if cause := causeText(c.text, c.field, c.known, args); cause != "" {
				if !genericCause(cause) {
					return cause
				}
				fallback = cmpOr(fallback, cause)
			}
		}
		if fallback != "" {
			return fallback
		}
	}
	lines := strings.Split(t, "\n")
	if c := exceptionCause(lines, args); c != "" {
		return c
	}
	var fallback string
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "{") {
			continue
		}
		if c := causeText(line, "", false, args); c != "" {
			if !genericCause(c) {
				return c
			}
			fallback = cmpOr(fallback, c)
		}
	}
	return fallback
}

// exceptionCause is the message of the last exception a plain failure
// text raises ("ModuleNotFoundError: No module named 'httpx'" after
// "ImportError while importing test module"; an exception's class alone
// on its line is followed by its message), or "": the last one raised is
// the one the run stopped on, its summary lines come before it.
func exceptionCause(lines []string, args []string) string {
	var out string
	for i, line := range lines {
		l := strings.TrimSpace(line)
		if e, ok := strings.CutPrefix(l, "E "); ok {
			l = strings.TrimSpace(e) // pytest's error marker
		}
		if rest, ok := chainedException(l); ok {
			l, line = rest, rest // "Caused by: java.lang.IllegalArgumentException: …"
		}
		loc := exceptionPrefix.FindStringIndex(l)
		if loc == nil {
			continue
		}
		text, known := line, false
		if strings.TrimSpace(l[loc[1]:]) == "" {
			text = "" // the class alone: its message is the next line
			for _, next := range lines[i+1:] {
				if next = strings.TrimSpace(next); next != "" {
					text, known = next, true
					if k := strings.LastIndex(text, ". "); k > 0 && strings.HasSuffix(text, ":") {
						text = text[:k+1] // "… are pending. To resolve this issue, run:"
					}
					break
				}
			}
		}
		if c := causeText(text, "", known, args); c != "" && !genericCause(c) {
			out = c
		}
	}
	return out
}

// chainedException is the exception a line names after a label ("Caused
// by: ", "Exception in thread "main" "): the line from the exception's
// qualified name on, and true when the name follows a colon or a quote.
func chainedException(l string) (string, bool) {
	for i := 1; i < len(l); i++ {
		if l[i-1] != ' ' || i < 2 || l[i-2] != ':' && l[i-2] != '"' {
			continue
		}
		if loc := exceptionPrefix.FindStringIndex(l[i:]); loc != nil && strings.Contains(l[i:i+loc[1]], ".") {
			return l[i:], true
		}
	}
	return l, false
}

// jsonIn is the JSON object a failure text holds: the text itself, or what
// follows a status line or a prefix ("HTTP 400: {…}").
func jsonIn(t string) any {
	i := strings.Index(t, "{")
	if i < 0 {
		return nil
	}
	k := strings.LastIndex(t, "}")
	if k < i {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(t[i:k+1]), &v) != nil {
		return nil
	}
	return v
}

// collectMessages gathers the messages of a JSON error: the values under
// lesson.toml's message keys, each with the field its object names. A
// deeper message, one beside a field, and one that is not generic rank
// higher ("Phone number must be in E.164 format" under errors[] before the
// top's "Property values were not valid").
func collectMessages(v any, field string, depth int, out *[]causeCandidate) {
	switch x := v.(type) {
	case map[string]any:
		f := field
		for _, k := range lessonVocab.Cause.FieldKeys {
			s, ok := x[k].(string)
			if list, isList := x[k].([]any); isList {
				// A path as a list ("loc": ["body", "amount"]): its last name.
				for i := len(list) - 1; i >= 0 && !ok; i-- {
					s, ok = list[i].(string)
				}
			}
			if ok && s != "" && (k != "name" || depth > 0) && fieldPath.MatchString(s) {
				f = lastSegment(s)
				break
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			lk := strings.ToLower(k)
			switch s := x[k].(type) {
			case string:
				known := slices.Contains(lessonVocab.Cause.MessageKeys, lk)
				if !known && !slices.Contains(lessonVocab.Cause.ReasonKeys, lk) {
					continue
				}
				c := causeCandidate{text: s, field: f, known: known, score: depth}
				if f != "" {
					c.score += 2
				}
				if !genericCause(s) {
					c.score += 10
				}
				*out = append(*out, c)
			case map[string]any:
				if slices.Contains(lessonVocab.Cause.MessageKeys, lk) {
					fieldMessages(s, depth+1, out)
				}
				collectMessages(s, f, depth+1, out)
			case []any:
				collectMessages(s, f, depth+1, out)
			}
		}
	case []any:
		for _, vv := range x {
			collectMessages(vv, field, depth+1, out)
		}
	}
}

// fieldMessages gathers the messages of an error object keyed by field
// ("errors": {"quantity": ["must be an integer"]}): each field's messages,
// about that field.
func fieldMessages(m map[string]any, depth int, out *[]causeCandidate) {
	for k := range m {
		lk := strings.ToLower(k)
		if slices.Contains(lessonVocab.Cause.MessageKeys, lk) || slices.Contains(lessonVocab.Cause.ReasonKeys, lk) ||
			slices.Contains(lessonVocab.Cause.FieldKeys, lk) {
			return // an error object of its own, not a map of fields
		}
	}
	for k, v := range m {
		if !fieldPath.MatchString(k) || slices.Contains(lessonVocab.Cause.MessageKeys, strings.ToLower(k)) {
			continue
		}
		var msgs []string
		switch x := v.(type) {
		case string:
			msgs = append(msgs, x)
		case []any:
			for _, vv := range x {
				if s, ok := vv.(string); ok {
					msgs = append(msgs, s)
				}
			}
		}
		for _, msg := range msgs {
			if !strings.Contains(strings.TrimSpace(msg), " ") {
				continue // a code, not a message
			}
			c := causeCandidate{text: msg, field: lastSegment(k), known: true, score: depth + 2}
			if !genericCause(msg) {
				c.score += 10
			}
			*out = append(*out, c)
		}
	}
}

var (
	// fieldPath is a field named by its path ("passengers[0].name").
	fieldPath = regexp.MustCompile(`^[A-Za-z_][\w-]*(?:\[\d*\])*(?:\.[A-Za-z_][\w-]*(?:\[\d*\])*)*$`)
	// A status or an error code opening a line: "HTTP 422", "SMTP 552 5.3.4",
	// "Error 400:", "ERROR 8016:", "error[E0658]:", "E1234:".
	statusPrefix = regexp.MustCompile(`^(?i:(?:HTTP|SMTP)(?:/[\d.]+)?\s+)?\d{3}(?:\s+\d\.\d{1,3}\.\d{1,3})?(?:\s+|\s*[:：-]\s*|$)`)
	codePrefix   = regexp.MustCompile(`^(?i:error|err|fatal|错误)\s*(?:\[[\w-]+\]|[#]?[A-Z]*\d+)?\s*[:：]\s*|^(?i:error|err)\s+[#]?[A-Z]*\d+\s+`)
	// An exception class opening a line ("sqlalchemy.exc.ProgrammingError:"),
	// and a parenthesised one after it ("(psycopg2.errors.UndefinedColumn)").
	exceptionPrefix = regexp.MustCompile(`^(?:[A-Za-z_]\w*(?:\.|::))*[A-Z]\w*(?:Error|Exception|Failure)\b:?\s*`)
	parenCodePrefix = regexp.MustCompile(`^\((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*\)\s*`)
	// A row or line a message is about ("row 1", "第 3 行").
	rowLabel = regexp.MustCompile(`^(?i:row|line|record|item|entry)\s*#?\d+$|^第\s*\d+\s*[行条项]$`)
	// Spans that hold the case's specifics: quoted values with a digit or a
	// symbol in them, identifiers of code ("users.last_login").
	quotedSpan = regexp.MustCompile("\"[^\"]*\"|“[^”]*”|'[^'\\s]+'|'[^' ]*[^\\w\\s'][^']*'|‘[^’]*’")
	codeIdent  = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+\b|\b(?:[A-Za-z]\w*\.){2,}\w+\b`)
)

// keyValue is a key and its value as a tool writes them ("tax_id=DE1234"):
// the key stays, the value is the case's.
var keyValue = regexp.MustCompile(`\b([A-Za-z_][\w.-]*)=(?:"[^"]*"|'[^']*'|\S+)`)

// ruleColumn is the last column of a linter's line, the rule's id
// ("  no-unused-vars"); specificsInBrackets a bracketed aside.
var (
	ruleColumn          = regexp.MustCompile(`\s{2,}[\w@/.-]+$`)
	specificsInBrackets = regexp.MustCompile(`\([^()]*\)|（[^（）]*）`)
)

// snakeCode is an error said as one snake_case code.
var snakeCode = regexp.MustCompile(`^[a-z]+(?:_[a-z]+){2,}$`)

// errorCode is an error's code word ("ERESOLVE", "INVALID_FORMAT"): it
// names the failure's kind, not its cause.
var errorCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]{3,}$`)

func lastSegment(p string) string {
	if i := strings.LastIndex(p, "."); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.Index(p, "["); i >= 0 {
		p = p[:i]
	}
	return p
}

// causeText cleans one message of a failure into a cause, or "" when it
// says none: its location, markers, status and codes are left out, a
// "field: message" chain is read as the field and its message, and of the
// message's sentences the first that is not generic is kept. known says
// the text is an error's own message (no cause word needed).
func causeText(line, field string, known bool, args []string) string {
	line = recordPrefix.ReplaceAllString(line, "")
	if t := strings.TrimSpace(line); strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") {
		// A heading the error's own line follows ("error during build:"),
		// unless a clause before it says the error ("no required module
		// provides package …; to add it:").
		k := strings.LastIndexAny(t, ";；")
		if k < 0 {
			return ""
		}
		line = t[:k]
	}
	if !known && !hasCauseWord(line) && !containsAny(strings.ToLower(line[:min(len(line), 48)]), lessonVocab.Cause.ErrorMarks) {
		return "" // no cause word and no error marker: no line of the error's
	}
	l := line
	if strings.Contains(l, "<") {
		l = markup.ReplaceAllString(l, " ")
	}
	l = strings.TrimSpace(locationPrefix.ReplaceAllString(l, ""))
	if strings.Contains(l, "=") {
		l = keyValue.ReplaceAllString(l, "$1")
	}
	if strings.Contains(l, "  ") {
		l = ruleColumn.ReplaceAllString(l, "")
	}
	if strings.ContainsAny(l, "(（") {
		l = specificsInBrackets.ReplaceAllStringFunc(l, func(m string) string {
			if hasASCIIDigit(m) || strings.Contains(m, "@") {
				return "" // "(from versions: 2.2.0, 2.4.1)", "(Maria, +1 415…)"
			}
			return m
		})
	}
	status := false
	strip := func(n int) {
		if p := strings.ToLower(l[:n]); containsAny(p, lessonVocab.Cause.ErrorMarks) {
			known = true // a line opened by an error marker is the error's message
		}
		l = strings.TrimSpace(l[n:])
	}
	for changed := true; changed; {
		changed = false
		lower := strings.ToLower(l)
		for _, m := range lessonVocab.Cause.Markers {
			if strings.HasPrefix(lower, m) && len(l) > len(m) && !isWordContinuation(l[len(m):], m) {
				strip(len(m))
				changed = true
				break
			}
		}
		for _, re := range []*regexp.Regexp{codePrefix, statusPrefix, exceptionPrefix, parenCodePrefix} {
			if loc := re.FindStringIndex(l); loc != nil && loc[1] > 0 && loc[1] < len(l) {
				status = status || re == statusPrefix
				strip(loc[1])
				changed = true
			}
		}
	}
	if l == "" {
		return ""
	}
	if !known && !hasCauseWord(l) {
		return ""
	}
	// "label: label: message": labels name the field or the row, or sum up.
	var summaries []string
	for {
		i, w := labelEnd(l)
		if i < 0 {
			break
		}
		label := strings.TrimSpace(l[:i])
		rest := strings.TrimSpace(l[i+w:])
		if rest == "" {
			break
		}
		switch {
		case rowLabel.MatchString(label):
		case fieldPath.MatchString(label) && !strings.Contains(label, " "):
			field = lastSegment(label)
		default:
			summaries = append(summaries, label)
		}
		l = rest
	}
	if open := strings.Index(l, " ("); open > 0 && strings.HasSuffix(l, ")") && !strings.ContainsAny(l[:open], " \t") {
		// A value and an aside about it ("49.99 (amount must be an
		// integer …)"): the value is the case's, the aside the cause.
		l = l[open+2 : len(l)-1]
	}
	if known && snakeCode.MatchString(l) && !genericReasons[l] {
		l = strings.ReplaceAll(l, "_", " ") // "invalid_phone_format" says its cause in words
	}
	cands := []string{l}
	for i := len(summaries) - 1; i >= 0; i-- {
		cands = append(cands, summaries[i])
	}
	var fallback string
	for _, c := range cands {
		for _, sn := range causeSentences(c) {
			if !known && !hasCauseWord(sn) || status && statusReason(sn) {
				continue
			}
			sn = withField(sn, field)
			quotedSubject := strings.IndexAny(sn, "\"'“‘") == 0
			// The case's data (a machine path, a URL, an id) is left out
			// before the part is judged: "Preset not found relative to
			// rootDir /home/…" is a cause without its path.
			sn = generalise(cleanCause(sn, args), nil)
			if sn == "" {
				continue
			}
			if lower := strings.ToLower(sn); quotedSubject && !hasHan(sn) && slices.ContainsFunc(lessonVocab.Cause.Predicates, func(p string) bool { return strings.HasPrefix(lower, p) }) {
				sn = "the value " + sn // its subject was the case's value: "'fetchUser' is defined but never used"
			}
			generic := genericCause(sn)
			if generic && fallback != "" || !readablePart(sn) {
				continue
			}
			if !generic {
				return sn
			}
			fallback = sn
		}
	}
	return fallback
}

// isWordContinuation reports whether a marker matched only the start of a
// longer word ("error" of "errors").
func isWordContinuation(rest, marker string) bool {
	if marker == "" || !isWordByte(marker[len(marker)-1]) || rest == "" {
		return false
	}
	return isWordByte(rest[0])
}

// labelEnd finds the colon that ends a label ("start: …", "第 1 行：…"):
// its index and width, or -1. A colon inside a URL, a time or brackets is
// none; an arrow (" -> ") ends a label too.
func labelEnd(l string) (int, int) {
	for _, arrow := range []string{" -> ", " => ", " → "} {
		if i := strings.Index(l, arrow); i > 0 {
			if j, w := labelEnd(l[:i]); j >= 0 {
				return j, w
			}
			return i, len(arrow)
		}
	}
	depth := 0
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case depth > 0:
		case strings.HasPrefix(l[i:], "："):
			return i, len("：")
		case c == ':' && i+1 < len(l) && l[i+1] == ' ':
			return i, 1
		}
	}
	return -1, 0
}

// containsWord reports whether lower holds w as a whole word.
func containsWord(lower, w string) bool {
	for off := 0; ; {
		i := strings.Index(lower[off:], w)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if (i == 0 || !isWordByte(lower[i-1])) && (end == len(lower) || !isWordByte(lower[end])) {
			return true
		}
		off = i + 1
	}
}

var sentenceBreak = regexp.MustCompile(`[;；。]|\.\s`)

// causeSentences splits a message into its sentences and clauses, each cut
// at its first comma ("Expected an RFC3339 timestamp, got …").
func causeSentences(m string) []string {
	var out []string
	for _, s := range sentenceBreak.Split(m, -1) {
		if i := strings.IndexAny(s, ",，"); i > 0 {
			s = s[:i]
		}
		for _, got := range lessonVocab.Cause.GotEN {
			if i := strings.Index(strings.ToLower(s), got); i > 0 {
				s = s[:i] // "expected an integer but got …": what was got is the case's
			}
		}
		s = strings.TrimRight(strings.TrimSpace(s), ".:：")
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// withField puts the field a message is about before it, when the message
// does not name it and reads as its predicate ("must be an ISO 4217 code"
// about currency → "currency must be an ISO 4217 code").
func withField(msg, field string) string {
	lower := strings.ToLower(msg)
	if field == "" || containsWord(lower, strings.ToLower(field)) {
		return msg
	}
	if hasHan(msg) || slices.ContainsFunc(lessonVocab.Cause.Predicates, func(p string) bool { return strings.HasPrefix(lower, p) }) {
		return field + " " + msg
	}
	return msg
}

// cleanCause leaves the case's specifics out of a cause: quoted values,
// code identifiers that are no argument of the call, and brackets emptied
// by it.
func cleanCause(c string, args []string) string {
	if strings.Contains(c, "=") {
		c = keyValue.ReplaceAllString(c, "$1")
	}
	if !strings.ContainsAny(c, "\"“'‘") {
		return cleanIdents(c, args)
	}
	c = quotedSpan.ReplaceAllStringFunc(c, func(m string) string {
		inner := strings.Trim(m, "\"“”'‘’")
		if strings.IndexFunc(inner, func(r rune) bool { return unicode.IsDigit(r) || strings.ContainsRune("/\\@:._=", r) }) >= 0 ||
			inner == "" || !strings.ContainsAny(inner, " ") && !hasHan(inner) {
			return "" // a quoted value is the case's: 'fetchUser', "orders"
		}
		return m
	})
	return cleanIdents(c, args)
}

// cleanIdents leaves out the code identifiers of a cause that are no
// argument of the call ("users.last_login").
func cleanIdents(c string, args []string) string {
	if !strings.ContainsAny(c, "_.") {
		return tidy(c)
	}
	c = codeIdent.ReplaceAllStringFunc(c, func(m string) string {
		if slices.Contains(args, m) || strings.ToUpper(m) == m || !strings.ContainsAny(m, "_") && strings.Count(m, ".") < 2 {
			return m
		}
		return ""
	})
	return tidy(c)
}

// hasCauseWord reports whether a line has a cause word of lesson.toml.
func hasCauseWord(l string) bool {
	lower := strings.ToLower(l)
	return slices.ContainsFunc(lessonVocab.Cause.EN, func(c string) bool { return hasWordPrefix(lower, c) }) ||
		containsAny(l, lessonVocab.Cause.ZH)
}

// genericCause reports whether a message names only the kind of failure
// ("Invalid value", "参数错误", "Bad Request"): all its content words are
// lesson.toml's generic words.
func genericCause(m string) bool {
	if hasHan(m) {
		rest := m
		for _, g := range lessonVocab.Cause.GenericZH {
			rest = strings.ReplaceAll(rest, g, "")
		}
		return !hasHan(rest)
	}
	for _, w := range strings.FieldsFunc(m, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		lw := strings.ToLower(w)
		if stopEN[lw] || lessonVocab.genericEN[lw] || errorCode.MatchString(w) {
			continue
		}
		return false
	}
	return true
}

// statusReason reports whether a sentence is only an HTTP status's reason
// ("Service Unavailable"), which says no cause of its own.
func statusReason(s string) bool {
	return lessonVocab.statusReasons[strings.ToLower(strings.TrimSpace(s))]
}

// locationPrefix is a source location opening a line ("due_test.go:42: ",
// "12:5 ").
var locationPrefix = regexp.MustCompile(`^\s*(?:[\w./\\-]+\.[A-Za-z]\w{0,4}(?::\d+)+:?|\d+:\d+)\s*`)

// recordPrefix is what a tool writes before each line of its output: a
// BuildKit step and its elapsed seconds ("#5 12.41 "), a timestamp
// ("2025-11-20T08:41:13.533Z ", "[10:02:11] ").
var recordPrefix = regexp.MustCompile(`^\s*(?:#\d+\s+\d+(?:\.\d+)?\s+|\[?\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?Z?)?\]?\s+|\[\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?\]\s+)`)

// markup is a tag a harness wraps a message in ("<tool_use_error>").
var markup = regexp.MustCompile(`</?[A-Za-z][\w-]*>`)
