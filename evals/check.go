package evals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Check types: code checks of a model's output, attached to a rule (stored
// on the rule or given in an ab case) or used as guards.
const (
	CheckContains       = "contains"
	CheckNotContains    = "not_contains"
	CheckRegex          = "regex"
	CheckTimeWindow     = "time_window"
	CheckJSONPathEquals = "json_path_equals"
)

// CheckTypes lists the known check types.
var CheckTypes = []string{CheckContains, CheckNotContains, CheckRegex, CheckTimeWindow, CheckJSONPathEquals}

// Check is one code check of an output.
//
//   - contains / not_contains: Value must (not) occur, case-insensitively;
//   - regex: Value is a Go regular expression that must match;
//   - time_window: a block covering Start–End (HH:MM) whose label names a
//     rest (Labels, default nap/rest/break/午睡/午休/休息…) must exist, Count
//     times at least (default 1); with Mode "free", no other block may
//     overlap the window instead;
//   - json_path_equals: the value at Path (dotted, with indexes and *)
//     must equal Equals.
//
// Path, when set on the other types, restricts the check to the values
// found there in the JSON output; with a * it applies to each of them.
type Check struct {
	Type   string   `yaml:"type" json:"type"`
	Value  string   `yaml:"value,omitempty" json:"value,omitempty"`
	Path   string   `yaml:"path,omitempty" json:"path,omitempty"`
	Equals any      `yaml:"equals,omitempty" json:"equals,omitempty"`
	Start  string   `yaml:"start,omitempty" json:"start,omitempty"`
	End    string   `yaml:"end,omitempty" json:"end,omitempty"`
	Labels []string `yaml:"labels,omitempty" json:"labels,omitempty"`
	Mode   string   `yaml:"mode,omitempty" json:"mode,omitempty"`
	Count  int      `yaml:"count,omitempty" json:"count,omitempty"`

	re         *regexp.Regexp
	start, end int
	compiled   bool
}

// String describes the check in one line.
func (c *Check) String() string {
	var s string
	switch c.Type {
	case CheckContains, CheckNotContains:
		s = fmt.Sprintf("%s %q", c.Type, c.Value)
	case CheckRegex:
		s = fmt.Sprintf("regex /%s/", c.Value)
	case CheckTimeWindow:
		s = fmt.Sprintf("time_window %s–%s", c.Start, c.End)
		if c.Mode == "free" {
			s += " free"
		}
	case CheckJSONPathEquals:
		b, _ := json.Marshal(c.Equals)
		s = fmt.Sprintf("%s = %s", c.Path, b)
		return s
	default:
		s = c.Type
	}
	if c.Path != "" {
		s += " at " + c.Path
	}
	return s
}

func validateCheck(v *validator, id, field string, c *Check) {
	if c == nil {
		v.add(id, field, governance.Say("is empty"))
		return
	}
	if err := c.compile(); err != nil {
		v.add(id, field, governance.Text{ID: err.Error()})
	}
}

// compile validates the check and prepares it; errors name the field.
func (c *Check) compile() error {
	switch c.Type {
	case CheckContains, CheckNotContains:
		if c.Value == "" {
			return fmt.Errorf("value: is required for %s", c.Type)
		}
	case CheckRegex:
		re, err := regexp.Compile(c.Value)
		if err != nil || c.Value == "" {
			return fmt.Errorf("value: is not a valid regular expression: %v", err)
		}
		c.re = re
	case CheckTimeWindow:
		var ok1, ok2 bool
		c.start, ok1 = parseClock(c.Start)
		c.end, ok2 = parseClock(c.End)
		if !ok1 || !ok2 || c.end <= c.start {
			return fmt.Errorf("start, end: need two times HH:MM with start before end")
		}
		if c.Mode != "" && c.Mode != "covered" && c.Mode != "free" {
			return fmt.Errorf("mode: %q is not covered or free", c.Mode)
		}
		if c.Count < 0 {
			return fmt.Errorf("count: must be zero or more")
		}
	case CheckJSONPathEquals:
		if c.Path == "" {
			return fmt.Errorf("path: is required for json_path_equals")
		}
	default:
		return fmt.Errorf("type: %q is not one of %s", c.Type, strings.Join(CheckTypes, ", "))
	}
	if c.Path != "" {
		if _, err := parsePath(c.Path); err != nil {
			return fmt.Errorf("path: %v", err)
		}
	}
	c.compiled = true
	return nil
}

