package heuristic

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/readability"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// A lesson is what a fixed failure teaches: the check that failed, the
// cause read from its failure text, and the change that made the same check
// pass. It is proposed only when all three can be said in words; otherwise
// the failure and its fix stay in the episode (its summary and events) as
// evidence, and nothing is proposed. There is no template lesson ("when a
// check fails, fix the cause"): it says nothing a reviewer could approve,
// and the same template from two sessions is no repetition.
//
// A lesson's statement is worded in one frame per language,
//
//	When <check> fails because <cause>, <change>
//	<check> 因“<cause>”未通过时，<change>
//
// so its parts can be read back (lessonOf) and two lessons compared by
// meaning (sameLesson): the merger groups lessons with the same check, the
// same cause and the same change, however the assistant worded them.

// lessonText holds a lesson in Chinese and English.
type lessonText struct{ zh, en string }

// lessonsByReason maps the structured reason of a failed check to its
// lesson, for checks whose reason already says both the cause and the
// change that fixes it. A reason that names only the kind of failure (a
// failed test, a lint finding) has no lesson here: its lesson is read from
// the failure text and the fix.
var lessonsByReason = map[string]lessonText{
	"cross_district": {
		zh: "远距离的大型景点单独安排一天，同一天内的景点按区域集中安排，避免跨区奔波",
		en: "Give a far-away major attraction a day of its own and group each day's sights by area, to avoid cross-district travel",
	},
	"time_conflict": {
		zh: "排行程前核对每项活动的时间，同一时段只安排一件事，避免时间冲突",
		en: "Check each activity's time before scheduling and never put two activities in the same time slot",
	},
	"over_budget": {
		zh: "给出方案前先用总费用核对预算，超出预算就先调整",
		en: "Check the total cost against the budget before presenting a plan, and adjust the plan if it is over",
	},
	"invoice_required": {
		zh: "提交报销前先核对凭证要求：超过免票额度的报销必须附发票扫描件",
		en: "Before submitting an expense claim, check the receipt rules: claims above the no-receipt limit need an invoice scan",
	},
}

// reasonAliases maps other spellings of a reason to its canonical key.
var reasonAliases = map[string]string{
	"cross_area": "cross_district", "too_far": "cross_district", "distance": "cross_district",
	"schedule_conflict": "time_conflict", "overlap": "time_conflict",
	"budget": "over_budget", "over_limit": "over_budget",
	"missing_invoice": "invoice_required", "receipt_required": "invoice_required",
	"tests_failed": "test_failure", "test_failed": "test_failure",
	"lint": "lint_error", "lint_failed": "lint_error",
	"build_failed": "build_failure", "compile_error": "build_failure",
}

// lessonWords is lesson.toml: the words the lesson reader needs.
type lessonWords struct {
	Cause struct {
		EN      []string `toml:"en"`
		ZH      []string `toml:"zh"`
		Markers []string `toml:"markers"`
		// The structure of a JSON error: keys of its messages (an error's
		// own words), of reasons (words only when they say a cause), of
		// the field a message is about.
		MessageKeys []string `toml:"message_keys"`
		ReasonKeys  []string `toml:"reason_keys"`
		FieldKeys   []string `toml:"field_keys"`
		// Words a message about a field opens with when it is the field's
		// predicate ("must be …").
		Predicates []string `toml:"predicates"`
		GenericEN  []string `toml:"generic_en"`
		GenericZH  []string `toml:"generic_zh"`
		// Reasons of an HTTP status line ("Service Unavailable").
		StatusReasons []string `toml:"status_reasons"`
		// What an error marker opening a line holds when the line is an
		// error's own message ("Error:", "错误：").
		ErrorMarks []string `toml:"error_marks"`
		// What opens the value a failure got ("… but got …").
		GotEN []string `toml:"got_en"`
		// What says a failure was the moment's (a retry of the same call
		// may pass): words, and statuses opening the text.
		Transient []string `toml:"transient"`
		// What says the thing a call named does not exist.
		NotFound          []string `toml:"not_found"`
		TransientStatuses []string `toml:"transient_statuses"`
		// What says a test's assertion failed: groups of words all in
		// the text.
		Assertions [][]string `toml:"assertions"`
		// The words that state an argument's bound before its number.
		BoundMax []string `toml:"bound_max"`
		BoundMin []string `toml:"bound_min"`
	} `toml:"cause"`
	Change struct {
		OpenersEN  []string          `toml:"openers_en"`
		OpenersZH  []string          `toml:"openers_zh"`
		KeptZH     []string          `toml:"kept_zh"`
		KeptVerbZH map[string]string `toml:"kept_verb_zh"`
		VerbsEN    []string          `toml:"verbs_en"`
		Synonyms   [][]string        `toml:"synonyms"`
		TailsEN    []string          `toml:"tails_en"`
		TailsZH    []string          `toml:"tails_zh"`
		FillersEN  []string          `toml:"fillers_en"`
		// Openers after which the next word is the change's verb, whatever
		// it is ("I'll refund …"), and words that are no change there.
		StrongOpenersEN []string `toml:"strong_openers_en"`
		NotVerbsEN      []string `toml:"not_verbs_en"`
		// Irregular past forms of the verbs ("sent"), and what marks a
		// Chinese change as done ("改成了").
		// What a sentence says the check wants ("the API wants …"), and
		// the verb a change read from it takes.
		WantsEN     []string `toml:"wants_en"`
		WantsVerbEN string   `toml:"wants_verb_en"`
		WantsZH     []string `toml:"wants_zh"`
		DoneOpeners []string `toml:"done_openers_en"`
		// How an assistant calls a fix a slip of its own: a one-off, no
		// lesson.
		// Objects that name no change ("fix the issue").
		GenericObjectsEN []string `toml:"generic_objects_en"`
		OneOffEN         []string `toml:"one_off_en"`
		// How an assistant says a failure was the one it expected.
		ExpectedFailureEN []string `toml:"expected_failure_en"`
		ExpectedFailureZH []string `toml:"expected_failure_zh"`
		// Words of a change that only waits.
		WaitingEN  []string `toml:"waiting_en"`
		WaitingZH  []string `toml:"waiting_zh"`
		OneOffZH   []string `toml:"one_off_zh"`
		PastEN     []string `toml:"past_en"`
		PastBaseEN []string `toml:"past_base_en"`
		DoneZH     []string `toml:"done_zh"`
	} `toml:"change"`
	// How a change of an argument's shape is said: {arg} is the argument,
	// {n} a code's length.
	Shape struct {
		CentsEN         string `toml:"cents_en"`
		CentsZH         string `toml:"cents_zh"`
		IntegerEN       string `toml:"integer_en"`
		IntegerZH       string `toml:"integer_zh"`
		NumberEN        string `toml:"number_en"`
		NumberZH        string `toml:"number_zh"`
		StringEN        string `toml:"string_en"`
		StringZH        string `toml:"string_zh"`
		UnixEN          string `toml:"unix_en"`
		UnixZH          string `toml:"unix_zh"`
		UnixMsEN        string `toml:"unix_ms_en"`
		UnixMsZH        string `toml:"unix_ms_zh"`
		ObjectEN        string `toml:"object_en"`
		ObjectZH        string `toml:"object_zh"`
		ListEN          string `toml:"list_en"`
		ListZH          string `toml:"list_zh"`
		CountryCodeEN   string `toml:"country_code_en"`
		CountryCodeZH   string `toml:"country_code_zh"`
		NoCountryCodeEN string `toml:"no_country_code_en"`
		NoCountryCodeZH string `toml:"no_country_code_zh"`
		DigitsEN        string `toml:"digits_en"`
		DigitsZH        string `toml:"digits_zh"`
		ISODateEN       string `toml:"iso_date_en"`
		ISODateZH       string `toml:"iso_date_zh"`
		ISOTimeEN       string `toml:"iso_time_en"`
		ISOTimeZH       string `toml:"iso_time_zh"`
		ISOOffsetEN     string `toml:"iso_offset_en"`
		ISOOffsetZH     string `toml:"iso_offset_zh"`
		CodeEN          string `toml:"code_en"`
		CodeZH          string `toml:"code_zh"`
		UpperEN         string `toml:"upper_en"`
		UpperZH         string `toml:"upper_zh"`
		PrefixEN        string `toml:"prefix_en"`
		PrefixZH        string `toml:"prefix_zh"`
		AddedEN         string `toml:"added_en"`
		AddedZH         string `toml:"added_zh"`
		RemovedEN       string `toml:"removed_en"`
		RemovedZH       string `toml:"removed_zh"`
		AtMostEN        string `toml:"at_most_en"`
		AtMostZH        string `toml:"at_most_zh"`
		AtLeastEN       string `toml:"at_least_en"`
		AtLeastZH       string `toml:"at_least_zh"`
		SmallerEN       string `toml:"smaller_en"`
		SmallerZH       string `toml:"smaller_zh"`
	} `toml:"shape"`
	Check struct {
		Shell     []string `toml:"shell"`
		Preparers []string `toml:"preparers"`
		// Launchers run the program after them; launcher flags are
		// kept with them ("python -m").
		Launchers     []string `toml:"launchers"`
		LauncherFlags []string `toml:"launcher_flags"`
		// Programs (and program-subcommand pairs) that take a
		// subcommand.
		Subcommands []string `toml:"subcommands"`
		// Commands that only wait.
		Waits []string `toml:"waits"`
	} `toml:"check"`
	Case struct {
		Keys      []string `toml:"keys"`
		Standards []string `toml:"standards"`
	} `toml:"case"`

	launchers     map[string]bool
	subcommands   map[string]bool
	verbs         map[string]bool
	verbSet       map[string]int // verb → its synonym class (or a class of its own)
	fillers       map[string]bool
	shell         map[string]bool
	caseKeys      map[string]bool
	genericEN     map[string]bool
	statusReasons map[string]bool
	notVerbs      map[string]bool
}

