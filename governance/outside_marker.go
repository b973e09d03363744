package governance

// OutsideLowRisk is the pattern of the review marker (category
// GateAuthority) a proposal carries when its statement is outside the
// low-risk set and nothing else marks it: default-deny for markers, so no
// proposal waits for a reviewer looking like an ordinary preference
// because no risk feature has words for it. The marker says what the
// clause that kept the statement out asks, read from the clause itself
// (NotPlaced.Asks). It is a reason for a reviewer, not something the gate
// found: it blocks nothing, withholds nothing, makes no rule sensitive to
// recall and is no part of a proposal's class (GateFound, ClassOf).
const OutsideLowRisk = "outside_low_risk"

// outsideWhy is the marker's sentence for each reading of NotPlaced.Asks.
var outsideWhy = map[string]string{
	AsksAct:       "It asks the agent to act beyond its answers: “%s”.",
	AsksIdentity:  "It says who the agent is, whom it obeys or whose words count: “%s”.",
	AsksClaim:     "It claims who decides, what was checked or where the answers go: “%s”.",
	AsksCondition: "It sets a condition or a standing policy: “%s”.",
	"":            "It is outside the low-risk set: “%s”.",
}

// OutsideWhy lists the marker's sentences (their formats), for the
// catalogs' tests.
func OutsideWhy() []string {
	return []string{outsideWhy[AsksAct], outsideWhy[AsksIdentity], outsideWhy[AsksClaim], outsideWhy[AsksCondition], outsideWhy[""]}
}

// OutsideMarker is the review marker for a statement outside the low-risk
// set that np says why: its span and the words it reads (at most
// maxNotPlacedClause runes), and a sentence for what they ask.
func OutsideMarker(np NotPlaced) Finding {
	words := np.Words
	if words == "" {
		words = np.Clause
	}
	words = NotPlaced{Clause: words}.Shown()
	why, ok := outsideWhy[np.Asks]
	if !ok {
		why = outsideWhy[""]
	}
	f := Finding{Category: GateAuthority, Pattern: OutsideLowRisk, Excerpt: words, Start: np.Start, End: np.End}
	f.Because(Say(why, words))
	return f
}

// MarkOutside returns the findings of a statement waiting for a reviewer
// outside the low-risk set: findings as they are when the gate found
// something in it, else the review marker alone — read from np, or when
// the classifier said nothing of the clause, for the whole statement.
func MarkOutside(statement string, findings []Finding, np *NotPlaced) []Finding {
	if GateFound(findings) || statement == "" {
		return findings
	}
	if np == nil || np.Clause == "" && np.Words == "" {
		np = &NotPlaced{Clause: statement, End: len(statement)}
	}
	return append(WithoutMarkers(findings), OutsideMarker(*np))
}

// ReviewOnly reports whether f is the review marker (OutsideLowRisk).
func (f Finding) ReviewOnly() bool {
	return f.Category == GateAuthority && f.Pattern == OutsideLowRisk
}

// GateFound reports whether fs holds a finding of the gate: anything but
// the review marker.
func GateFound(fs []Finding) bool {
	for _, f := range fs {
		if !f.ReviewOnly() {
			return true
		}
	}
	return false
}

// WithoutMarkers returns fs without the review marker (fs itself when it
// holds none).
func WithoutMarkers(fs []Finding) []Finding {
	for i, f := range fs {
		if f.ReviewOnly() {
			out := append([]Finding(nil), fs[:i]...)
			for _, g := range fs[i+1:] {
				if !g.ReviewOnly() {
					out = append(out, g)
				}
			}
			return out
		}
	}
	return fs
}