// ParseChecks decodes and validates a JSON array of checks (as stored on a
// rule).
func ParseChecks(data string) ([]*Check, error) {
	data = strings.TrimSpace(data)
	if data == "" {
		return nil, nil
	}
	var checks []*Check
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&checks); err != nil {
		return nil, fmt.Errorf("checks are not a JSON array of checks: %v", err)
	}
	for i, c := range checks {
		if c == nil {
			return nil, fmt.Errorf("check %d is empty", i+1)
		}
		if err := c.compile(); err != nil {
			return nil, fmt.Errorf("check %d: %v", i+1, err)
		}
	}
	return checks, nil
}

// CheckResult is the outcome of one check on one output.
type CheckResult struct {
	Check    string `json:"check"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
}

// Output is a model answer: its text and, when it is JSON, the value.
type Output struct {
	Text   string
	Value  any
	IsJSON bool
}

// ParseOutput reads a model answer; JSON is recognised even inside a
// fenced code block or surrounded by prose.
func ParseOutput(text string) *Output {
	o := &Output{Text: text}
	for _, cand := range jsonCandidates(text) {
		var v any
		dec := json.NewDecoder(strings.NewReader(cand))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || dec.More() {
			continue
		}
		switch v.(type) {
		case map[string]any, []any: // an object or array, nothing after it
			o.Value, o.IsJSON = normalizeJSON(v), true
			return o
		}
	}
	return o
}

func jsonCandidates(text string) []string {
	t := strings.TrimSpace(text)
	out := []string{t}
	if i := strings.Index(t, "```"); i >= 0 {
		rest := t[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			out = append(out, strings.TrimSpace(rest[:j]))
		}
	}
	if i, j := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}'); i >= 0 && j > i {
		out = append(out, t[i:j+1])
	}
	return out
}

// normalizeJSON turns json.Numbers into float64 so values compare simply.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}

// Run applies the check to an output.
func (c *Check) Run(o *Output) CheckResult {
	if !c.compiled {
		if err := c.compile(); err != nil {
			return CheckResult{Check: c.String(), Evidence: "invalid check: " + err.Error()}
		}
	}
	res := CheckResult{Check: c.String()}
	res.Passed, res.Evidence = c.run(o)
	return res
}

func (c *Check) run(o *Output) (bool, string) {
	if c.Type == CheckJSONPathEquals {
		return c.runJSONPath(o)
	}
	if c.Path == "" {
		return c.runText(o.Text, o.Value, o.IsJSON)
	}
	if !o.IsJSON {
		return false, "the output is not JSON, so path " + c.Path + " cannot be read"
	}
	path, _ := parsePath(c.Path)
	values := evalPath(o.Value, path)
	if len(values) == 0 {
		return false, "path " + c.Path + " matches nothing in the output"
	}
	if !slices.Contains(path, "*") {
		var parts []string
		for _, v := range values {
			parts = append(parts, valueText(v))
		}
		return c.runText(strings.Join(parts, "\n"), values[0], true)
	}
	for i, v := range values {
		if ok, ev := c.runText(valueText(v), v, true); !ok {
			return false, fmt.Sprintf("%s: element %d: %s", c.Path, i, ev)
		}
	}
	return true, fmt.Sprintf("holds for all %d elements at %s", len(values), c.Path)
}

func (c *Check) runText(text string, value any, isJSON bool) (bool, string) {
	lower := strings.ToLower(text)
	switch c.Type {
	case CheckContains:
		if i := strings.Index(lower, strings.ToLower(c.Value)); i >= 0 {
			return true, "found: " + snippet(text, i, len(c.Value))
		}
		return false, fmt.Sprintf("%q does not occur", c.Value)
	case CheckNotContains:
		if i := strings.Index(lower, strings.ToLower(c.Value)); i >= 0 {
			return false, "occurs: " + snippet(text, i, len(c.Value))
		}
		return true, fmt.Sprintf("%q does not occur", c.Value)
	case CheckRegex:
		if loc := c.re.FindStringIndex(text); loc != nil {
			return true, "matched: " + snippet(text, loc[0], loc[1]-loc[0])
		}
		return false, fmt.Sprintf("/%s/ does not match", c.Value)
	case CheckTimeWindow:
		var blocks []timeBlock
		if isJSON {
			blocks = jsonBlocks(value)
		} else {
			blocks = textBlocks(text)
		}
		return c.runTimeWindow(blocks)
	}
	return false, "unknown check type " + c.Type
}