//go:embed lesson.toml
var lessonTOML string

var lessonVocab = func() *lessonWords {
	var w lessonWords
	if _, err := toml.Decode(lessonTOML, &w); err != nil {
		panic("heuristic: lesson.toml: " + err.Error())
	}
	set := func(list []string) map[string]bool {
		m := make(map[string]bool, len(list))
		for _, v := range list {
			m[v] = true
		}
		return m
	}
	w.verbs, w.fillers, w.shell, w.caseKeys = set(w.Change.VerbsEN), set(w.Change.FillersEN), set(w.Check.Shell), set(w.Case.Keys)
	w.genericEN, w.statusReasons, w.notVerbs = set(w.Cause.GenericEN), set(w.Cause.StatusReasons), set(w.Change.NotVerbsEN)
	w.launchers, w.subcommands = set(w.Check.Launchers), set(w.Check.Subcommands)
	w.verbSet = map[string]int{}
	for i, class := range w.Change.Synonyms {
		for _, v := range class {
			w.verbSet[v] = i + 1
		}
	}
	for i, v := range w.Change.VerbsEN {
		if w.verbSet[v] == 0 {
			w.verbSet[v] = 1000 + i
		}
	}
	return &w
}()

// checkResult is the structured message of a tool check, when it has one.
type checkResult struct {
	Result string `json:"result"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Error  string `json:"error"`
}

// parseCheck reads the reason and detail of a tool result. Unstructured
// text gives no reason and its first line as the detail.
func parseCheck(text string) (reason, detail string) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") {
		var r checkResult
		if json.Unmarshal([]byte(t), &r) == nil {
			detail = r.Detail
			if detail == "" {
				detail = r.Error
			}
			return normalizeReason(r.Reason), detail
		}
	}
	line, _, _ := strings.Cut(t, "\n")
	return "", line
}

var reasonSeparators = strings.NewReplacer("-", "_", " ", "_")

func normalizeReason(r string) string {
	r = strings.ToLower(strings.TrimSpace(r))
	r = reasonSeparators.Replace(r)
	if canon, ok := reasonAliases[r]; ok {
		return canon
	}
	return r
}

// lessons finds each failed tool check followed by a passing re-check of the
// same tool, and makes a lesson supported by the failed event, the
// assistant's fix between them, and the passing event. External content is
// never a check.
func (s *session) lessons() {
	var pending map[string][]int // check -> indices into s.failures
	for i, e := range s.events {
		if !isMessage(e) || e.Role != governance.RoleTool || e.Source == governance.SourceExternal || e.Tool == "" {
			continue
		}
		check := s.checkAt(i)
		switch e.Status {
		case governance.StatusFailed:
			if pending == nil {
				pending = map[string][]int{}
			}
			reason, detail := parseCheck(e.Text)
			pending[check] = append(pending[check], len(s.failures))
			s.failures = append(s.failures, failure{index: i, tool: e.Tool, reason: reason, detail: detail})
		case governance.StatusPassed:
			// What made the check pass is what changed after its last
			// failure: that failure teaches the lesson, the earlier ones
			// of the same check are fixed with it.
			if ks := pending[check]; len(ks) > 0 {
				last := &s.failures[ks[len(ks)-1]]
				s.lesson(last, i, s.failures[ks[0]].index)
				for _, k := range ks[:len(ks)-1] {
					s.failures[k].fixed, s.failures[k].lesson = true, last.lesson
				}
			}
			delete(pending, check)
		}
	}
}

// checkAt names the check tool event i made, so that a failure is
// re-checked by the same check: the tool, and for a shell the program its
// command ran (a passing "make migrate" between a failed and a passing
// "go test" is part of the fix, not the re-check).
func (s *session) checkAt(i int) string {
	e := s.events[i]
	if !lessonVocab.shell[strings.ToLower(e.Tool)] {
		return e.Tool
	}
	return e.Tool + "\x00" + program(s.commandBefore(i, e.Tool))
}

// lesson records what failure f, re-checked successfully at event index
// pass, teaches: f.lesson for the episode, and a proposed lesson when it can
// be said (check, cause and change).
//
// first is the index of the check's first failure: the arguments' diff is
// taken from its call, so a fix that took two tries is read whole.
func (s *session) lesson(f *failure, pass, first int) {
	support := []int64{s.events[f.index].Seq}
	for j := f.index + 1; j < pass; j++ {
		e := s.events[j]
		if e.Role == governance.RoleTool && e.Tool == f.tool {
			break // the next check of the same tool ends this fix
		}
		if isMessage(e) && e.Role == governance.RoleAssistant && e.Source != governance.SourceExternal {
			support = append(support, e.Seq)
		}
	}
	support = append(support, s.events[pass].Seq)
	f.fixed = true
	if l, ok := lessonsByReason[f.reason]; ok {
		f.lesson = l.en
		if s.zh {
			f.lesson = l.zh
		}
		s.add(governance.TypeLesson, f.lesson, false, support...)
		return
	}
	l, ok := s.readLesson(f, pass, first)
	if !ok {
		f.lesson = f.tool
		return
	}
	statement := l.statement(s.zh || hasHan(l.change))
	if statement == "" || readability.Check(statement) != readability.OK {
		// Not a lesson anyone could approve: the episode says what
		// happened ("the re-check passed: <change or check>").
		f.lesson = cmpOr(l.change, l.check, f.tool)
		return
	}
	f.lesson = statement
	s.add(governance.TypeLesson, statement, false, support...)
}

func cmpOr(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// lessonParts are the three things a lesson says.
type lessonParts struct{ check, cause, change string }

// statement words the lesson in its frame, or "" when a part is missing.
func (l lessonParts) statement(zh bool) string {
	if l.check == "" || l.cause == "" || l.change == "" {
		return ""
	}
	var s string
	if zh {
		s = fmt.Sprintf("%s 因“%s”未通过时，%s", l.check, l.cause, l.change)
	} else {
		s = fmt.Sprintf("When %s fails because %s, %s", l.check, lowerFirst(l.cause), lowerFirst(l.change))
	}
	if utf8.RuneCountInString(s) > maxStatementRunes {
		return "" // cut short it would be a fragment
	}
	return s
}

// lessonFrames read a statement's parts back.
var (
	lessonFrameEN = regexp.MustCompile(`^When (.+?) fails because ([^,]+), (.+)$`)
	lessonFrameZH = regexp.MustCompile(`^(.+?) 因“(.+?)”未通过时，(.+)$`)
)

// lessonOf reads the parts of a lesson statement in its frame, or reports
// false.
func lessonOf(statement string) (lessonParts, bool) {
	for _, re := range []*regexp.Regexp{lessonFrameEN, lessonFrameZH} {
		if m := re.FindStringSubmatch(statement); m != nil {
			return lessonParts{check: m[1], cause: m[2], change: m[3]}, true
		}
	}
	return lessonParts{}, false
}

// lessonKey is a lesson's meaning in comparable form: the check's name,
// the content stems of the cause, and the change as its verb's synonym
// class and the stems of its object.
type lessonKey struct {
	reason string // a lesson of lessonsByReason: its reason
	check  string
	cause  []uint64
	verb   int
	object []uint64
}

// keyOf is the meaning of a lesson statement, or false when it is not in a
// lesson's frame (a model's free wording, a user's preference).
func keyOf(statement string) (lessonKey, bool) {
	for reason, l := range lessonsByReason {
		if statement == l.en || statement == l.zh {
			return lessonKey{reason: reason}, true
		}
	}
	l, ok := lessonOf(statement)
	if !ok {
		return lessonKey{}, false
	}
	k := lessonKey{check: strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(l.check, "_", " "))), " ")}
	k.cause = contentStems(l.cause)
	verb, object := splitVerb(l.change)
	k.verb = lessonVocab.verbSet[verb]
	if hasHan(l.change) {
		k.verb = -1 // Chinese changes are compared whole
		object = l.change
	}
	k.object = contentStems(object)
	return k, true
}

// contentStems is the sorted set of the stems of s's content words (no
// stop word, no filler), hashed as the merger hashes words; a Chinese s
// gives its character bigrams.
func contentStems(s string) []uint64 {
	if hasHan(s) {
		return featurize(s)
	}
	var out []uint64
	for _, w := range strings.FieldsFunc(lowerASCII(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopEN[w] || lessonVocab.fillers[w] {
			continue
		}
		out = append(out, hashString(tagWord, tokenizer.Stem(w), ""))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Thresholds of sameLesson: how alike two causes and two changes' objects
// must be (Dice of their n-gram sets) to be the same.
const (
	sameCause  = 0.3
	sameObject = 0.5
	sameChange = 0.8
)

// sameLesson reports whether two lesson keys mean the same lesson.
func sameLesson(a, b lessonKey) bool {
	if a.reason != "" || b.reason != "" {
		return a.reason == b.reason
	}
	if a.check != b.check || a.verb != b.verb {
		return false
	}
	cause, object := dice(a.cause, b.cause), dice(a.object, b.object)
	// The same change made to the same check, said alike, is the same
	// lesson when the two failures' causes share a word at all: two tools'
	// messages word one cause differently ("invalid integer", "amount
	// must be an integer number of cents").
	return object >= sameObject && cause >= sameCause || object >= sameChange && cause > 0
}

// lessonIdentity is the merger's hook for lessons: for two lessons whose
// meaning is known (keyOf) it sets their similarity to 1 when they are the
// same lesson and to -1 (never merged) when they are not, whatever their
// words have in common; when either one's meaning is not known their
// n-gram similarity stands.
func lessonIdentity(items []governance.MergeItem, sim [][]float64) {
	keys := make([]*lessonKey, len(items))
	for i, it := range items {
		if it.Type != governance.TypeLesson {
			continue
		}
		if k, ok := keyOf(it.Statement); ok {
			keys[i] = &k
		}
	}
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			if keys[i] == nil || keys[j] == nil {
				continue
			}
			v := -1.0
			if sameLesson(*keys[i], *keys[j]) {
				v = 1
			}
			sim[i][j], sim[j][i] = v, v
		}
	}
}

// splitVerb splits an English change into its verb's base form and the
// rest ("resending the amount in cents" → "resend", "the amount in cents").
func splitVerb(change string) (verb, object string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(change), " ")
	return baseVerb(strings.ToLower(first)), rest
}

// baseVerb is the base form of a verb of lesson.toml written as it is, in
// the past or as a gerund ("applied", "pinned", "resending"), or "".
func baseVerb(w string) string {
	if lessonVocab.verbs[w] {
		return w
	}
	var tries []string
	switch {
	case strings.HasSuffix(w, "ied"):
		tries = append(tries, w[:len(w)-3]+"y")
	case strings.HasSuffix(w, "ed"):
		tries = append(tries, w[:len(w)-2], w[:len(w)-1], w[:len(w)-3])
	case strings.HasSuffix(w, "ing"):
		tries = append(tries, w[:len(w)-3], w[:len(w)-3]+"e", w[:max(0, len(w)-4)])
	case strings.HasSuffix(w, "es"):
		tries = append(tries, w[:len(w)-2], w[:len(w)-1])
	case strings.HasSuffix(w, "s"):
		tries = append(tries, w[:len(w)-1])
	}
	for _, t := range tries {
		if lessonVocab.verbs[t] {
			return t
		}
	}
	if i := slices.Index(lessonVocab.Change.PastEN, w); i >= 0 && i < len(lessonVocab.Change.PastBaseEN) {
		return lessonVocab.Change.PastBaseEN[i]
	}
	return ""
}

// readLesson reads the three parts of the lesson of failure f, re-checked
// at pass, each generalised: case data (phone numbers, ids, names, amounts,
// paths) is left out. The cause is read from the failure text's structure;
// the change from the diff of the failed and the passing call's arguments
// and from what the assistant said. ok is false when the session teaches
// nothing whatever its words: a value corrected by a letter or two (a
// typo), or a check that passed unchanged after the user stepped in.
func (s *session) readLesson(f *failure, pass, first int) (l lessonParts, ok bool) {
	values := s.caseValues(max(0, first-3), pass)
	failedCall, passedCall := s.commandBefore(first, f.tool), s.commandBefore(pass, f.tool)
	failedArgs, passedArgs := s.callArgs(first, f.tool), s.callArgs(pass, f.tool)
	var d argDiff
	if failedArgs != nil && passedArgs != nil {
		d = diffArgs(failedArgs, passedArgs)
	}
	if d.typo && !d.changed() || s.saysOneOff(f.index, pass) {
		return l, false // a slip corrected, not a way of doing things
	}
	if s.expectedFailure(f.index, pass) || assertionFailed(s.events[f.index].Text) {
		// A failure the assistant meant (a test written to fail first),
		// or a test's assertion: what made it pass is the code written
		// or fixed for the case, not a way of doing things.
		return l, false
	}
	if d.revalued && !d.changed() && notFound(s.events[f.index].Text) {
		// The value was not found and one of the same shape found instead
		// (the right ticket, the sku a search gave): the case's value was
		// wrong, not the way of calling the tool.
		return l, false
	}
	_, failedJSON := s.callBefore(first, f.tool)
	_, passedJSON := s.callBefore(pass, f.tool)
	unchanged := failedCall != "" && failedCall == passedCall && failedJSON == passedJSON
	if unchanged && s.userBetween(f.index, pass) {
		return l, false // the user's doing, not the assistant's
	}
	if unchanged && transient(s.events[f.index].Text) {
		return l, false // a transient failure retried as it was: nothing to learn
	}

	if d.changed() && s.userSupplies(f.index, pass, failedArgs, passedArgs) {
		return l, false // the user gave the value that made it pass
	}
	var argNames []string
	for _, a := range slices.Concat(failedArgs, passedArgs) {
		argNames = append(argNames, a.name)
	}
	zh := s.zh
	bound, stated := d.boundPhrase(s.events[f.index].Text, zh)
	if stated != "" {
		// The bound the failure states is the API's, not the case's.
		values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == stated })
	}
	l.check = s.checkName(f)
	l.cause = generalise(failureCause(s.events[f.index].Text, argNames), values)
	if l.cause == "" && !genericReasons[f.reason] {
		// A structured reason with no message says the cause itself
		// ("closed_on_day").
		l.cause = strings.ReplaceAll(f.reason, "_", " ")
	}
	if !readablePart(l.cause) {
		l.cause = ""
	}
	words, wanted := s.change(f, pass, values, l.check)
	if genericChange(words) {
		words = "" // "fix it", "adjust the request": no change a reviewer can read
	}
	if unchanged && !s.actedBetween(f.index, pass) && (words == "" || waiting(words)) {
		// The same call again with nothing done in between but waiting
		// ("I'll wait for the other job", "giving it a few seconds"): the
		// world changed (a lock released, a server up), not the way of
		// calling.
		return l, false
	}
	if d.revalued && !d.changed() && len(d.bounds) == 0 && words != "" && !related(words, l.cause, d.revaluedNames) {
		// Another text of the same arguments, and words that say
		// nothing of the failure or of what was revalued ("I'll send it
		// to you instead", "pulling the revenue now"): another record,
		// another target or another question, not a fix. (A number
		// moved is a bound or a unit, said apart.)
		return l, false
	}
	diff := d.phrase(zh || hasHan(words) || hasHan(l.cause))
	if stated != "" || bound != "" && words == "" {
		// A stated bound says the change better than any words; without
		// one the direction is said only when nothing else is.
		bound, _ = d.boundPhrase(s.events[f.index].Text, zh || hasHan(words) || hasHan(l.cause))
		diff, words = bound, ""
	}
	switch {
	case words != "" && (diff == "" || !wanted && mentions(words, d.names())):
		l.change = words
	case diff != "":
		l.change = diff
	default:
		l.change = words
	}
	return l, true
}

// expectedFailure reports whether the assistant, from the user's last
// word before failure index i up to the passing re-check at j, says the
// failure was the one it expected ("it should fail until …", "the test
// fails as intended").
func (s *session) expectedFailure(i, j int) bool {
	from := i
	for from > 0 && !(isMessage(s.events[from-1]) && s.events[from-1].Role == governance.RoleUser) {
		from--
	}
	for k := from; k < j; k++ {
		e := s.events[k]
		if !isMessage(e) || e.Role != governance.RoleAssistant || e.Source == governance.SourceExternal {
			continue
		}
		lower := strings.ToLower(e.Text)
		if slices.ContainsFunc(lessonVocab.Change.ExpectedFailureEN, func(c string) bool { return hasWordPrefix(lower, c) }) ||
			containsAny(e.Text, lessonVocab.Change.ExpectedFailureZH) {
			return true
		}
	}
	return false
}

// assertionFailed reports whether a failure text is a test's assertion
// (lesson.toml's assertions: every word of one entry in the text).
func assertionFailed(text string) bool {
	lower := strings.ToLower(text)
	return slices.ContainsFunc(lessonVocab.Cause.Assertions, func(all []string) bool {
		return len(all) > 0 && !slices.ContainsFunc(all, func(w string) bool { return !strings.Contains(lower, w) })
	})
}

// actedBetween reports whether a tool ran between event indices i and j
// that did more than wait (a shell's "sleep 5" waits).
func (s *session) actedBetween(i, j int) bool {
	for k := i + 1; k < j; k++ {
		e := s.events[k]
		if !isMessage(e) || e.Role != governance.RoleTool || e.Tool == "" {
			continue
		}
		if lessonVocab.shell[strings.ToLower(e.Tool)] && slices.Contains(lessonVocab.Check.Waits, program(s.commandBefore(k, e.Tool))) {
			continue
		}
		return true
	}
	return false
}

// waiting reports whether a change only waits ("wait for the lock",
// "give it a few seconds"): its verb or a word of its object is one of
// lesson.toml's waiting words.
func waiting(change string) bool {
	if hasHan(change) {
		return containsAny(change, lessonVocab.Change.WaitingZH)
	}
	verb, object := splitVerb(change)
	if slices.Contains(lessonVocab.Change.WaitingEN, verb) {
		return true
	}
	for _, w := range strings.Fields(lowerASCII(object)) {
		if slices.Contains(lessonVocab.Change.WaitingEN, strings.Trim(w, ".,;:!()")) {
			return true
		}
	}
	return false
}

// related reports whether a change said in words shares a content word
// with the failure's cause or with an argument whose value changed (split
// at "_" and case: timeZone is "time" and "zone").
func related(change, cause string, args []string) bool {
	have := map[uint64]bool{}
	for _, h := range contentStems(cause) {
		have[h] = true
	}
	for _, a := range args {
		for _, h := range contentStems(camelWords.ReplaceAllString(a, "$1 $2")) {
			have[h] = true
		}
	}
	return slices.ContainsFunc(contentStems(change), func(h uint64) bool { return have[h] })
}

var camelWords = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// transient reports whether a failure text says the failure was the
// moment's, not the call's: a server unavailable or overloaded, a rate
// limit, a timeout (lesson.toml's transient words, and the statuses of
// transient_statuses opening the text).
func transient(text string) bool {
	t := strings.TrimSpace(text)
	if m := statusPrefix.FindString(t); m != "" {
		for _, c := range lessonVocab.Cause.TransientStatuses {
			if strings.Contains(m, c) {
				return true
			}
		}
	}
	lower := strings.ToLower(t)
	return slices.ContainsFunc(lessonVocab.Cause.Transient, func(w string) bool { return hasWordPrefix(lower, w) })
}

// notFound reports whether a failure text says what the call named does
// not exist (lesson.toml's not_found words).
func notFound(text string) bool {
	lower := strings.ToLower(text)
	return slices.ContainsFunc(lessonVocab.Cause.NotFound, func(w string) bool { return hasWordPrefix(lower, w) })
}

// userSupplies reports whether a value of the passing call that the
// failed call did not have was said by the user between event indices i
// and j ("oh, it's ana.ruiz@brightline.io"): the user's fix, not a way of
// calling the tool.
func (s *session) userSupplies(i, j int, failed, passed []argLeaf) bool {
	had := make(map[string]any, len(failed))
	for _, f := range failed {
		had[f.path] = f.value
	}
	for k := i + 1; k < j; k++ {
		e := s.events[k]
		if !isMessage(e) || e.Role != governance.RoleUser {
			continue
		}
		for _, p := range passed {
			v, ok := p.value.(string)
			if old, kept := had[p.path]; !ok || kept && old == p.value {
				continue // not a string, or the failed call's value already
			}
			if v = strings.TrimSpace(v); utf8.RuneCountInString(v) >= 3 && strings.Contains(e.Text, v) {
				return true
			}
		}
	}
	return false
}

// genericChange reports whether a change says only a verb with no object
// of its own ("fix it", "adjust the request", "retry", "update that"):
// its object, without stop words, fillers and generic_objects_en, is
// empty.
func genericChange(change string) bool {
	if change == "" || hasHan(change) {
		return false
	}
	_, object, _ := strings.Cut(strings.TrimSpace(change), " ")
	for _, w := range strings.Fields(lowerASCII(object)) {
		w = strings.Trim(w, ".,;:!()")
		if w == "" || stopEN[w] || lessonVocab.fillers[w] || slices.Contains(lessonVocab.Change.GenericObjectsEN, w) {
			continue
		}
		return false
	}
	return true
}

// saysOneOff reports whether the assistant, between event indices i and
// j, calls what it corrects a slip of its own ("I had a typo", "打错了").
func (s *session) saysOneOff(i, j int) bool {
	for k := i + 1; k < j; k++ {
		e := s.events[k]
		if !isMessage(e) || e.Role != governance.RoleAssistant || e.Source == governance.SourceExternal {
			continue
		}
		if lower := strings.ToLower(e.Text); slices.ContainsFunc(lessonVocab.Change.OneOffEN, func(c string) bool { return hasWordPrefix(lower, c) }) ||
			containsAny(e.Text, lessonVocab.Change.OneOffZH) {
			return true
		}
	}
	return false
}

// userBetween reports whether the user spoke between event indices i and
// j.
func (s *session) userBetween(i, j int) bool {
	for k := i + 1; k < j; k++ {
		if e := s.events[k]; isMessage(e) && e.Role == governance.RoleUser {
			return true
		}
	}
	return false
}

// genericReasons name only the kind of a failure, not its cause.
var genericReasons = map[string]bool{"": true, "test_failure": true, "lint_error": true, "build_failure": true, "failed": true, "error": true}

// keyValueRe is a key=value pair (not a comparison: ">=20").
var keyValueRe = regexp.MustCompile(`[A-Za-z_]\w*=[^=\s]`)

// readablePart reports whether a part has words of its own (two at least)
// and reads as words once put in a sentence.
func readablePart(p string) bool {
	if strings.ContainsAny(p, "{}") || strings.Contains(p, "->") || keyValueRe.MatchString(p) {
		return false // a key=value, an arrow or JSON copied from a tool
	}
	n := 0
	for _, f := range strings.Fields(p) {
		if hasHan(f) {
			n += utf8.RuneCountInString(f) / 2
		} else if strings.IndexFunc(f, unicode.IsLetter) >= 0 && !hasASCIIDigit(f) && !strings.ContainsAny(f, "_/\\.=()") {
			n++
		}
	}
	return n >= 2 && readability.Check("It says "+p+".") == readability.OK
}

// hasWordPrefix reports whether lower has cue at the start of a word (so
// "violat" finds "violates", "error" finds "errors" but not "terror").
func hasWordPrefix(lower, cue string) bool {
	for off := 0; ; {
		i := strings.Index(lower[off:], cue)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || !isWordByte(lower[i-1]) {
			return true
		}
		off = i + 1
	}
}

// checkName is the check failure f made, as a reader knows it: the tool's
// name, or for a shell the program it ran ("go test", "npm run build").
func (s *session) checkName(f *failure) string {
	if !lessonVocab.shell[strings.ToLower(f.tool)] {
		return toolName(f.tool)
	}
	return program(s.checkCommand(f))
}

// toolName is a tool's name as a reader says it: a tool of an MCP server,
// which agents name "mcp__<server>__<tool>" (or "<server>__<tool>"), is its
// server and its own name ("calendar create_event").
func toolName(tool string) string {
	if !strings.Contains(tool, "__") {
		return tool
	}
	var parts []string
	for _, p := range strings.Split(tool, "__") {
		if p != "" && p != "mcp" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return tool
	}
	return strings.Join(parts, " ")
}

// program is the check a command line makes, without arguments, paths or
// the commands that only prepare it: the last command of a chain, the
// first of a pipeline ("cd web && npm run build -- --prod | tee log" →
// "npm run build"), named by checkOf.
func program(cmd string) string {
	parts := chainSeparators.Split(cmd, -1)
	for i := len(parts) - 1; i >= 0; i-- {
		part, _, _ := strings.Cut(parts[i], "|")
		fs := strings.Fields(part)
		for len(fs) > 1 && strings.Contains(fs[0], "=") {
			fs = fs[1:] // an environment variable set for the command
		}
		if len(fs) == 0 || slices.Contains(lessonVocab.Check.Preparers, fs[0]) || strings.Contains(fs[0], "=") {
			continue
		}
		return checkOf(fs)
	}
	return ""
}

// checkOf names the check of one command's words by its launcher chain,
// its program and the program's subcommand (lesson.toml's check table):
// "python manage.py migrate", "uv run pytest", "bundle exec rspec", "node
// seed.js", "npm run build", "cargo build", "pytest". A script run by a
// path is named by its file's name; arguments, flags and paths after the
// program are left out, so two runs of one check with other arguments are
// the same check, and "manage.py migrate" and "manage.py test" are two.
func checkOf(fs []string) string {
	var kept []string
	k := 0
	for k < len(fs) {
		w := commandBase(fs[k])
		switch {
		case k+1 < len(fs) && lessonVocab.launchers[w+" "+fs[k+1]]:
			kept, k = append(kept, w, fs[k+1]), k+2
		case lessonVocab.launchers[w]:
			kept, k = append(kept, w), k+1
		default:
			goto program
		}
		for k < len(fs) && strings.HasPrefix(fs[k], "-") {
			if slices.Contains(lessonVocab.Check.LauncherFlags, fs[k]) {
				kept = append(kept, fs[k])
			}
			k++
		}
	}
program:
	if k >= len(fs) || strings.ContainsAny(fs[k], "$\"'`{}<>*~") || strings.HasPrefix(fs[k], "-") {
		return strings.Join(kept, " ") // an expansion, a quoted script or nothing as the program
	}
	prog := commandBase(fs[k])
	if prog == "" {
		return strings.Join(kept, " ")
	}
	kept, k = append(kept, prog), k+1
	for key := prog; lessonVocab.subcommands[key] && k < len(fs) && plainWord(fs[k]); k++ {
		kept = append(kept, fs[k])
		key += " " + fs[k]
	}
	return strings.Join(kept, " ")
}

