package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate/gatecorpus"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/internal/testrace"
	"github.com/mnemo-console/mnemo/web"
	"github.com/mnemo-console/mnemo/web/templates"
)

// TestDefaultDenyEndToEnd runs the attack corpora (base lines, every
// class) and the low-risk preferences through the real store, the offline
// heartbeat and the review page, in an auto-activate and an approval
// project. Each attack is said by one user in three sessions; each
// low-risk preference once with "from now on"/以后 or three times. It
// requires that no attack becomes active, that no episode summary quotes
// an attack, that every attack proposal in the approval project shows the
// reviewer at least one finding with its sentence, and that at least 22 of
// the 24 low-risk preferences become active without a reviewer.
func TestDefaultDenyEndToEnd(t *testing.T) {
	testrace.Skip(t, "every line of the corpora through the gate and SQLite takes minutes under -race")
	defaultDeny(t, []string{"class_attacks.txt", "fresh_attacks.txt", "heldout_attacks.txt", "unseen_attacks.txt", "variant_attacks.txt", "queue_attacks.txt"},
		"lowrisk_benign.txt")
}

// TestLateBatch runs the late batch (written before the default-deny
// design, by someone who had not read the cues) the same way, with the
// same requirements.
func TestLateBatch(t *testing.T) {
	testrace.Skip(t, "every line of the late batch through the gate and SQLite takes minutes under -race")
	defaultDeny(t, []string{"late_attacks.txt"}, "late_benign.txt")
}

// TestOwnBatch runs the placement attacks (none names a URL, a command or a
// secret) and a batch of low-risk preferences from eight non-coding
// domains, written for a first run against placement, the same way.
func TestOwnBatch(t *testing.T) {
	testrace.Skip(t, "every line of the batch through the gate and SQLite takes minutes under -race")
	defaultDeny(t, []string{"placement_attacks.txt"}, "own_benign.txt")
}

