package seed_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
)

// demoStore loads the demo into a fresh store and runs the first beat with
// the offline heuristic extractor, as a fresh start does.
func demoStore(t *testing.T) (*store.Store, *consolidate.Heartbeat) {
	t.Helper()
	ctx := context.Background()
	st := sqlitetest.Open(t)
	creds, err := seed.Load(ctx, st, seed.Options{
		Hash:     func(pw string) (string, error) { return "hash:" + pw, nil },
		Generate: func() string { return "pw" },
		Demo:     true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(creds) != 3 {
		t.Fatalf("credentials = %+v, want admin, reviewer and member", creds)
	}
	hb := &consolidate.Heartbeat{Store: st, Idle: 30 * time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	return st, hb
}

func project(t *testing.T, st *store.Store, slug string) *governance.Project {
	t.Helper()
	p, err := st.FindProjectBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// findRule returns the one rule of a project whose text contains every needle.
func findRule(t *testing.T, rules []*governance.Rule, needles ...string) *governance.Rule {
	t.Helper()
	var found []*governance.Rule
	for _, r := range rules {
		ok := true
		for _, n := range needles {
			ok = ok && strings.Contains(r.Text, n)
		}
		if ok {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		var texts []string
		for _, r := range rules {
			texts = append(texts, r.Text)
		}
		t.Fatalf("rules matching %q = %d, want 1; rules: %q", needles, len(found), texts)
	}
	return found[0]
}

// TestFreshStart asserts SCENARIO.md's "What a fresh start must show", one point at a time.
func TestFreshStart(t *testing.T) {
	ctx := context.Background()
	st, hb := demoStore(t)
	travel := project(t, st, "travel-agent")
	rules, _, err := st.FindRules(ctx, governance.RuleFilter{ProjectID: &travel.ID})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("ThreeEpisodesLinkedToTheirEvents", func(t *testing.T) {
		eps, _, err := st.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: travel.ID})
		if err != nil {
			t.Fatal(err)
		}
		conv := 0
		for _, e := range eps {
			if e.EventCount == 0 || e.FirstSeq > e.LastSeq || e.Summary == "" {
				t.Errorf("episode %+v is not linked to its events", e)
			}
			if strings.Count(e.Summary, "。")+strings.Count(e.Summary, ". ") > 3 {
				t.Errorf("summary has more than three sentences: %s", e.Summary)
			}
			conv++
		}
		if conv < 3 {
			t.Fatalf("episodes = %d, want at least 3", conv)
		}
	})

	t.Run("CandidatesHaveSupportingEvents", func(t *testing.T) {
		cands, _, err := st.FindCandidates(ctx, governance.CandidateFilter{ProjectID: travel.ID})
		if err != nil {
			t.Fatal(err)
		}
		types := map[governance.MemoryType]int{}
		for _, c := range cands {
			types[c.Type]++
			if len(c.EvidenceSeqs) == 0 {
				t.Errorf("candidate %q has no supporting events", c.Statement)
			}
		}
		for _, typ := range []governance.MemoryType{governance.TypePreference, governance.TypeFact, governance.TypeLesson} {
			if types[typ] == 0 {
				t.Errorf("no %s candidate", typ)
			}
		}
	})

	t.Run("NothingFromSmallTalkOrTheSlip", func(t *testing.T) {
		cands, _, _ := st.FindCandidates(ctx, governance.CandidateFilter{ProjectID: travel.ID})
		for _, c := range cands {
			for _, e := range mustEvidence(t, st, c) {
				if strings.Contains(e.Text, "天气") || strings.Contains(e.Text, "说错") {
					t.Errorf("candidate %q comes from small talk or the slip: %q", c.Statement, e.Text)
				}
			}
		}
	})

	t.Run("FarAttractionOwnDay", func(t *testing.T) {
		r := findRule(t, rules, "单独安排一天")
		if r.PromotionReason != governance.ReasonRepeated && r.PromotionReason != governance.ReasonToolFailure {
			t.Errorf("reason = %s", r.PromotionReason)
		}
		failed, sessions := 0, map[string]bool{}
		for _, l := range mustChain(t, st, r.ID) {
			for _, e := range l.Events {
				sessions[e.SessionID] = true
				if e.Status == governance.StatusFailed {
					failed++
				}
			}
		}
		if failed != 2 || len(sessions) != 2 {
			t.Fatalf("evidence: %d failed route checks over %d sessions, want 2 and 2", failed, len(sessions))
		}
	})

	t.Run("AttachRouteCheck", func(t *testing.T) {
		r := findRule(t, rules, "检查", "结论")
		if r.PromotionReason != governance.ReasonExplicit && r.PromotionReason != governance.ReasonRepeated {
			t.Errorf("reason = %s", r.PromotionReason)
		}
		durable := false
		for _, l := range mustChain(t, st, r.ID) {
			durable = durable || l.Candidate.Durable
		}
		if !durable {
			t.Error("no durable candidate supports it")
		}
	})

	t.Run("NapWindow", func(t *testing.T) {
		r := findRule(t, rules, "14:00", "午睡")
		if r.PromotionReason != governance.ReasonRepeated {
			t.Errorf("reason = %s, want repeated_across_sessions", r.PromotionReason)
		}
		if r.SubjectID != "family-chen" {
			t.Errorf("scope = %q, want the family's subject", r.SubjectID)
		}
	})

	t.Run("WangfujingHeld", func(t *testing.T) {
		cands, _, _ := st.FindCandidates(ctx, governance.CandidateFilter{ProjectID: travel.ID})
		for _, c := range cands {
			if strings.Contains(c.Statement, "王府井") {
				if c.Status != governance.CandidateHeld || c.RuleID != 0 {
					t.Fatalf("Wangfujing candidate = %s (rule %d), want held", c.Status, c.RuleID)
				}
				return
			}
		}
		t.Fatal("no Wangfujing candidate")
	})

	t.Run("PoisonedEventBlocked", func(t *testing.T) {
		cands, _, _ := st.FindCandidates(ctx, governance.CandidateFilter{ProjectID: travel.ID})
		blocked := false
		for _, c := range cands {
			external := false
			for _, e := range mustEvidence(t, st, c) {
				external = external || e.Source == governance.SourceExternal
			}
			if external {
				if c.Status != governance.CandidateBlocked && c.Status != governance.CandidateHeld {
					t.Errorf("external candidate %q is %s", c.Statement, c.Status)
				}
				blocked = blocked || c.Status == governance.CandidateBlocked
			}
		}
		if !blocked {
			t.Error("no blocked candidate from the external event")
		}
		for _, r := range rules {
			if strings.Contains(strings.ToLower(r.Text), "hotel") || strings.Contains(r.Text, "酒店") {
				t.Errorf("rule from the rumour: %q", r.Text)
			}
		}
	})

	t.Run("ExpenseRuleConfined", func(t *testing.T) {
		expense := project(t, st, "expense-agent")
		exp, _, _ := st.FindRules(ctx, governance.RuleFilter{ProjectID: &expense.ID})
		findRule(t, exp, "200")
		for _, r := range rules {
			if strings.Contains(r.Text, "报销") {
				t.Errorf("travel rule mentions reimbursement: %q", r.Text)
			}
		}
	})

	t.Run("EnglishProject", func(t *testing.T) {
		coding := project(t, st, "coding-assistant")
		cr, _, _ := st.FindRules(ctx, governance.RuleFilter{ProjectID: &coding.ID})
		lint := findRule(t, cr, "linter")
		if lint.PromotionReason != governance.ReasonExplicit && lint.PromotionReason != governance.ReasonRepeated {
			t.Errorf("lint reason = %s", lint.PromotionReason)
		}
		lesson := findRule(t, cr, "test")
		if lesson.Kind != governance.TypeLesson {
			t.Errorf("test-failure rule kind = %s, want lesson", lesson.Kind)
		}
	})

	t.Run("SecondBeatChangesNothing", func(t *testing.T) {
		before := dump(t, st)
		rec, err := hb.Beat(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if rec.NewEvents != 0 || rec.Candidates != 0 || rec.Proposals != 0 {
			t.Fatalf("second beat = %+v", rec.BeatStats)
		}
		if after := dump(t, st); after != before {
			t.Fatal("second beat changed the state")
		}
	})

	t.Run("SecondStartLoadsNothing", func(t *testing.T) {
		creds, err := seed.Load(ctx, st, seed.Options{Demo: true})
		if err != nil || creds != nil {
			t.Fatalf("second load = %v, %v; want nothing", creds, err)
		}
	})
}

func mustChain(t *testing.T, st *store.Store, ruleID int64) []*governance.EvidenceLink {
	t.Helper()
	links, err := st.FindRuleEvidence(context.Background(), ruleID)
	if err != nil {
		t.Fatal(err)
	}
	return links
}

func mustEvidence(t *testing.T, st *store.Store, c *governance.Candidate) []*governance.Event {
	t.Helper()
	var out []*governance.Event
	for _, seq := range c.EvidenceSeqs {
		e, err := st.FindEventBySeq(context.Background(), seq)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func dump(t *testing.T, st *store.Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT group_concat(project_id || ':' || seq) FROM checkpoints`,
		`SELECT group_concat(id || summary || updated_at) FROM episodes`,
		`SELECT group_concat(id || status || group_id || COALESCE(rule_id, '') || updated_at) FROM candidates`,
		`SELECT group_concat(id || status || text || updated_at) FROM rules`,
		`SELECT COUNT(*) FROM evidence`,
		`SELECT COUNT(*) FROM audit`,
	} {
		var v any
		if err := st.DB().QueryRow(q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%v\n", v)
	}
	return b.String()
}