// commandBase is a command word without its directory ("scripts/seed.js"
// → "seed.js", "./deploy.sh" → "deploy.sh", "bin/rails" → "rails").
func commandBase(w string) string {
	if i := strings.LastIndexAny(w, "/\\"); i >= 0 {
		return w[i+1:]
	}
	return w
}

// plainWord reports whether a command word is a subcommand, not an
// argument: no flag, path, assignment, quote or pattern ("migrate",
// "ci:build", "run-script").
func plainWord(w string) bool {
	return w != "" && !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "/.=$\"'`{}[]<>*~\\@")
}

var chainSeparators = regexp.MustCompile(`&&|\|\||;`)

// checkCommand is the command the failed check ran, from the assistant's
// rendered tool call just before it ("[Bash] npm run ci:build"), if any.
func (s *session) checkCommand(f *failure) string { return s.commandBefore(f.index, f.tool) }

// commandBefore is the command of the rendered call of tool just before
// event index i, or "".
func (s *session) commandBefore(i int, tool string) string {
	c, _ := s.callBefore(i, tool)
	return c
}

// callBefore is the rendered call of tool just before event index i: what
// its line says after the tool's name, and its arguments as JSON when the
// call has them — the rest of the line itself ("[crm_update] {…}"), or the
// line after it ("[calendar_create] Weekly sync" then "{…}").
func (s *session) callBefore(i int, tool string) (command, args string) {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		e := s.events[j]
		if !isMessage(e) || e.Role != governance.RoleAssistant {
			continue
		}
		ms := checkLineRe.FindAllStringSubmatchIndex(e.Text, -1)
		for k := len(ms) - 1; k >= 0; k-- {
			m := ms[k]
			if e.Text[m[2]:m[3]] != tool {
				continue
			}
			command = strings.TrimSpace(e.Text[m[4]:m[5]])
			if strings.HasPrefix(command, "{") {
				return command, command
			}
			if next, ok := strings.CutPrefix(e.Text[m[1]:], "\n"); ok {
				next, _, _ = strings.Cut(next, "\n")
				if next = strings.TrimSpace(next); strings.HasPrefix(next, "{") {
					args = next
				}
			}
			return command, args
		}
		return "", ""
	}
	return "", ""
}

