package heuristic

import (
	"regexp"
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
