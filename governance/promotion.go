package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Fingerprint identifies a statement regardless of case, width, spacing and
// punctuation. Forgets store it (never the text) so the heartbeat does not
// learn the same statement again.
func Fingerprint(statement string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(statement) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16])
}

// Decision is the outcome of the promotion check for one merged group.
type Decision struct {
	Status CandidateStatus
	Reason PromotionReason
	// Why says in plain words why the group is held or blocked, or how it qualified.
	Why string
	// Sessions is the number of distinct sessions among trusted evidence
	// (for a statement that touches authority: of distinct subjects).
	Sessions int
	// Review: the statement touches authority (a write-gate finding, a URL,
	// an e-mail address, a shell command or a credential); a proposal waits
	// for a reviewer even in an auto-activate project.
	Review bool
}

// Decide applies the promotion channels (docs/ARCHITECTURE.md) to a merged group of
// candidates, given the events that support them. Code, not the model,
// decides: the first channel that holds wins, in this order:
//
//  1. repeated_across_sessions: trusted evidence spans two or more sessions;
//  2. tool_failure_evidence: some supporting tool event has status failed;
//  3. explicit_user_instruction: the group is a user preference and some
//     member is durable.
//
// A group whose evidence is only external content is blocked, and so is one
// whose statement the write gate blocks. Otherwise it is held.
//
// A group whose statement touches authority (any member carries a gate
// finding: a URL, e-mail address, shell command or redacted credential) is
// never promoted on repetition by one person: for it, channel 1 counts
// distinct subjects, not sessions, so one actor saying it in three sessions
// is one actor. Whatever channel qualifies it, the decision asks for a
// reviewer (Review), so it is never activated automatically.
func Decide(members []*Candidate, events map[int64]*Event, gateBlocked []Finding) Decision {
	if len(gateBlocked) > 0 {
		cats := map[string]bool{}
		var names []string
		for _, f := range gateBlocked {
			if !cats[f.Category] {
				cats[f.Category] = true
				names = append(names, f.Category)
			}
		}
		return Decision{Status: CandidateBlocked, Why: "Blocked by the write gate: " + strings.Join(names, ", ") + "."}
	}
	sessions := map[string]bool{}
	subjects := map[string]bool{}
	var trusted, external int
	failed := false
	durable := false
	authority := false
	tooLong := false
	typ := TypeFact
	for i, c := range members {
		if i == 0 {
			typ = c.Type
		}
		durable = durable || c.Durable
		tooLong = tooLong || CheckRuleText(c.Statement) != nil
		authority = authority || TouchesAuthority(c.Findings)
		for _, seq := range c.EvidenceSeqs {
			e := events[seq]
			if e == nil {
				continue
			}
			if e.Source == SourceExternal {
				external++
				continue
			}
			trusted++
			sessions[e.SessionID] = true
			subjects[e.SubjectID] = true
			if e.Role == RoleTool && e.Status == StatusFailed {
				failed = true
			}
		}
	}
	d := Decision{Sessions: len(sessions), Review: authority}
	if authority {
		// One actor repeating a statement that touches authority counts once.
		d.Sessions = min(len(sessions), len(subjects))
	}
	switch {
	case tooLong:
		d.Status, d.Why = CandidateHeld, "Too long to become a rule (at most 2,000 characters)."
	case trusted == 0 && external > 0:
		d.Status, d.Why = CandidateBlocked, "Only external (untrusted) content supports it; a reviewer must decide."
	case trusted == 0:
		d.Status, d.Why = CandidateHeld, "No supporting events remain."
	case d.Sessions >= 2 && authority:
		d.Status, d.Reason = CandidateProposed, ReasonRepeated
		d.Why = fmt.Sprintf("Said by %d different people.", d.Sessions)
	case d.Sessions >= 2:
		d.Status, d.Reason = CandidateProposed, ReasonRepeated
		d.Why = fmt.Sprintf("Repeated across %d sessions.", len(sessions))
	case failed:
		d.Status, d.Reason = CandidateProposed, ReasonToolFailure
		d.Why = "A tool check failed on it."
	case typ == TypePreference && durable:
		d.Status, d.Reason = CandidateProposed, ReasonExplicit
		d.Why = "The user said it holds from now on."
	case authority && len(sessions) >= 2:
		d.Status = CandidateHeld
		d.Why = fmt.Sprintf("Touches authority (a URL, e-mail address, command or credential) and only one person said it, "+
			"in %d sessions: repetition by one actor counts once.", len(sessions))
	default:
		d.Status = CandidateHeld
		d.Why = "Insufficient evidence: one session, no failed tool check, no explicit \"from now on\"."
	}
	if d.Review && d.Status == CandidateProposed {
		d.Why += " It touches authority (a URL, e-mail address, command or credential), so a reviewer must approve it."
	}
	return d
}

// WhyCorrects is the reason a correction of a rule is proposed.
const WhyCorrects = "The user changed what the rule says; proposed as its replacement."

// DecideReplacement is Decide for a group proposed to replace rule. A group
// that corrects the rule (Corrects: "change of plan: … 30 euros now, not
// 50", 改成…) on the user's own word is proposed as its replacement even
// without a durability word or a second session: the rule it changes
// already stands. Everything else is as Decide has it — external content
// is blocked, a statement touching authority waits for repetition by
// others and for a reviewer.
func DecideReplacement(members []*Candidate, events map[int64]*Event, rule *Rule) Decision {
	d := Decide(members, events, nil)
	if d.Status != CandidateHeld || d.Review || rule == nil {
		return d
	}
	corrects, userSaid := false, false
	for _, c := range members {
		corrects = corrects || c.Type == rule.Kind && Corrects(rule.Text, c.Statement)
		for _, seq := range c.EvidenceSeqs {
			if e := events[seq]; e != nil && e.Source != SourceExternal && e.Role == RoleUser {
				userSaid = true
			}
		}
	}
	if corrects && userSaid {
		d.Status, d.Reason, d.Why = CandidateProposed, ReasonExplicit, WhyCorrects
	}
	return d
}

// Trust is the initial trust of a rule promoted by reason over n sessions.
func Trust(reason PromotionReason, sessions int) float64 {
	base := map[PromotionReason]float64{
		ReasonToolFailure: 0.85,
		ReasonRepeated:    0.8,
		ReasonExplicit:    0.8,
		ReasonReviewer:    0.7,
	}[reason]
	if base == 0 {
		base = 0.5
	}
	t := min(0.95, base+0.05*float64(max(0, sessions-1)))
	return math.Round(t*100) / 100
}