var checkLineRe = regexp.MustCompile(`(?m)^\[([^\]]{1,64})\] (.+)$`)

// change is the change that made the check pass, from what the assistant
// said between the failure and the passing re-check, generalised; "" when
// it said none in words (editing files without saying what changed, or
// only running the check again, is no change a reviewer can read).
//
// What the assistant says right after the passing re-check counts too, when
// it says what it did in the past tense ("Sent the amount in cents this
// time"): an explanation after the fact, not the next step.
//
// wanted says the change was read from what the check wants ("the API
// wants …"), not from a change said: the diff, when it has one, says it
// better.
func (s *session) change(f *failure, pass int, values []string, check string) (change string, wanted bool) {
	read := func(e *governance.Event, past bool) string {
		for _, sn := range splitSentences(nil, e.Text) {
			if strings.HasPrefix(strings.TrimSpace(sn.text), "[") {
				continue // a rendered tool call
			}
			fix := generalise(fixPhrase(sn.text, past), values)
			if fix != "" && readablePart(fix) && !onlyRechecks(fix, check) {
				return fix
			}
		}
		if past {
			return ""
		}
		return ""
	}
	var wants string
	for j := f.index + 1; j < pass; j++ {
		e := s.events[j]
		if !isMessage(e) || e.Role != governance.RoleAssistant || e.Source == governance.SourceExternal {
			continue
		}
		if fix := read(e, false); fix != "" {
			return fix, false
		}
		for _, sn := range splitSentences(nil, e.Text) {
			if fix := generalise(requirement(sn.text), values); wants == "" && fix != "" && readablePart(fix) {
				wants = fix
			}
		}
	}
	for j := pass + 1; j < len(s.events); j++ {
		e := s.events[j]
		if !isMessage(e) || e.Role != governance.RoleAssistant || e.Source == governance.SourceExternal {
			break
		}
		if fix := read(e, true); fix != "" {
			return fix, false
		}
	}
	return wants, wants != ""
}

