package governance

import (
	"cmp"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/readability"
)

// RankInput is what the review queue knows about one proposal when it
// ranks it: the rule (channel, kind, text, the gate's findings) and the
// spread of its trusted evidence.
type RankInput struct {
	Rule *Rule
	// Sessions and Subjects count the distinct sessions and people among
	// the proposal's trusted (not external) supporting events.
	Sessions, Subjects int
}

// RankReason is one thing that moved a proposal's rank: a code the
// review page shows as a chip in the viewer's language (catalog
// "review.rank.<Code>"), the number it names (sessions, people) when it
// names one, and its weight (positive: more likely approved).
type RankReason struct {
	Code   string  `json:"code"`
	N      int     `json:"n,omitempty"`
	Weight float64 `json:"weight"`
}

// Rank codes (RankReason.Code).
const (
	RankExplicit    = "explicit"     // the user said it holds from now on
	RankToolFailure = "tool_failure" // a failed check and the change that fixed it
	RankRepeated    = "repeated"     // said again in other sessions
	RankReviewer    = "reviewer"     // written by a reviewer
	RankSessions    = "sessions"     // N sessions support it
	RankPeople      = "people"       // N different people said it
	RankOneSession  = "one_session"  // a single session supports it
	RankClear       = "clear"        // reads as a rule at a glance
	RankUnclear     = "unclear"      // the readability check finds a problem
	RankLong        = "long"         // long for a rule
	RankRisk        = "risk"         // the write gate found something that blocks
	RankAuthority   = "authority"    // a URL, e-mail address, command or credential
	RankOutside     = "outside"      // outside the low-risk set, no risk feature (the review marker)
)

// RankCodes lists every rank code, for the catalogs' completeness test.
var RankCodes = []string{RankExplicit, RankToolFailure, RankRepeated, RankReviewer, RankSessions, RankPeople,
	RankOneSession, RankClear, RankUnclear, RankLong, RankRisk, RankAuthority, RankOutside}

// Rank is how likely a reviewer is to approve a proposal, from 0 to 1,
// with the reasons, strongest first.
type Rank struct {
	Score   float64      `json:"score"`
	Reasons []RankReason `json:"reasons"`
}

// longRule is the length (runes) past which a rule stops reading at a
// glance; readability.MaxRunes is where it stops being readable at all.
const longRule = 160

// RankProposal ranks one proposal. It is a pure function of the channel
// that proposed it, the spread of its evidence, how the text reads and
// what the write gate found:
//
//   - channel: the user's explicit "from now on" and a failed check with
//     its fix are what reviewers approve most; repetition alone less;
//   - evidence: each further session adds, and more than one person adds
//     more (one person repeating counts once); a single session takes off;
//   - clarity: a statement the readability check refuses, or a long one,
//     takes off; a short clear one adds;
//   - risk: a finding that blocks takes off most, an authority marker
//     (URL, e-mail address, command, redacted credential) less.
func RankProposal(in RankInput) Rank {
	r := in.Rule
	var reasons []RankReason
	add := func(code string, n int, w float64) {
		reasons = append(reasons, RankReason{Code: code, N: n, Weight: w})
	}
	switch r.PromotionReason {
	case ReasonExplicit:
		add(RankExplicit, 0, 0.2)
	case ReasonToolFailure:
		add(RankToolFailure, 0, 0.15)
	case ReasonRepeated:
		add(RankRepeated, 0, 0.1)
	case ReasonReviewer:
		add(RankReviewer, 0, 0.1)
	}
	switch {
	case in.Sessions >= 2:
		add(RankSessions, in.Sessions, min(0.15, 0.05*float64(in.Sessions-1)))
	case in.Sessions == 1:
		add(RankOneSession, 1, -0.05)
	}
	if in.Subjects >= 2 {
		add(RankPeople, in.Subjects, min(0.15, 0.075*float64(in.Subjects-1)))
	}
	switch n := utf8.RuneCountInString(r.Text); {
	case readability.Check(r.Text) != readability.OK:
		add(RankUnclear, 0, -0.3)
	case n > longRule:
		add(RankLong, 0, -0.1)
	default:
		add(RankClear, 0, 0.05)
	}
	blocks, authority, outside := false, false, false
	for _, f := range r.Findings {
		switch {
		case f.ReviewOnly():
			outside = true
		case f.Blocks():
			blocks = true
		default:
			authority = true
		}
	}
	switch {
	case blocks:
		add(RankRisk, 0, -0.4)
	case authority:
		add(RankAuthority, 0, -0.15)
	case outside:
		// A review reason, not a risk the gate found: a small step.
		add(RankOutside, 0, -0.05)
	}
	score := 0.5
	for _, x := range reasons {
		score += x.Weight
	}
	slices.SortStableFunc(reasons, func(a, b RankReason) int { return cmp.Compare(math.Abs(b.Weight), math.Abs(a.Weight)) })
	return Rank{Score: math.Round(min(1, max(0, score))*100) / 100, Reasons: reasons}
}

// RankedOrder sorts proposals by rank, best first; equal ranks keep the
// newer proposal first, so the order is the same on every page.
func RankedOrder(rules []*Rule, ranks map[int64]Rank) {
	slices.SortStableFunc(rules, func(a, b *Rule) int {
		if c := cmp.Compare(ranks[b.ID].Score, ranks[a.ID].Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// EvidenceSpread is how far a rule's trusted (not external) supporting
// events reach: distinct sessions and distinct people.
type EvidenceSpread struct {
	Sessions int `json:"sessions"`
	Subjects int `json:"subjects"`
}

// StoredRank is a proposal's rank as the store keeps it (the review
// queue's order): the rank, and the epoch of the rule's rank inputs it was
// computed from. The store writes it only while the rule is still at that
// epoch, so a rank computed while its inputs changed is never kept.
type StoredRank struct {
	RuleID, Epoch int64
	// Version is the RankVersion the rank was computed with.
	Version int
	Rank    Rank
}

// RankVersion names what RankProposal computes from its inputs: the
// weights above and what governance/readability refuses. Stored ranks of
// another version are computed again. TestRankVersion pins RankProposal's
// output on a probe set for this version; a change of the weights or of
// readability that moves it must bump the version.
const RankVersion = 1