func snippet(text string, i, n int) string {
	start, end := max(0, i-30), min(len(text), i+n+30)
	for start > 0 && !utf8Start(text[start]) {
		start--
	}
	for end < len(text) && !utf8Start(text[end]) {
		end++
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func (c *Check) runJSONPath(o *Output) (bool, string) {
	if !o.IsJSON {
		return false, "the output is not JSON"
	}
	path, _ := parsePath(c.Path)
	values := evalPath(o.Value, path)
	if len(values) == 0 {
		return false, "path " + c.Path + " matches nothing in the output"
	}
	want := normalizeYAMLValue(c.Equals)
	for i, v := range values {
		if !reflect.DeepEqual(v, want) {
			got, _ := json.Marshal(v)
			w, _ := json.Marshal(want)
			where := c.Path
			if len(values) > 1 {
				where = fmt.Sprintf("%s (element %d)", c.Path, i)
			}
			return false, fmt.Sprintf("%s is %s, want %s", where, got, w)
		}
	}
	got, _ := json.Marshal(values[0])
	return true, fmt.Sprintf("%s is %s", c.Path, got)
}

// normalizeYAMLValue gives a YAML- or JSON-decoded value the shape the
// JSON decoder produces (float64 numbers, map[string]any).
func normalizeYAMLValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return v
	}
	return normalizeJSON(out)
}

// parsePath splits a dotted path: keys, array indexes and * ("days.*.blocks",
// "days[0].title", "route_check.attached").
func parsePath(p string) ([]string, error) {
	p = strings.NewReplacer("[", ".", "]", "").Replace(strings.TrimPrefix(strings.TrimSpace(p), "$."))
	var out []string
	for _, seg := range strings.Split(p, ".") {
		if seg == "" {
			return nil, fmt.Errorf("%q has an empty segment", p)
		}
		out = append(out, seg)
	}
	return out, nil
}

// evalPath returns every value the path reaches.
func evalPath(v any, path []string) []any {
	cur := []any{v}
	for _, seg := range path {
		var next []any
		for _, x := range cur {
			switch t := x.(type) {
			case map[string]any:
				if seg == "*" {
					for _, k := range slices.Sorted(mapKeys(t)) {
						next = append(next, t[k])
					}
				} else if e, ok := t[seg]; ok {
					next = append(next, e)
				}
			case []any:
				if seg == "*" {
					next = append(next, t...)
				} else if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(t) {
					next = append(next, t[i])
				}
			}
		}
		cur = next
	}
	return cur
}

// valueText renders a JSON value as text for text checks.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// DefaultRestLabels name a rest in an itinerary block.
var DefaultRestLabels = []string{"午睡", "午休", "小睡", "休息", "睡觉", "nap", "rest", "break", "siesta", "sleep"}

// timeBlock is a span of a day in minutes with the text that labels it. A
// point in time has end == start.
type timeBlock struct {
	start, end int
	label      string
}

var (
	clockRe = `(\d{1,2})(?:\s*[:：.]\s*(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|点|時|时)?`
	rangeRe = regexp.MustCompile(`(?i)` + clockRe + `\s*(?:-|–|—|~|～|至|到|to|until)\s*` + clockRe)
	pointRe = regexp.MustCompile(`(?i)(\d{1,2})\s*[:：]\s*(\d{2})\s*(am|pm)?`)
)

func parseClock(s string) (int, bool) {
	m := regexp.MustCompile(`(?i)^\s*` + clockRe + `\s*$`).FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	return clockMinutes(m[1], m[2], m[3], true)
}

// clockMinutes converts hour, minute and suffix to minutes after midnight;
// a bare hour counts only when strict is false or a suffix is present.
func clockMinutes(h, m, suffix string, strict bool) (int, bool) {
	hour, err := strconv.Atoi(h)
	if err != nil {
		return 0, false
	}
	minute := 0
	if m != "" {
		minute, _ = strconv.Atoi(m)
	} else if suffix == "" && strict {
		return 0, false
	}
	switch strings.ToLower(strings.ReplaceAll(suffix, ".", "")) {
	case "pm":
		if hour < 12 {
			hour += 12
		}
	case "am":
		if hour == 12 {
			hour = 0
		}
	}
	if hour > 24 || minute > 59 {
		return 0, false
	}
	return hour*60 + minute, true
}