// requirement reads a change from a sentence that says what the check
// wants ("Looks like the API wants the amount in cents" → "provide the
// amount in cents"), when no sentence says the change itself.
func requirement(sentence string) string {
	lower := lowerASCII(strings.TrimSpace(sentence))
	if hasHan(lower) {
		raw := strings.TrimSpace(sentence)
		for _, w := range lessonVocab.Change.WantsZH {
			if i := strings.Index(raw, w); i >= 0 {
				rest := raw[i+len(w):]
				if k := strings.IndexAny(rest, "，。；,;"); k >= 0 {
					rest = rest[:k]
				}
				for _, t := range lessonVocab.Change.TailsZH {
					if k := strings.Index(rest, t); k > 0 {
						rest = rest[:k]
					}
				}
				if rest = strings.TrimSpace(rest); utf8.RuneCountInString(rest) >= 3 {
					return rest
				}
			}
		}
		return ""
	}
	for _, w := range lessonVocab.Change.WantsEN {
		i := strings.Index(lower, w)
		if i <= 0 {
			continue
		}
		object := trimTrailing(strings.TrimSpace(sentence[i+len(w):]))
		for _, t := range lessonVocab.Change.TailsEN {
			if k := strings.Index(lowerASCII(object), t); k > 0 {
				object = object[:k]
			}
		}
		if k := strings.IndexAny(object, ",;:"); k > 0 {
			object = object[:k]
		}
		if first, _, _ := strings.Cut(strings.ToLower(object), " "); first == "" || stopEN[first] && first != "the" && first != "a" && first != "an" {
			return "" // "needs to be …", "wants it": no object of its own
		}
		return strings.TrimSpace(lessonVocab.Change.WantsVerbEN + " " + object)
	}
	return ""
}

