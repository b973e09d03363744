package heuristic

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// A sentence that only points back ("Keep doing that.", "以后都这样。") says
// nothing by itself: it makes what it points at durable. A sentence that
// names something said before ("that thing about the deadline", "上次说的截止
// 日期那件事") carries the earlier sentence it refers to.
var (
	backRefEN = regexp.MustCompile(`^(?:(?:ok|okay|yes|yeah|great|nice|perfect|right|good|please|and)[, ]+)*(?:keep doing (?:that|this|it)|keep it up|do (?:that|this|it) (?:every time|from now on|always|going forward)|always do (?:that|this|it)(?: like that| that way)?|(?:like|do it like) that from now on|that's the way(?: to do it)?(?:,? always)?)(?: from now on| going forward| always)?[.!]*$`)
	backRefZH = []string{"以后都这样", "以后就这样", "以后都这么做", "以后就这么做", "就这么办", "保持这样", "继续这样", "以后都按这个来", "以后照这个来", "以后也这样", "以后都照这样"}

	// A fragment that only stresses the instruction before it: "Ever.",
	// "Never.", "No exceptions."
	emphasisEN = regexp.MustCompile(`^(?:ever|never|not ever|never ever|always|no exceptions|no exception|period|full stop)[.!]*$`)

	aboutEN = regexp.MustCompile(`(?:that|the) (?:thing|point|part|bit|note|rule|stuff) (?:about|on|regarding) (?:the |our |my )?([a-z0-9][a-z0-9 _\-.]{1,40}?)(?:[ ,.;!?]|$)`)
	aboutZH = regexp.MustCompile(`(?:上次|之前|刚才|前面)?(?:说的|提到的|讲的|说过的)(.{1,10}?)(?:那件事|那个事|那事|的事|那条|那点)`)
)

// isBackReference reports whether a sentence only points back.
func isBackReference(t text) bool {
	if t.han {
		s := trimTrailing(stripLeadingZH(t.raw, standingFillersZH))
		for _, p := range backRefZH {
			if strings.HasPrefix(s, p) && len([]rune(s))-len([]rune(p)) <= 3 {
				return true
			}
		}
		// "这是团队规定。": names what was said a rule.
		return matchIf(ruleNameZH, s, ruleNounsZH...)
	}
	lower := strings.TrimSpace(t.lower)
	return backRefEN.MatchString(lower) || matchIf(ruleNameEN, lower, ruleNounsEN...) || emphasisEN.MatchString(lower)
}

// userSentence is a sentence the user said earlier in the session.
type userSentence struct {
	seq  int64
	text string
	item int // index into items of what it yielded, or -1
	// notTheirs: the sentence is no wish the user stands by (another's
	// view, a quotation, a mention, a supposition, taken back): nothing
	// points back at it.
	notTheirs bool
	// index is the sentence's event; r and question what the reader made
	// of it.
	index    int
	r        reading
	question bool
}

// pointBack makes what a back-reference points at durable: the preference
// the user stated just before, else their previous sentence, else — when
// assistantToo — what the assistant did last. It reports whether it found
// something.
func (s *session) pointBack(e *governance.Event, index int, assistantToo bool) bool {
	if n := len(s.said); n > 0 {
		prev := s.said[n-1]
		if prev.notTheirs {
			return false
		}
		if prev.item >= 0 && s.items[prev.item].Type == governance.TypePreference {
			it := &s.items[prev.item]
			it.Durable = true
			it.SupportSeqs = appendSeq(it.SupportSeqs, e.Seq)
			s.durables++
			return true
		}
		s.add(governance.TypePreference, preferenceStatement(prev.text, false), true, prev.seq, e.Seq)
		s.prefs++
		s.durables++
		return true
	}
	if !assistantToo {
		return false
	}
	for j := index - 1; j >= 0; j-- {
		a := s.events[j]
		if isMessage(a) && a.Role == governance.RoleAssistant && a.Source != governance.SourceExternal {
			line, _, _ := strings.Cut(strings.TrimSpace(a.Text), "\n")
			var st string
			if s.zh {
				st = "以后都照这样做：" + line
			} else {
				st = "Keep doing what the assistant did: " + line
			}
			s.add(governance.TypePreference, finish(st), true, a.Seq, e.Seq)
			s.prefs++
			s.durables++
			return true
		}
	}
	return false
}