// findBlocks finds time ranges (and lone clock times) in one piece of text;
// the label of each is the text itself.
func findBlocks(text, label string) []timeBlock {
	var out []timeBlock
	covered := make([]bool, len(text))
	for _, m := range rangeRe.FindAllStringSubmatchIndex(text, -1) {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return text[m[2*i]:m[2*i+1]]
		}
		endSuffix := g(6)
		startSuffix := g(3)
		if startSuffix == "" && (strings.EqualFold(endSuffix, "pm") || strings.EqualFold(endSuffix, "am")) {
			startSuffix = endSuffix // "2-4pm"
		}
		// A range needs a clock on at least one side (14:00, 2pm, 14点).
		if g(2) == "" && g(5) == "" && startSuffix == "" && endSuffix == "" {
			continue
		}
		s, ok1 := clockMinutes(g(1), g(2), startSuffix, false)
		e, ok2 := clockMinutes(g(4), g(5), endSuffix, false)
		if !ok1 || !ok2 || e <= s {
			continue
		}
		out = append(out, timeBlock{start: s, end: e, label: label})
		for i := m[0]; i < m[1]; i++ {
			covered[i] = true
		}
	}
	for _, m := range pointRe.FindAllStringSubmatchIndex(text, -1) {
		if covered[m[0]] {
			continue
		}
		suffix := ""
		if m[6] >= 0 {
			suffix = text[m[6]:m[7]]
		}
		if t, ok := clockMinutes(text[m[2]:m[3]], text[m[4]:m[5]], suffix, true); ok {
			out = append(out, timeBlock{start: t, end: t, label: label})
		}
	}
	return out
}

func textBlocks(text string) []timeBlock {
	var out []timeBlock
	for _, line := range strings.Split(text, "\n") {
		out = append(out, findBlocks(line, line)...)
	}
	return out
}

// jsonBlocks walks a JSON value: each object is a block when it has
// start/end-like fields, otherwise each of its strings is searched for times;
// the label is every string of the object.
func jsonBlocks(v any) []timeBlock {
	var out []timeBlock
	var walk func(x any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			var strs []string
			var startV, endV string
			for _, k := range slices.Sorted(mapKeys(t)) {
				s, ok := t[k].(string)
				if !ok {
					continue
				}
				strs = append(strs, s)
				lk := strings.ToLower(k)
				switch {
				case strings.Contains(lk, "start") || lk == "from" || strings.Contains(lk, "begin"):
					startV = s
				case strings.Contains(lk, "end") || lk == "to" || strings.Contains(lk, "until"):
					endV = s
				}
			}
			label := strings.Join(strs, " | ")
			s, ok1 := parseClock(startV)
			e, ok2 := parseClock(endV)
			if ok1 && ok2 && e > s {
				out = append(out, timeBlock{start: s, end: e, label: label})
			} else {
				for _, str := range strs {
					out = append(out, findBlocks(str, label)...)
				}
			}
			for _, k := range slices.Sorted(mapKeys(t)) {
				if _, ok := t[k].(string); !ok {
					walk(t[k])
				}
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			out = append(out, findBlocks(t, t)...)
		}
	}
	walk(v)
	return out
}

func (c *Check) labels() []string {
	if len(c.Labels) > 0 {
		return c.Labels
	}
	return DefaultRestLabels
}

func (c *Check) isRest(label string) bool {
	l := strings.ToLower(label)
	for _, w := range c.labels() {
		if strings.Contains(l, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

func fmtClock(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

func (c *Check) runTimeWindow(blocks []timeBlock) (bool, string) {
	window := fmtClock(c.start) + "–" + fmtClock(c.end)
	if c.Mode == "free" {
		for _, b := range blocks {
			if b.start < c.end && b.end > c.start && !(b.start == b.end && (b.start == c.start || b.start == c.end)) && !c.isRest(b.label) {
				return false, fmt.Sprintf("%s–%s overlaps %s: %s", fmtClock(b.start), fmtClock(b.end), window, shorten(b.label, 120))
			}
		}
		return true, fmt.Sprintf("nothing but rest is planned in %s (%d time(s) read)", window, len(blocks))
	}
	want := max(c.Count, 1)
	var found []string
	for _, b := range blocks {
		if b.start <= c.start && b.end >= c.end && c.isRest(b.label) {
			found = append(found, shorten(b.label, 120))
		}
	}
	if len(found) >= want {
		return true, "rest block covering " + window + ": " + found[0]
	}
	var near []string
	for _, b := range blocks {
		if b.end > b.start {
			near = append(near, fmtClock(b.start)+"–"+fmtClock(b.end))
		}
	}
	msg := fmt.Sprintf("%d rest block(s) covering %s, want %d", len(found), window, want)
	if len(near) > 0 {
		msg += "; ranges found: " + strings.Join(firstN(near, 8), ", ")
	} else {
		msg += "; no time ranges found"
	}
	return false, msg
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