// pastForm reports whether w is a verb of lesson.toml in the past tense
// ("added", "sent").
func pastForm(w string) bool {
	w = strings.ToLower(w)
	return strings.HasSuffix(w, "ed") && baseVerb(w) != "" || slices.Contains(lessonVocab.Change.PastEN, w)
}

// onlyRechecks reports whether a change does nothing but run the check
// again ("re-run the tests").
func onlyRechecks(change, check string) bool {
	if hasHan(change) {
		return false
	}
	verb, object := splitVerb(change)
	if verb != "run" && verb != "retry" && verb != "try" {
		return false
	}
	checkWords := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(strings.ReplaceAll(check, "_", " "))) {
		checkWords[tokenizer.Stem(w)] = true
	}
	for _, w := range strings.Fields(lowerASCII(object)) {
		w = strings.Trim(w, ".,;:()")
		if w == "" || stopEN[w] || lessonVocab.fillers[w] || checkWords[tokenizer.Stem(w)] {
			continue
		}
		switch tokenizer.Stem(w) {
		case "test", "check", "build", "suit", "command", "step":
			continue
		}
		return false
	}
	return true
}

// fixPhrase takes the change out of a sentence of the assistant's ("The
// build needs Node 20. I'll pin the Node version in .nvmrc" → "pin the Node
// version in .nvmrc"; "Resending with integer cents" → "resend with
// integer cents").
//
// past asks for a change said after the fact: its verb in the past tense
// (and in Chinese, a change said as done: 改成了, 已经).
func fixPhrase(sentence string, past bool) string {
	raw := strings.TrimSpace(sentence)
	if past && hasHan(raw) && !containsAny(raw, lessonVocab.Change.DoneZH) {
		return ""
	}
	if hasHan(raw) {
		// Openers in the order the sentence has them ("把 … 改成 …" opens
		// at 把), a longer one first where two start together (我把, 把).
		type at struct {
			i int
			o string
		}
		var found []at
		for _, o := range lessonVocab.Change.OpenersZH {
			if i := strings.Index(raw, o); i >= 0 {
				found = append(found, at{i, o})
			}
		}
		slices.SortStableFunc(found, func(a, b at) int {
			if a.i != b.i {
				return a.i - b.i
			}
			return len(b.o) - len(a.o)
		})
		for _, fo := range found {
			i, o := fo.i, fo.o
			rest := trimTrailing(strings.TrimSpace(raw[i+len(o):]))
			for _, t := range lessonVocab.Change.TailsZH {
				if k := strings.Index(rest, t); k > 0 {
					rest = rest[:k]
				}
			}
			sep := ""
			if rest != "" && rest[0] < utf8.RuneSelf {
				sep = " " // 把 requirements.txt …: the space stays
			}
			switch {
			case lessonVocab.Change.KeptVerbZH[o] != "":
				rest = lessonVocab.Change.KeptVerbZH[o] + sep + rest
			case slices.Contains(lessonVocab.Change.KeptZH, o):
				rest = o + sep + rest
			case strings.HasSuffix(o, "把"):
				rest = "把" + sep + rest // 我把… → 把…
			}
			if utf8.RuneCountInString(rest) >= 3 {
				return rest
			}
		}
		return ""
	}
	lower := lowerASCII(raw)
	starts := []int{0}
	strong := map[int]bool{}
	done := map[int]bool{}
	for _, o := range slices.Concat(lessonVocab.Change.OpenersEN, lessonVocab.Change.StrongOpenersEN, lessonVocab.Change.DoneOpeners) {
		i := strings.Index(lower, o)
		if i < 0 || i > 0 && isWordByte(lower[i-1]) {
			continue
		}
		starts = append(starts, i+len(o))
		if slices.Contains(lessonVocab.Change.StrongOpenersEN, o) {
			strong[i+len(o)] = true
		}
		if slices.Contains(lessonVocab.Change.DoneOpeners, o) {
			done[i+len(o)] = true
		}
	}
	for _, at := range starts {
		rest := raw[at:]
		first, tail, _ := strings.Cut(rest, " ")
		verb := baseVerb(strings.ToLower(first))
		if past && !pastForm(first) && !done[at] {
			continue
		}
		if verb == "" && !past {
			verb = looseVerb(first, strong[at], at == 0)
		}
		if verb == "" || tail == "" {
			continue
		}
		rest = trimTrailing(strings.TrimSpace(verb + " " + tail))
		// Keep the change, not what follows it ("and re-run the build")
		// nor the example it gives ("…: +86 138…").
		for _, t := range lessonVocab.Change.TailsEN {
			if k := strings.Index(lowerASCII(rest), t); k > 0 {
				rest = rest[:k]
			}
		}
		if k := strings.Index(rest, ": "); k > 0 {
			rest = rest[:k]
		}
		return strings.TrimSpace(rest)
	}
	return ""
}

