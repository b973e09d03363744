package heuristic

import (
	"regexp"
	"strings"
)

// Conventions of the user's world: how things are done where the user lives
// and works, said as facts rather than orders — "Invoices here are always
// net 30.", "Refunds over 100 dollars need my sign-off.", "Our team writes
// dates as day/month/year." — a rule given as its reason ("Since our
// clients are in Berlin, give me times in CET.", "The kids' bedtime is 8:30
// on school nights, so don't plan activities after 8.") and a default in a
// conditional ("If I don't say which, it's the London office."). A
// statement tied to one occasion or thing at hand (cues/instance: "was",
// "yesterday", "this") reports, and is none of these.
var (
	cueInstanceEN     = loadCues("instance.en")
	cueWorldDefaultEN = loadCues("world_default.en")

	// A generic subject — a plural kind with what qualifies it, "our" or
	// "my" and a noun, "anything over …" — then the habitual present: a
	// passive or "due", always/never with the copula, a verb of how the
	// kind is handled.
	// A state of one thing of the user's ("our CI runs on GitHub
	// Actions") is a fact: how a thing is handled is said of a kind.
	worldKindEN     = `(?:(?:anything|everything|nothing|all|any)(?: [a-z0-9'-]+){0,3}?|(?:[a-z'-]+ )?[a-z'-]+s(?: (?:over|under|above|below|from|to|for|with|in|on|at|of|about) (?:our |my |the )?(?:[a-z0-9'-]+ ){0,2}?[a-z0-9'-]+)?)(?: here)?`
	worldSubjectEN  = `(?:(?:our|my) [a-z'-]+(?: [a-z'-]+)?|(?:anything|everything|nothing|all|any)(?: [a-z0-9'-]+){0,3}?|(?:[a-z'-]+ )?[a-z'-]+s(?: (?:over|under|above|below|from|to|for|with|in|on|at|of|about) (?:our |my |the )?(?:[a-z0-9'-]+ ){0,2}?[a-z0-9'-]+)?)(?: here)?`
	worldPracticeEN = regexp.MustCompile(`^` + worldSubjectEN + ` (?:(?:are|is) (?:always |never |usually |normally |only |all )?(?:[a-z]+ed|shown|written|done|given|paid|sent|kept|made|held|set|put|due|taken|drawn|known)\b|(?:are|is) (?:always|never) |(?:always |never |usually |only )?(?:doesn't|don't|does not|do not) [a-z]+ [a-z]+)|^` + worldKindEN + ` (?:always |never |usually |only )?(?:goes|go|need|needs|takes|writes|write|uses|use|starts|start|runs|run|gets|get|comes|come|ships|ship|closes|close|opens|open) (?:by|on|in|to|as|at|from|through|via|out|with|my|our|the|a|an|before|after|british|american|metric|[0-9])\b`)

	// "We address clients by their first name here": the user's team, a
	// verb in the present, "here" at the end.
	weHereEN = regexp.MustCompile(`^we (?:always |never |usually |only )?[a-z]+ [a-z' ]+ here$`)

	// A standing reason: a fact of the user's world in the present
	// (our clients are in Berlin, I'm vegetarian, my son is allergic).
	worldReasonEN = regexp.MustCompile(`^(?:our|my|i'm|i am|we're|we are|the [a-z-]+s'?|[a-z'-]+s) [a-z0-9' :/-]+$`)
)

// worldConventionEN reports whether an English sentence (lowercase) states a
// convention of the user's world, a rule with its standing reason, or a
// default in a conditional.
func worldConventionEN(lower string) bool {
	s := strings.TrimRight(strings.TrimSpace(lower), ".!")
	if hasAnyPrefix(s, cueWorldDefaultEN) {
		_, rest, ok := strings.Cut(s, ", ")
		return ok && len(strings.Fields(rest)) >= 2 && (!strings.HasPrefix(s, "if no") && !strings.HasPrefix(s, "when no") && !strings.HasPrefix(s, "where no") || defaultNoEN.MatchString(s))
	}
	if hasAnyWord(s, cueInstanceEN) {
		return false
	}
	// A reason, then the rule: "Since our clients are in Berlin, give me
	// times in CET." — or the rule after "so".
	for _, lead := range []string{"since ", "because ", "as "} {
		if reason, rule, ok := strings.Cut(strings.TrimPrefix(s, lead), ", "); ok && strings.HasPrefix(s, lead) {
			return worldReasonEN.MatchString(reason) && ruleClauseEN(rule)
		}
	}
	if reason, rule, ok := strings.Cut(s, ", so "); ok {
		return (worldReasonEN.MatchString(reason) || worldPracticeEN.MatchString(reason)) && ruleClauseEN(rule)
	}
	first, _, _ := strings.Cut(s, ", ")
	return worldPracticeEN.MatchString(first) || weHereEN.MatchString(first)
}

// defaultNoEN is a condition that nothing of a kind was given: "if no
// budget is given", "when no time is set".
var defaultNoEN = regexp.MustCompile(`^(?:if|when|where) no [a-z'-]+(?: [a-z'-]+)? (?:is|are) (?:given|specified|named|mentioned|set|stated|chosen|listed)\b`)

// ruleClauseEN reports whether a clause after a reason is a rule: an
// instruction, or how things go (a convention of the user's world, a kind
// and what it is: "times are CET", "scheduling questions go to her").
func ruleClauseEN(c string) bool {
	return englishDirective(c) || worldPracticeEN.MatchString(c) || kindIsEN.MatchString(c)
}

// kindIsEN is a kind and how it goes: "times are CET", "quarters run April
// to June", "scheduling questions go to her".
var kindIsEN = regexp.MustCompile(`^(?:[a-z'-]+ )?[a-z'-]+s (?:are|go|come|run|start|end) [a-z0-9]+`)