// withReference appends to a statement the earlier sentence it refers to
// by topic, when one is found.
func (s *session) withReference(t text, statement string) string {
	var topic string
	if m := aboutEN.FindStringSubmatch(t.lower); m != nil {
		topic = strings.TrimSpace(m[1])
	} else if m := aboutZH.FindStringSubmatch(t.raw); m != nil {
		topic = strings.TrimSpace(m[1])
	}
	if topic == "" {
		return statement
	}
	for i := len(s.said) - 1; i >= 0; i-- {
		prev := s.said[i].text
		if strings.Contains(lowerASCII(prev), topic) && prev != t.raw {
			return finish(trimTrailing(statement) + " (" + trimTrailing(strings.TrimSpace(prev)) + ")")
		}
	}
	return statement
}

func appendSeq(seqs []int64, seq int64) []int64 {
	for _, s := range seqs {
		if s == seq {
			return seqs
		}
	}
	return append(seqs, seq)
}

// readWithPreviousTurn reads a back-reference that opens a turn and has
// words of its own ("One decimal place, always.", "Every single time, for
// every booking.") or a rule that names someone or something of the
// previous message by a pronoun ("Always cc her on anything about
// Madrid.") joined to the user's previous message, as either is joined to
// the sentence before it in a turn: the rule carries the sentence it points
// at. That sentence must be the last of the
// user's previous message, the user's own wish (no veto, no question), and
// not yet a standing rule; a non-durable wish it gave becomes the rule.
// It reports whether the joined sentence gave a standing rule; if not,
// nothing is changed and the caller reads the unit alone.
func (s *session) readWithPreviousTurn(e *governance.Event, index int, u unit) bool {
	if !u.r.refers && !u.r.anaphor || u.r.bare || u.r.veto != vetoNone || u.question || isBackReference(newText(u.text)) || len(s.said) == 0 {
		return false
	}
	if !u.r.norm && pronounSubjectEN(u.text) {
		return false // "Thanks, that works every time": a remark on what was done
	}
	n := len(s.said)
	prev := s.said[n-1]
	if prev.notTheirs || prev.r.veto != vetoNone || prev.question || prev.index != s.previousUserMessage(index) || isSmallTalk(normEN(prev.text)) {
		return false
	}
	if prev.item >= 0 && (s.items[prev.item].Type != governance.TypePreference || s.items[prev.item].Durable) {
		return false
	}
	r := joinReading(prev.r, u.r)
	if !u.r.refers {
		// An anaphor: the rule is this turn's, the previous one says
		// whom or what it names, and is no rule itself.
		if prev.r.standing() || !namesSomeone(prev.text) {
			return false
		}
		r = u.r
	}
	mark, prefs, durables := len(s.items), s.prefs, s.durables
	joined := joinText(prev.text, u.text)
	s.read(e, index, sentence{text: joined}, newText(joined), r)
	if len(s.items) != mark+1 || !s.items[mark].Durable || s.items[mark].Type != governance.TypePreference {
		// Not a standing rule together: undo and read the unit alone.
		s.items, s.prefs, s.durables = s.items[:mark], prefs, durables
		s.said = s.said[:n]
		return false
	}
	it := s.items[mark]
	it.SupportSeqs = appendSeq(it.SupportSeqs, prev.seq)
	slices.Sort(it.SupportSeqs)
	if prev.item >= 0 {
		// The wish said before becomes the rule: one item, not two.
		s.items[prev.item] = it
		s.items = s.items[:mark]
		s.said[len(s.said)-1].item = prev.item
		s.prefs--
	} else {
		s.items[mark] = it
	}
	return true
}

// previousUserMessage is the index of the user's last message before event
// index, or -1.
func (s *session) previousUserMessage(index int) int {
	for j := index - 1; j >= 0; j-- {
		if e := s.events[j]; isMessage(e) && e.Role == governance.RoleUser && e.Source != governance.SourceExternal {
			return j
		}
	}
	return -1
}

// pronounSubjectEN reports whether a sentence, after its fillers, opens
// with a pronoun subject ("that works", "it's fine"): a clause about
// something, not a fragment that only adds a scope.
func pronounSubjectEN(raw string) bool {
	lower := stripLeading(normEN(raw), fillersEN)
	w, _, _ := strings.Cut(lower, " ")
	switch strings.TrimRight(w, ",.;:!?") {
	case "that", "this", "it", "that's", "it's", "this's":
		return true
	}
	return false
}
