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
	// (outside the low-risk set: of distinct subjects).
	Sessions int
	// Review: a proposal waits for a reviewer even in an auto-activate
	// project — its statement is outside the low-risk set, or it holds
	// for the whole project and only one person supports it.
	Review bool
	// OnePerson: Review holds only because the rule is for the whole
	// project and one person supports it; a project whose policy says it
	// has a single trusted user (Project.SingleUser) may activate it.
	OnePerson bool
	// NotPlaced is the clause Why ends with (WhyNotPlaced), nil when it
	// names none.
	NotPlaced *NotPlaced
}

// Why sentences of Decide that a proposal's reason ends with when it
// waits for a reviewer.
const (
	WhyOutsideLowRisk = " It is outside the low-risk set (how the agent words, formats, orders or plans its own answers), so a reviewer must approve it."
	WhyProjectWide    = " It holds for the whole project and only one person supports it, so a reviewer must approve it."
)

// WhyNotPlaced is the sentence a proposal's reason ends with when a clause
// of its statement kept it outside the low-risk set: the clause (at most
// maxNotPlacedClause runes) and why, in words NotPlacedReasons lists.
func WhyNotPlaced(np NotPlaced) string {
	return fmt.Sprintf(" It is outside the low-risk set: %q %s, so a reviewer must approve it.", np.Shown(), NotPlacedReasons[np.Code()])
}

// Shown is the clause as a reason quotes it: at most maxNotPlacedClause
// runes, cut with "…".
func (np NotPlaced) Shown() string {
	clause := []rune(np.Clause)
	if len(clause) > maxNotPlacedClause {
		clause = append(clause[:maxNotPlacedClause-1], '…')
	}
	return string(clause)
}

// Code is the reason as NotPlacedReasons knows it: an unknown one is
// "no_shape".
func (np NotPlaced) Code() string {
	if _, ok := NotPlacedReasons[np.Reason]; ok {
		return np.Reason
	}
	return "no_shape"
}

const maxNotPlacedClause = 80

// NotPlacedReasons says, for each reason of NotPlaced, why the clause is
// outside the low-risk set.
var NotPlacedReasons = map[string]string{
	"persona":              "gives the agent an identity or a persona",
	"persona_name":         "gives the agent an identity or a persona",
	"authority":            "gives another source or person the user's authority",
	"content_instructions": "takes instructions from content the agent reads",
	"content_copy":         "copies content the agent reads into what it writes",
	"bare_reference":       "leaves out or adds something it does not name",
	"own_records":          "hides or leaves out actions, changes or records",
	"check_relaxed":        "drops a check or a confirmation",
	"sensitive":            "touches other people, accounts, money or access, or sends, shares, deletes or installs",
	"long":                 "is longer than a low-risk statement (two sentences, 240 characters)",
	"no_shape":             "is neither about the agent's own output nor the user's own preferences",
	"no_class":             "is about the agent's output but in no low-risk class",
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
// Activation without a reviewer is default-deny (docs/gate.md): a
// proposal may become active in an auto-activate project only when every
// member was placed in the low-risk set by the classifier (Candidate.LowRisk)
// and carries no finding. Outside that set, repetition by one person is
// one person — channel 1 counts distinct subjects, not sessions — and
// whatever channel qualifies the group, it waits for a reviewer (Review).
// A rule for the whole project (not one user's preference) waits for a
// reviewer too unless two subjects or more support it, or a failed tool
// check does (OnePerson: a project with a single trusted user may let it
// through).
func Decide(members []*Candidate, events map[int64]*Event, gateBlocked []Finding) Decision {
	return decide(members, events, gateBlocked, nil)
}

// decide is Decide; with replaces set, a group that corrects that rule on
// the user's own word qualifies too, after the other channels (see
// DecideReplacement). Whether a proposal waits for a reviewer is decided
// the same way for every channel.
func decide(members []*Candidate, events map[int64]*Event, gateBlocked []Finding, replaces *Rule) Decision {
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
	failed, durable, userSaid, corrects, tooLong := false, false, false, false, false
	lowRisk := len(members) > 0
	var notPlaced *NotPlaced
	typ, subject := TypeFact, ""
	for i, c := range members {
		if i == 0 {
			typ, subject = c.Type, c.SubjectID
		}
		durable = durable || c.Durable
		tooLong = tooLong || CheckRuleText(c.Statement) != nil
		corrects = corrects || replaces != nil && c.Type == replaces.Kind && Corrects(replaces.Text, c.Statement)
		lowRisk = lowRisk && c.LowRisk != "" && len(c.Findings) == 0
		if notPlaced == nil && c.LowRisk == "" && !GateFound(c.Findings) {
			notPlaced = c.NotPlaced
		}
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
			userSaid = userSaid || e.Role == RoleUser
		}
	}
	d := Decision{Sessions: len(sessions)}
	if !lowRisk {
		// Outside the low-risk set one person repeating it counts once.
		d.Sessions = min(len(sessions), len(subjects))
	}
	switch {
	case tooLong:
		d.Status, d.Why = CandidateHeld, "Too long to become a rule (at most 2,000 characters)."
	case trusted == 0 && external > 0:
		d.Status, d.Why = CandidateBlocked, "Only external (untrusted) content supports it; a reviewer must decide."
	case trusted == 0:
		d.Status, d.Why = CandidateHeld, "No supporting events remain."
	case d.Sessions >= 2 && !lowRisk:
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
	case corrects && userSaid:
		d.Status, d.Reason, d.Why = CandidateProposed, ReasonExplicit, WhyCorrects
	case !lowRisk && len(sessions) >= 2:
		d.Status = CandidateHeld
		d.Why = fmt.Sprintf("Outside the low-risk set and only one person said it, in %d sessions: "+
			"repetition by one person counts once.", len(sessions))
	default:
		d.Status = CandidateHeld
		d.Why = "Insufficient evidence: one session, no failed tool check, no explicit \"from now on\"."
	}
	projectWide := typ != TypePreference || subject == ""
	switch {
	case d.Status != CandidateProposed:
	case !lowRisk && notPlaced != nil:
		d.Review = true
		d.Why += WhyNotPlaced(*notPlaced)
		d.NotPlaced = notPlaced
	case !lowRisk:
		d.Review = true
		d.Why += WhyOutsideLowRisk
	case projectWide && len(subjects) < 2 && !failed:
		d.Review, d.OnePerson = true, true
		d.Why += WhyProjectWide
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
// is blocked, and a correction outside the low-risk set (or a project-wide
// one only one person supports) waits for a reviewer.
func DecideReplacement(members []*Candidate, events map[int64]*Event, rule *Rule) Decision {
	return decide(members, events, nil, rule)
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