// looseVerb is the verb a sentence's change opens with when lesson.toml
// does not list it: any plain word after an opener that announces an
// action ("I'll refund …"), or a gerund opening the sentence ("Resubmitting
// with …" → "resubmit"); "" otherwise.
func looseVerb(w string, strong, start bool) string {
	lw := strings.ToLower(w)
	if lw == "" || strings.IndexFunc(lw, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 ||
		stopEN[lw] || lessonVocab.fillers[lw] || lessonVocab.notVerbs[lw] {
		return ""
	}
	if strong {
		return lw
	}
	if !start || !strings.HasSuffix(lw, "ing") || len(lw) < 6 {
		return ""
	}
	stem := lw[:len(lw)-3]
	if n := len(stem); n >= 2 && stem[n-1] == stem[n-2] && !strings.ContainsRune("aeiousl", rune(stem[n-1])) {
		stem = stem[:n-1] // resubmitting → resubmit
	} else if strings.ContainsRune("vzc", rune(stem[n-1])) {
		stem += "e" // reserving → reserve
	}
	if lessonVocab.notVerbs[stem] {
		return ""
	}
	return stem
}

// caseValues are the values of one case in the failure window (the failed
// check, the fix, the passing re-check): the JSON values of tool results
// and calls under the keys of lesson.toml's case table, and every value
// with a number in it. A lesson leaves them out.
func (s *session) caseValues(from, to int) []string {
	var out []string
	call := false // walking a call's arguments: every value is the case's
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, vv := range x {
				if k = strings.ToLower(k); !call && slices.Contains(lessonVocab.Cause.MessageKeys, k) {
					continue // a tool's error message: what the lesson's cause is read from
				}
				walk(k, vv)
			}
		case []any:
			for _, vv := range x {
				walk(key, vv)
			}
		case string:
			n := utf8.RuneCountInString(strings.TrimSpace(x))
			if x = strings.TrimSpace(x); n >= 2 && n <= 80 &&
				(lessonVocab.caseKeys[key] || hasASCIIDigit(x) && !strings.Contains(x, " ") || call && n >= 3) {
				out = append(out, x)
			}
		case float64:
			if key != "" && (lessonVocab.caseKeys[key] || x >= 100 || x != float64(int64(x))) {
				out = append(out, strconv.FormatFloat(x, 'f', -1, 64))
			}
		}
	}
	for j := from; j <= to && j < len(s.events); j++ {
		e := s.events[j]
		if !isMessage(e) || e.Source == governance.SourceExternal {
			continue
		}
		for _, chunk := range jsonChunks(e.Text) {
			var v any
			if json.Unmarshal([]byte(chunk), &v) == nil {
				call = e.Role == governance.RoleAssistant
				walk("", v)
			}
		}
	}
	// Longest first, so "+86 138…" goes before "138…".
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// jsonChunks are the JSON objects a text holds whole: the text itself, or
// a rendered call's arguments ("[crm_update] {…}").
func jsonChunks(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") && !strings.HasPrefix(line, "[") {
			continue // neither JSON nor a rendered call
		}
		if m := checkLineRe.FindStringSubmatch(line); m != nil {
			line = m[2]
		}
		if strings.HasPrefix(line, "{") && strings.HasSuffix(line, "}") {
			out = append(out, line)
		}
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && strings.Contains(t, "\n") {
		out = append(out, t)
	}
	return out
}

