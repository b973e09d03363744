package recall

import (
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Whose words a task asks about, read off its grammatical person. A task
// in the first person singular ("what is my sister's name?", "how long
// was I in Japan?") asks about the subject, whose own statements are the
// user's turns: what an assistant said after them only repeats them,
// at length. A task that refers to the assistant ("the two companies you
// mentioned", "your suggestion") asks for the assistant's turns. "You"
// next to an auxiliary verb ("can you", "if you could", "do you") only
// makes a request, and the first person plural ("our conversation",
// "we talked about") names both sides: neither leans either way, nor
// does a task in the third person.
//
// The words are closed classes (pronouns, auxiliaries), listed per
// language.
var (
	firstSingular = wordSet("i me my mine myself")
	firstPlural   = wordSet("we us our ours ourselves")
	secondPerson  = wordSet("you yourself yourselves")
	secondOwn     = wordSet("your yours")
	auxiliaries   = wordSet("can could would will do did does may might shall should must")
)

// Chinese: 我 (I) and 我们 (we), 你 and 您 (you); a request puts an
// auxiliary after "you" (你能, 你可以, 您会) or 请 before it.
const (
	cjkSelf     = '我'
	cjkPluralOf = '们'
)

var (
	cjkYou        = map[rune]bool{'你': true, '您': true}
	cjkAuxiliary  = map[rune]bool{'能': true, '可': true, '会': true, '帮': true, '给': true}
	cjkPleaseRune = '请'
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// taskSpeaker is the role whose turns the task asks about, or "" when it
// leans neither way.
func taskSpeaker(task string) governance.Role {
	var self, plural, addressed bool
	words := tokenizer.Words(task)
	for i, w := range words {
		switch {
		case firstSingular[w]:
			self = true
		case firstPlural[w]:
			plural = true
		case secondOwn[w]:
			addressed = true
		case secondPerson[w]:
			request := (i > 0 && auxiliaries[words[i-1]]) || (i+1 < len(words) && auxiliaries[words[i+1]])
			addressed = addressed || !request
		}
	}
	runes := []rune(task)
	for i, r := range runes {
		next := rune(0)
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		switch {
		case r == cjkSelf && next == cjkPluralOf:
			plural = true
		case r == cjkSelf:
			self = true
		case cjkYou[r] && next == cjkPluralOf:
			plural = true
		case cjkYou[r]:
			request := cjkAuxiliary[next] || (i > 0 && runes[i-1] == cjkPleaseRune)
			addressed = addressed || !request
		}
	}
	switch {
	case addressed:
		return governance.RoleAssistant
	case plural:
		return ""
	case self:
		return governance.RoleUser
	}
	return ""
}

// speakerRelevance keeps SpeakerDiscount less of the relevance of the
// events of the other role than the one the task asks about (lowering
// those rather than raising these keeps every relevance in [0, 1] without
// ties at the top).
func speakerRelevance(events []*recallCandidate, speaker governance.Role, w governance.RecallWeights) {
	if speaker == "" || w.SpeakerDiscount <= 0 {
		return
	}
	for _, c := range events {
		if c.role == speaker || c.baseRelevance <= 0 {
			continue
		}
		s := c.entry.Score
		s.Relevance = c.baseRelevance * (1 - w.SpeakerDiscount)
		c.baseRelevance, c.relevance = s.Relevance, s.Relevance
		c.sortScore = rawTotal(s, w)
		c.entry.Score = total(s, w)
	}
}
