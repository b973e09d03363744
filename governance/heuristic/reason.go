package heuristic

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/readability"
)

// A wish is often said with the speaker's reason or circumstance after it:
// "Keep answers short, I read these between meetings", "Give weights in
// kilos - the loading crew never uses pounds", 用公里就行，我们这边没人用英里.
// The reason is why, not what: the rule is the wish, and the reason stays
// in the event it was said in (the rule's evidence). A clause after the
// last separator is a reason when it opens with a subject pronoun or a
// reason word (cues/reason_subject), or with a determiner and holds a
// finite verb (cues/reason_determiner, cues/reason_verb) — "the newest
// first" qualifies the wish and stays with it; in Chinese, a clause the
// write gate reads as opening with a subject (gate.OpensWithSubject: 我们这边,
// 天黑得早, 反正读者…). A clause that speaks to
// the agent ("you", 你) or carries a scope of its own is not a reason.
var (
	cueReasonSubjectEN    = loadCues("reason_subject.en")
	cueReasonDeterminerEN = loadCues("reason_determiner.en")
	cueReasonVerbEN       = loadCues("reason_verb.en")
)

// wishSeparators end a wish before its reason, longest first.
var wishSeparators = []string{" — ", " – ", " - ", "——", "；", "; ", "，", ", "}

// wishBeforeReason splits text into the wish and the reason after it; ok
// is false when the last clause is no reason or nothing is left before it.
func wishBeforeReason(text string) (wish string, ok bool) {
	text = strings.TrimRight(strings.TrimSpace(text), ".!。！")
	cut, sep := -1, ""
	for _, s := range wishSeparators {
		if i := strings.LastIndex(text, s); i > cut {
			cut, sep = i, s
		}
	}
	if cut <= 0 {
		return "", false
	}
	wish, reason := strings.TrimSpace(text[:cut]), strings.TrimSpace(text[cut+len(sep):])
	if !isReason(reason) || len([]rune(wish)) < 4 {
		return "", false
	}
	return wish, true
}

func isReason(clause string) bool {
	t := newText(clause)
	if t.han {
		// A clause opening with a demonstrative points back at what the
		// wish names ("这段时间都空出来"): it is the wish, not its reason.
		if strings.ContainsAny(clause, "你您") || hasAnyPrefix(clause, []string{"这", "那"}) || !gate.OpensWithSubject(clause) {
			return false
		}
	} else {
		words := strings.FieldsFunc(t.lower, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
		if len(words) < 2 || slices.Contains(words, "you") || slices.Contains(words, "your") {
			return false
		}
		first := words[0]
		switch {
		case slices.Contains(cueReasonSubjectEN, first) || len(words) > 2 && slices.Contains(cueReasonSubjectEN, first+" "+words[1]):
		case slices.Contains(cueReasonDeterminerEN, first) && slices.ContainsFunc(words[1:], func(w string) bool { return slices.Contains(cueReasonVerbEN, w) }):
		default:
			return false
		}
	}
	r := readSentence(clause, false)
	return (r.scope == scopeNone || !r.norm) && (r.veto == vetoNone || r.veto == vetoNarration)
}

// readUnit reads one unit of a turn. A wish said with its reason after it
// (wishBeforeReason) is read as the wish alone — whether it is one, and
// whether it stands for every time to come — so that the reason's words
// neither hide it nor make it standing ("…, she prints every one"). The
// statement is the wish: the reason stays in the event, the rule's
// evidence, and nothing the reason says can ride into memory on the
// wish's placement (the write gate places no reason clause).
func (s *session) readUnit(e *governance.Event, index int, u unit) {
	if !s.readWish(e, index, u) {
		s.read(e, index, sentence{text: u.text, question: u.question}, newText(u.text), u.r)
	}
}

func (s *session) readWish(e *governance.Event, index int, u unit) bool {
	if e.Source == governance.SourceExternal || u.question || u.r.veto != vetoNone {
		return false
	}
	wish, ok := wishBeforeReason(u.text)
	if !ok {
		return false
	}
	t := newText(wish)
	rd := readSentence(wish, false)
	if rd.bare || rd.refers || rd.veto != vetoNone || isBackReference(t) {
		return false
	}
	items, said, prefs, durables := len(s.items), len(s.said), s.prefs, s.durables
	s.read(e, index, sentence{text: wish}, t, rd)
	// The wish must be a preference and read as a sentence alone ("Never
	// edit the files under gen/" reads as cut off; with its reason it
	// does not): otherwise the sentence is read whole.
	if len(s.said) != said+1 || !slices.ContainsFunc(s.items[items:], func(it governance.ExtractedItem) bool { return it.Type == governance.TypePreference }) ||
		slices.ContainsFunc(s.items[items:], func(it governance.ExtractedItem) bool { return readability.Check(it.Statement) != readability.OK }) {
		s.items, s.said, s.prefs, s.durables = s.items[:items], s.said[:said], prefs, durables
		return false
	}
	s.said[said].text = u.text
	return true
}