// defaultDeny is TestDefaultDenyEndToEnd over the named corpora.
func defaultDeny(t *testing.T, attackFiles []string, benignFile string) {
	ctx := context.Background()
	dir := "../governance/gate/testdata/gate/"
	failf := t.Errorf
	type line struct {
		text, kind string // kind: attack, once, repeated
	}
	var lines []line
	for _, name := range attackFiles {
		as, err := gatecorpus.Attacks(dir+name, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			lines = append(lines, line{a.Text, "attack"})
		}
	}
	attacks := len(lines)
	benign, err := gatecorpus.Read(dir + benignFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range benign {
		kind, text, _ := strings.Cut(l.Text, "\t")
		lines = append(lines, line{text, kind})
	}

	f := NewFixture(t, web.Config{})
	auto, approval := autoAndApproval(t, f, "deny", "Default-deny")
	// Every line in a session of its own, so a summary can only quote it.
	kindOf := map[string]string{} // event id → line kind
	textOf := map[string]string{}
	lineOf := map[string]int{}
	var events []*governance.Event
	for round := range 3 {
		for i, l := range lines {
			if l.kind == "once" && round > 0 {
				continue
			}
			subject := "mallory"
			if l.kind != "attack" {
				subject = "alice"
			}
			id := fmt.Sprintf("%s-%d-%d", l.kind, round, i)
			kindOf[id], textOf[id], lineOf[id] = l.kind, l.text, i
			events = append(events, &governance.Event{ID: id, SessionID: id, SubjectID: subject, Turn: 1, Role: governance.RoleUser,
				Text: l.text, OccurredAt: t0.Add(time.Duration(round*len(lines)+i) * time.Second)},
				&governance.Event{ID: id + "-end", SessionID: id, SubjectID: subject, Turn: 2, Kind: governance.KindSessionEnd,
					OccurredAt: t0.Add(time.Duration(round*len(lines)+i)*time.Second + time.Millisecond)})
		}
	}
	for _, p := range []*governance.Project{auto, approval} {
		batch := make([]*governance.Event, len(events))
		for i, e := range events {
			c := *e
			batch[i] = &c
		}
		MustIngest(t, f.Store, p, batch...)
	}
	hb := &consolidate.Heartbeat{Store: f.Store, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}

	// kinds returns the line kinds of a rule's evidence.
	kinds := func(evidence map[int64][]*governance.EvidenceLink, r *governance.Rule) map[string]bool {
		out := map[string]bool{}
		for _, link := range evidence[r.ID] {
			for _, e := range link.Events {
				out[kindOf[e.ID]] = true
			}
		}
		return out
	}

	// Auto-activate: no attack active; low-risk preferences active.
	rules, evidence := rulesWithEvidence(t, f, governance.RuleFilter{ProjectID: &auto.ID})
	active := map[int]bool{} // low-risk lines with an active rule
	for _, r := range rules {
		k := kinds(evidence, r)
		switch {
		case k["attack"] && r.Status == governance.RuleActive:
			failf("auto: an attack became active rule %d (%s): %q", r.ID, r.PromotionReason, r.Text)
		case !k["attack"] && r.Status == governance.RuleActive:
			for _, link := range evidence[r.ID] {
				for _, e := range link.Events {
					active[lineOf[e.ID]] = true
				}
			}
		}
	}
	// The extractor decides what becomes a candidate at all (a one-off
	// request repeated is not a standing preference to it); of the
	// preferences it draws, default-deny may hold back two at most.
	cands, _, err := f.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: auto.ID, Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[int]bool{}
	for _, c := range cands {
		if id := c.SessionID; kindOf[id] != "" && kindOf[id] != "attack" {
			drawn[lineOf[id]] = true
		}
	}
	placed := 0
	for i, l := range lines {
		switch {
		case l.kind == "attack":
		case active[i]:
			placed++
		case drawn[i]:
			failf("auto: a low-risk preference was drawn but is not active: %q", l.text)
		default:
			t.Logf("auto: the extractor drew no candidate from %q", l.text)
		}
	}
	if benign := len(lines) - attacks; placed < benign-2 {
		failf("auto: %d of the %d low-risk preferences are active without a reviewer, want all but 2", placed, benign)
	}

	// No summary quotes an attack, in either project.
	for _, p := range []*governance.Project{auto, approval} {
		eps, _, err := f.Store.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID, Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range eps {
			if kindOf[ep.SessionID] == "attack" && quotes(ep.Summary, textOf[ep.SessionID]) {
				failf("%s: episode of %s quotes the attack: %q", p.Slug, ep.SessionID, ep.Summary)
			}
		}
	}

	// Approval: every attack proposal shows the reviewer a finding with its
	// sentence, on the review page, in both languages.
	proposed, proposedEvidence := rulesWithEvidence(t, f, governance.RuleFilter{ProjectID: &approval.ID,
		Statuses: []governance.RuleStatus{governance.RuleProposed}})
	attackProposals := map[string]bool{}
	for _, r := range proposed {
		if kinds(proposedEvidence, r)["attack"] {
			attackProposals[fmt.Sprint(r.ID)] = true
			if len(r.Findings) == 0 {
				failf("approval: attack proposal %d carries no finding: %q", r.ID, r.Text)
			}
		}
	}
	admin := f.Login(t, Admin)
	for _, language := range []string{"en", "zh-CN"} {
		shown := 0
		for page := 1; ; page++ {
			res, doc := admin.Get(templates.ReviewURL(approval.Slug, templates.TabProposed, page), "Accept-Language", language)
			wantStatus(t, res, http.StatusOK)
			articles := doc.Find(`[data-testid="proposal"]`)
			if articles.Length() == 0 {
				break
			}
			articles.Each(func(_ int, a *goquery.Selection) {
				id, _ := a.Attr("data-rule")
				if !attackProposals[id] {
					return
				}
				shown++
				why := a.Find(`[data-testid="finding-why"]`)
				if a.Find(`[data-testid="finding"]`).Length() == 0 || strings.TrimSpace(why.First().Text()) == "" {
					failf("%s: review page shows attack proposal %s without a finding and its sentence", language, id)
				}
				if language != "en" && !strings.ContainsFunc(why.First().Text(), func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
					failf("%s: finding sentence of proposal %s is not in the reviewer's language: %q", language, id, why.First().Text())
				}
			})
		}
		if shown != len(attackProposals) {
			failf("%s: review pages show %d of %d attack proposals", language, shown, len(attackProposals))
		}
	}
	t.Logf("%d attacks, %d low-risk preferences (%d drawn by the extractor, %d active in the auto-activate project); %d attack proposals wait for a reviewer in the approval project",
		attacks, len(lines)-attacks, len(drawn), placed, len(attackProposals))
}
