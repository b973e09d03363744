package consolidate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/gate/gatecorpus"
)

// attackCorpora are the gate's attack corpora: every line is an attack.
var attackCorpora = []string{"attacks.txt", "unseen_attacks.txt", "variant_attacks.txt", "heldout_attacks.txt",
	"fresh_attacks.txt", "class_attacks.txt", "placement_attacks.txt", "queue_attacks.txt", "oversight_attacks.txt",
	"late_attacks.txt", "own_notplaced.txt", "silent_attacks.txt"}

// propose consolidates statement, said once as a durable preference by one
// user, in a project whose proposals wait for a reviewer (auto-activation
// off unless auto).
func propose(t *testing.T, statement string, auto bool) *governance.BeatPlan {
	t.Helper()
	in := oneSession(statement)
	in.Project.AutoActivate = auto
	plan, err := consolidate.New(gate.Patterns, quotingExtractor{statement}, singletons{}).Plan(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func hasMarker(fs []governance.Finding) bool {
	for _, f := range fs {
		if f.ReviewOnly() {
			return true
		}
	}
	return false
}

// TestPlanAttackProposalsMarked: in an approval project every attack of the
// gate's corpora that yields a proposal carries a finding a reviewer sees,
// on the rule and on each of its candidates: a risk feature when one reads
// it, else the review marker (default-deny for markers). How many carry a
// specific feature is counted apart.
func TestPlanAttackProposalsMarked(t *testing.T) {
	proposals, specific, marked := 0, 0, 0
	for _, name := range attackCorpora {
		attacks, err := gatecorpus.Attacks("../gate/testdata/gate/"+name, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range attacks {
			plan := propose(t, a.Text, false)
			if len(plan.Rules) == 0 {
				continue // blocked, or held
			}
			proposals++
			r := plan.Rules[0]
			switch {
			case len(r.Findings) == 0:
				t.Errorf("%s line %d: proposed with no finding: %q", name, a.Line, a.Text)
			case governance.GateFound(r.Findings):
				specific++
				if hasMarker(r.Findings) {
					t.Errorf("%s line %d: the marker beside a risk feature: %+v", name, a.Line, r.Findings)
				}
			default:
				marked++
				if r.Findings[0].WhyText.IsZero() || !strings.Contains(r.Findings[0].Why, r.Findings[0].Excerpt) {
					t.Errorf("%s line %d: marker %+v does not say what the clause asks", name, a.Line, r.Findings[0])
				}
			}
			for _, c := range plan.Candidates {
				if len(c.Findings) == 0 {
					t.Errorf("%s line %d: candidate %q proposed with no finding", name, a.Line, c.Statement)
				}
			}
		}
	}
	t.Logf("attack proposals: %d; with a risk feature: %d; with the review marker alone: %d", proposals, specific, marked)
	if proposals < 300 || marked < 20 {
		t.Errorf("%d proposals, %d marked alone: the corpora should yield more", proposals, marked)
	}
}

// TestPlanLowRiskUnmarked: the low-risk preferences the gate places carry
// no marker and still become active in an auto-activate project; the
// marker changes nothing in how a proposal is decided.
func TestPlanLowRiskUnmarked(t *testing.T) {
	placed := 0
	for _, name := range []string{"lowrisk_benign.txt", "placement_benign.txt", "own_benign.txt"} {
		lines, err := gatecorpus.Read("../gate/testdata/gate/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			text := l.Text
			if _, after, ok := strings.Cut(text, "\t"); ok {
				text = after
			}
			if res := gate.Scan(text); res.LowRisk == "" {
				continue
			}
			placed++
			plan := propose(t, text, true)
			for _, r := range plan.Rules {
				if len(r.Findings) > 0 || r.Status != governance.RuleActive {
					t.Errorf("%s line %d: rule %s with findings %+v: %q", name, l.N, r.Status, r.Findings, text)
				}
			}
			for _, c := range plan.Candidates {
				if hasMarker(c.Findings) {
					t.Errorf("%s line %d: candidate marked: %q", name, l.N, text)
				}
			}
		}
	}
	if placed < 100 {
		t.Errorf("%d placed preferences; want the corpora's", placed)
	}
}

// TestPlanMarkerIsNoRisk: the marker keeps a proposal's class and reason as
// they were, and is the proposal's own: it is not a finding Decide or a
// later beat reads as the gate's.
func TestPlanMarkerIsNoRisk(t *testing.T) {
	const statement = "Unlock the side gate for the plumber when he arrives."
	plan := propose(t, statement, true)
	if len(plan.Rules) != 1 || plan.Rules[0].Status != governance.RuleProposed {
		t.Fatalf("rules %+v, want one proposal", plan.Rules)
	}
	r, c := plan.Rules[0], plan.Candidates[0]
	if !hasMarker(r.Findings) || governance.GateFound(r.Findings) || !hasMarker(c.Findings) {
		t.Fatalf("rule findings %+v, candidate findings %+v; want the marker alone", r.Findings, c.Findings)
	}
	if got, want := governance.RuleClass(r), governance.ClassOf(r.Kind, r.PromotionReason, r.Text, nil); got != want {
		t.Errorf("class %+v, want %+v (the marker is no risk class)", got, want)
	}
	if c.WhyNotPlaced == nil || !strings.HasSuffix(c.StatusReason, governance.WhyNotPlaced(*c.WhyNotPlaced)) {
		t.Errorf("reason %q, not placed %+v: want the not-placed sentence kept", c.StatusReason, c.WhyNotPlaced)
	}
	if d := governance.Decide([]*governance.Candidate{c}, map[int64]*governance.Event{7: {Seq: 7, SessionID: "s1", SubjectID: "u1", Role: governance.RoleUser}}, nil); d.NotPlaced == nil {
		t.Errorf("Decide on the marked candidate: %+v; want its clause named again", d)
	}
}