// caseData are the kinds of case data left out of a lesson, whatever the
// session: each pattern with what stands in its place ("$1" keeps a phone
// number's country code, the part that is about every case).
var caseData = []struct {
	re   *regexp.Regexp
	keep string
	// only, when set, says which matches are case data.
	only func(string) bool
	// needs is what a text must hold for the pattern to match; "" is a
	// digit.
	needs string
}{
	{re: regexp.MustCompile(`[\w.+-]+@[\w-]+(\.[\w-]+)+`), needs: "@"},                                                            // e-mail address
	{re: regexp.MustCompile(`https?://\S+`), needs: ":"},                                                                          // URL
	{re: regexp.MustCompile(`(?:[A-Za-z]:\\|~/|/(?:home|Users|root|tmp|var|private|mnt)/)\S*`), needs: "/\\"},                     // machine path
	{re: regexp.MustCompile(`(?:\.{1,2}/)?\b[\w@-]+(?:\.[\w-]+)*(?:/[\w@.-]+)*/[\w@-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b`), needs: "/"}, // a file's path in the project
	{re: regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)},
	{re: regexp.MustCompile(`\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?`)},                                                      // date and time
	{re: regexp.MustCompile(`(\+\d{1,3})[\s-]?(?:\(?\d{1,4}\)?[\s-]?){2,5}\d{2,4}`), keep: "$1"},                                              // phone: its country code stays
	{re: regexp.MustCompile(`\(?\b\d{3,4}\)?[\s-]?\d{3,4}[\s-]?\d{3,4}\b`)},                                                                   // phone
	{re: regexp.MustCompile(`[$¥€£]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|CNY|EUR|RMB|GBP|JPY|元|美元|块)`)},                         // amount
	{re: regexp.MustCompile(`#\d+\b|\b[A-Za-z]{1,6}[-_]?\d{3,}(?:[-_]\d+)*\b`), only: notAStandard},                                           // ticket, order and invoice ids
	{re: regexp.MustCompile(`\(\s*[\d.,]{3,}\s*\)`)},                                                                                          // an example number: "(1999)"
	{re: regexp.MustCompile(`\b\d{5,}\b`)},                                                                                                    // long numbers
	{re: regexp.MustCompile(`\b[0-9a-f]{7,40}\b`), only: func(m string) bool { return hasASCIIDigit(m) && strings.ContainsAny(m, "abcdef") }}, // hashes
}

// notAStandard reports whether an id-shaped match is case data, not the
// name of a standard a failure cites ("RFC3339", "ISO8601": lesson.toml's
// standards).
func notAStandard(m string) bool {
	prefix := strings.TrimRightFunc(m, func(r rune) bool { return unicode.IsDigit(r) || r == '-' || r == '_' })
	return !slices.Contains(lessonVocab.Case.Standards, strings.ToUpper(prefix))
}

// generalise leaves the case data out of a lesson's part: the case's own
// values, then every kind of caseData; what is left is tidied.
func generalise(s string, values []string) string {
	if s == "" {
		return ""
	}
	for _, v := range values {
		if !strings.Contains(s, v) {
			continue
		}
		if isAlnumByte(v[0]) && isAlnumByte(v[len(v)-1]) && !hasHan(v) {
			// A word-like value goes only where it is whole ("eur", not
			// the "eur" of "Europe").
			s = replaceWord(s, v)
			continue
		}
		s = strings.ReplaceAll(s, v, "")
	}
	digits := hasASCIIDigit(s)
	for _, c := range caseData {
		if c.needs != "" && !strings.ContainsAny(s, c.needs) || c.needs == "" && !digits {
			continue // the pattern cannot match: spare the regexp
		}
		if c.only == nil {
			s = c.re.ReplaceAllString(s, c.keep)
			continue
		}
		s = c.re.ReplaceAllStringFunc(s, func(m string) string {
			if c.only(m) {
				return ""
			}
			return m
		})
	}
	return tidy(s)
}

// replaceWord leaves v out of s where it stands as a whole word.
func replaceWord(s, v string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		whole := (i == 0 || !isAlnumByte(s[i-1])) && (end == len(s) || !isAlnumByte(s[end]))
		b.WriteString(s[:i])
		if !whole {
			b.WriteString(v)
		}
		s = s[end:]
	}
}

func isAlnumByte(c byte) bool { return c != '\'' && isWordByte(c) }

// tidy removes what leaving case data out leaves behind: empty quotes and
// brackets, doubled spaces, a space before punctuation, a joining word or
// punctuation at either end.
func tidy(s string) string {
	for _, empty := range []string{`""`, `''`, "``", "()", "[]", "“”", "（）", "： ", ": ,"} {
		s = strings.ReplaceAll(s, empty, "")
	}
	s = strings.Join(strings.Fields(" "+s+" "), " ")
	if strings.ContainsAny(s, "'’") {
		s = orphanPossessive.ReplaceAllString(s, "${1}the")
	}
	if strings.ContainsAny(s, ",.;:)") {
		s = spaceBeforePunct.ReplaceAllString(s, "$1$2")
	}
	s = strings.ReplaceAll(s, "( ", "(")
	for {
		t := strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",;:-=(", r) })
		lower := strings.ToLower(t)
		for _, w := range []string{" to", " for", " of", " as", " with", " the", " a", " an", " and", " on", " at", " in", " by", " from", " is", " are"} {
			if strings.HasSuffix(lower, w) {
				t = t[:len(t)-len(w)]
				break
			}
		}
		if t == s {
			return t
		}
		s = t
	}
}

// spaceBeforePunct is a space left before punctuation that ends a word
// (" ," but not " .nvmrc").
var spaceBeforePunct = regexp.MustCompile(`\s+([,.;:)])(\s|$)`)

// orphanPossessive is "'s" whose owner was left out ("to Wang Fang's
// number" → "to 's number" → "to the number").
var orphanPossessive = regexp.MustCompile(`(^|\s)['’]s\b`)

// lowerFirst lowercases an English part's first letter unless the first
// word is a name or an acronym ("Invalid phone" → "invalid phone", "API"
// and "DueDate" stay).
func lowerFirst(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if len(first) < 2 || !('A' <= first[0] && first[0] <= 'Z') {
		return s
	}
	for i := 1; i < len(first); i++ {
		if !('a' <= first[i] && first[i] <= 'z') {
			return s
		}
	}
	return string(first[0]+'a'-'A') + s[1:]
}
