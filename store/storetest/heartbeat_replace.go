package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// activate approves rule r unless the project activated it already.
func activate(tb testing.TB, s MemoryStore, r *governance.Rule) {
	tb.Helper()
	if r.Status == governance.RuleActive {
		return
	}
	if _, err := s.ApproveRule(context.Background(), "rita", r.ID, nil); err != nil {
		tb.Fatal(err)
	}
}

// TestHeartbeatReplacementProposal: a later session that changes an active
// rule's value is proposed as its replacement (activated at once under
// auto-activate, superseding the old rule), not filed as its evidence.
func TestHeartbeatReplacementProposal(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	for _, auto := range []bool{false, true} {
		t.Run(fmt.Sprintf("AutoActivate=%v", auto), func(t *testing.T) {
			s := OpenMemory(t, open)
			p := MustCreateProject(t, s, "travel")
			if err := s.SetProjectPolicy(ctx, p.ID, auto); err != nil {
				t.Fatal(err)
			}
			m := heuristic.NewMerger()
			hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: &consolidate.Consolidator{
				Extractor: &LineExtractor{}, Merger: m, Classifier: gate.Patterns}}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, "we always leave the hotel at 08:00")); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d", len(first))
			}
			activate(t, s, first[0])
			// A later session changes the time: a replacement, not more evidence.
			if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-24*time.Hour), true, "we always leave the hotel at 09:30")); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || !strings.Contains(rules[1].Text, "09:30") {
				t.Fatalf("rules = %+v, want a replacement proposal for rule %d", rules, first[0].ID)
			}
			wantOld, wantNew := governance.RuleActive, governance.RuleProposed
			if auto {
				wantOld, wantNew = governance.RuleSuperseded, governance.RuleActive
			}
			if rules[0].Status != wantOld || rules[1].Status != wantNew {
				t.Fatalf("statuses = %s, %s; want %s, %s", rules[0].Status, rules[1].Status, wantOld, wantNew)
			}
			links, _ := s.FindRuleEvidence(ctx, first[0].ID)
			if len(links) != 1 {
				t.Fatalf("the old rule gained evidence from the contradicting session: %d links", len(links))
			}
		})
	}
}

// userLineExtractor notes every user line as a durable preference.
type userLineExtractor struct{}

func (userLineExtractor) Name() string { return "fake-user-lines/1" }

func (userLineExtractor) Extract(_ context.Context, in governance.ExtractInput) (*governance.Extraction, error) {
	out := &governance.Extraction{Summary: "Session " + in.SessionID + "."}
	for _, e := range in.Events {
		if e.Role == governance.RoleUser {
			out.Items = append(out.Items, governance.ExtractedItem{Type: governance.TypePreference, Statement: e.Text, SupportSeqs: []int64{e.Seq}, Durable: true})
		}
	}
	return out, nil
}

// A statement that widens an active rule (adds a tool) is proposed as its
// replacement, in English and in Chinese, and the rule gains no evidence
// from it.
func TestHeartbeatWideningProposal(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct{ name, rule, wider, added string }{
		{"English", "Always run the linter before committing.", "From now on, always run go vet and the linter before committing.", "go vet"},
		{"Chinese", "以后提交代码前都要运行 linter。", "从现在起，以后提交代码前都要运行 go vet 和 linter。", "go vet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory(t, open)
			p := MustCreateProject(t, s, "code")
			hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: &consolidate.Consolidator{
				Extractor: userLineExtractor{}, Merger: heuristic.NewMerger(), Classifier: gate.Patterns}}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, tc.rule)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d", len(first))
			}
			activate(t, s, first[0])
			if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-24*time.Hour), true, tc.wider)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || !strings.Contains(rules[1].Text, tc.added) {
				t.Fatalf("rules = %+v, want a replacement proposal for rule %d naming %q", rules, first[0].ID, tc.added)
			}
			if rules[0].Status != governance.RuleActive || rules[1].Status != governance.RuleProposed {
				t.Fatalf("statuses = %s, %s", rules[0].Status, rules[1].Status)
			}
			links, _ := s.FindRuleEvidence(ctx, first[0].ID)
			if len(links) != 1 {
				t.Fatalf("the widened statement was filed as evidence of the old rule: %d links", len(links))
			}
		})
	}
}

// TestHeartbeatWideningOffline: the offline consolidator the console runs
// without a model (its own extractor, not a fake) proposes a widened or
// narrowed instruction as the rule's replacement, for phrasings other than
// the tour's, in both languages, and files it as no evidence of the rule.
func TestHeartbeatWideningOffline(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct{ name, rule, wider, added string }{
		{"tour", "From now on, always run the linter before committing.", "From now on, always run go vet and the linter before committing.", "go vet"},
		{"English also", "Always run the linter before committing.", "Going forward, always run the linter and also staticcheck before committing.", "staticcheck"},
		{"English condition", "Always write the changelog entry in English.", "Always write the changelog entry in English, only for user-facing changes.", "user-facing"},
		{"Chinese 还要", "以后提交代码前都要运行 linter。", "以后提交代码前都要运行 linter，还要运行 go vet。", "go vet"},
		{"Chinese 和", "记住，每次提交前都跑一遍单元测试。", "记住，每次提交前都跑一遍单元测试和集成测试。", "集成测试"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory(t, open)
			p := MustCreateProject(t, s, "code")
			hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: heuristic.NewConsolidator(nil)}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, tc.rule)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d (%q)", len(first), tc.rule)
			}
			activate(t, s, first[0])
			if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-24*time.Hour), true, tc.wider)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			var texts []string
			for _, r := range rules {
				texts = append(texts, fmt.Sprintf("%d %s %q supersedes=%d", r.ID, r.Status, r.Text, r.Supersedes))
			}
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || rules[1].Status != governance.RuleProposed || !strings.Contains(rules[1].Text, tc.added) {
				t.Fatalf("rules = %q, want a replacement proposal for rule %d naming %q", texts, first[0].ID, tc.added)
			}
			if links, _ := s.FindRuleEvidence(ctx, first[0].ID); len(links) != 1 {
				t.Fatalf("the widened statement was filed as evidence of the old rule: %d links", len(links))
			}
		})
	}
}

// replacementPair makes the heartbeat propose rule newer as the
// replacement of proposal old (a later session changes its time); before
// then does its part to old (approve it, reject it, nothing).
func replacementPair(t *testing.T, open Opener, before func(s MemoryStore, old *governance.Rule)) (s MemoryStore, old, newer *governance.Rule) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	s = OpenMemory(t, open)
	p := MustCreateProject(t, s, "travel")
	hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: &consolidate.Consolidator{
		Extractor: &LineExtractor{}, Merger: heuristic.NewMerger(), Classifier: gate.Patterns}}
	for i, line := range []string{"we always leave the hotel at 08:00", "we always leave the hotel at 09:30"} {
		if _, err := s.IngestEvents(ctx, p.ID, Session(fmt.Sprint("s", i), now.Add(time.Duration(i-2)*24*time.Hour), true, line)); err != nil {
			t.Fatal(err)
		}
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
		if err != nil || len(rules) != i+1 {
			t.Fatalf("rules after beat %d = %d, %v", i+1, len(rules), err)
		}
		old, newer = rules[0], rules[len(rules)-1]
	}
	if newer.Supersedes != old.ID || newer.Status != governance.RuleProposed {
		t.Fatalf("rule %d (%s) supersedes %d, want a replacement proposal for rule %d", newer.ID, newer.Status, newer.Supersedes, old.ID)
	}
	before(s, old)
	old, _ = s.FindRuleByID(ctx, old.ID)
	return s, old, newer
}

// TestReplacementFromAnyState: a replacement proposal is approved in one
// step whatever the state of the rule it replaces (still a proposal,
// rejected, in use), alone or in one batch with it; restoring the
// superseded rule undoes the replacement, back to use or to review as it
// was, and the demoted replacement no longer names it.
func TestReplacementFromAnyState(t *testing.T, open Opener) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, s MemoryStore, old *governance.Rule)
		// back is the old rule's status once restored.
		back governance.RuleStatus
	}{
		{"OldProposed", func(*testing.T, MemoryStore, *governance.Rule) {}, governance.RuleProposed},
		{"OldRejected", func(t *testing.T, s MemoryStore, old *governance.Rule) {
			if _, err := s.RejectRule(ctx, "rita", old.ID, "not yet"); err != nil {
				t.Fatal(err)
			}
		}, governance.RuleProposed},
		{"OldActive", func(t *testing.T, s MemoryStore, old *governance.Rule) { activate(t, s, old) }, governance.RuleActive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, old, newer := replacementPair(t, open, func(s MemoryStore, old *governance.Rule) { tc.before(t, s, old) })
			if _, err := s.ApproveRule(ctx, "rita", newer.ID, nil); err != nil {
				t.Fatalf("approving the replacement: %v", err)
			}
			got, _ := s.FindRuleByID(ctx, old.ID)
			if got.Status != governance.RuleSuperseded || got.SupersededBy != newer.ID {
				t.Fatalf("old rule = %s by %d, want superseded by %d", got.Status, got.SupersededBy, newer.ID)
			}
			if _, err := s.DemoteRule(ctx, "rita", newer.ID, "the old time again"); err != nil {
				t.Fatal(err)
			}
			got, err := s.RestoreRule(ctx, "rita", old.ID, "the old time again")
			if err != nil {
				t.Fatalf("restoring the superseded rule: %v", err)
			}
			if got.Status != tc.back || got.SupersededBy != 0 {
				t.Fatalf("restored = %s by %d, want %s", got.Status, got.SupersededBy, tc.back)
			}
			if n, _ := s.FindRuleByID(ctx, newer.ID); n.Supersedes != 0 {
				t.Fatalf("the demoted replacement still names rule %d", n.Supersedes)
			}
			if a := lastAudit(t, s, itoa(old.ID)); a.Action != "rule.restore" || !strings.Contains(a.Details, `"from":"superseded"`) {
				t.Fatalf("audit = %+v", a)
			}
			if tc.back == governance.RuleProposed {
				cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{RuleID: old.ID})
				if err != nil || len(cands) == 0 {
					t.Fatalf("candidates = %d, %v", len(cands), err)
				}
				for _, c := range cands {
					if c.Status != governance.CandidateProposed {
						t.Errorf("candidate %d = %s, want proposed again", c.ID, c.Status)
					}
				}
			}
		})
	}
	t.Run("OneBatchWithTheOldOne", func(t *testing.T) {
		for _, newerFirst := range []bool{false, true} {
			s, old, newer := replacementPair(t, open, func(MemoryStore, *governance.Rule) {})
			ids := []int64{old.ID, newer.ID}
			if newerFirst {
				ids = []int64{newer.ID, old.ID}
			}
			if err := s.ApproveRules(ctx, "rita", ids); err != nil {
				t.Fatalf("bulk approval of %v: %v", ids, err)
			}
			o, _ := s.FindRuleByID(ctx, old.ID)
			n, _ := s.FindRuleByID(ctx, newer.ID)
			if o.Status != governance.RuleSuperseded || n.Status != governance.RuleActive {
				t.Fatalf("approving %v: old %s, new %s; want superseded and active", ids, o.Status, n.Status)
			}
		}
	})
	t.Run("OldForgotten", func(t *testing.T) {
		s, old, newer := replacementPair(t, open, func(MemoryStore, *governance.Rule) {})
		if _, err := s.ForgetRule(ctx, "rita", old.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApproveRule(ctx, "rita", newer.ID, nil); err != nil {
			t.Fatalf("approving the replacement of a forgotten rule: %v", err)
		}
	})
	t.Run("SupersedeTakesAFreeNewerRule", func(t *testing.T) {
		// newer already replaces old: it cannot be linked to replace a third rule.
		s, old, newer := replacementPair(t, open, func(s MemoryStore, old *governance.Rule) { activate(t, s, old) })
		hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: &consolidate.Consolidator{
			Extractor: &LineExtractor{}, Merger: heuristic.NewMerger(), Classifier: gate.Patterns}}
		if _, err := s.IngestEvents(ctx, old.ProjectID, Session("s3", time.Now().UTC().Add(-12*time.Hour), true, "we always take the metro to the museum")); err != nil {
			t.Fatal(err)
		}
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &old.ProjectID})
		if len(rules) != 3 {
			t.Fatalf("rules = %d, want 3", len(rules))
		}
		third := rules[2]
		activate(t, s, third)
		_, err := s.SupersedeRule(ctx, "rita", third.ID, newer.ID, "x")
		wantCode(t, err, governance.EINVALID)
		if n, _ := s.FindRuleByID(ctx, newer.ID); n.Supersedes != old.ID {
			t.Fatalf("the replacement now names rule %d, want %d", n.Supersedes, old.ID)
		}
	})
}

// TestHeartbeatCorrectionOffline: with the offline consolidator, a later
// session that corrects an active rule without a durability word ("… 30
// euros now, not 50", "no longer …", 改成…, 不再…) is proposed as the rule's
// replacement, and the rule gains no evidence from it.
func TestHeartbeatCorrectionOffline(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct{ name, rule, correction, want string }{
		{"ChangeOfPlan", "From now on, you can approve refunds up to 50 euros on your own.",
			"Change of plan on refunds: the limit you can approve on your own is 30 euros now, not 50.", "30 euros"},
		{"NoLonger", "From now on, always cc Maria on invoices to the Berlin office.",
			"Maria no longer handles the Berlin invoices, cc Jonas on them instead.", "Jonas"},
		{"改成", "以后五十欧以下的退款你可以自己批。", "退款的事改一下：你自己能批的上限改成三十欧，不再是五十欧。", "三十"},
		{"不再", "以后周报每周一早上发给我。", "周报不再周一发了，改成周五下午发给我。", "周五"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory(t, open)
			p := MustCreateProject(t, s, "support")
			hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: heuristic.NewConsolidator(nil)}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, tc.rule)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d, want 1", len(first))
			}
			activate(t, s, first[0])
			if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-24*time.Hour), true, tc.correction)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || !strings.Contains(rules[1].Text, tc.want) {
				var texts []string
				for _, r := range rules {
					texts = append(texts, fmt.Sprintf("%q (%s, supersedes %d)", r.Text, r.Status, r.Supersedes))
				}
				t.Fatalf("rules %s, want a replacement of rule %d that says %q", strings.Join(texts, "; "), first[0].ID, tc.want)
			}
			if rules[0].Status != governance.RuleActive || rules[1].Status != governance.RuleProposed {
				t.Fatalf("statuses = %s, %s; want the rule active and its replacement proposed", rules[0].Status, rules[1].Status)
			}
			if links, _ := s.FindRuleEvidence(ctx, first[0].ID); len(links) != 1 {
				t.Fatalf("the corrected rule gained evidence from the correction: %d links", len(links))
			}
		})
	}
}

// TestHeartbeatValueCorrection: in an auto-activate project, a correction
// that only changes a value of a low-risk rule ("200 words now, not 300",
// 改成八道, no durability word) stands where the rule stands: it replaces
// the rule at once. One that asks more than a new value waits for a
// reviewer beside the rule.
func TestHeartbeatValueCorrection(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct {
		name, rule, correction, want string
		replaced                     bool
	}{
		{"Time", "From now on say the library closes at 6pm in the reminders.", "The library closes at 7pm now, not 6pm.", "7pm", true},
		{"现在是", "以后导览都按每组十五人安排。", "每组现在是十二人了，不是十五人。", "十二", true},
		{"MoreThanAValue", "From now on write the class notes in Spanish.",
			"Write the class notes in Portuguese now, not Spanish, and send each one to every parent on the class mailing list.", "Portuguese", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory(t, open)
			p := MustCreateProject(t, s, "school")
			if err := s.SetProjectPolicy(ctx, p.ID, true); err != nil {
				t.Fatal(err)
			}
			hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: heuristic.NewConsolidator(nil)}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, tc.rule)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 || first[0].Status != governance.RuleActive {
				t.Fatalf("rules after the first beat = %+v, want one active", first)
			}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-24*time.Hour), true, tc.correction)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			var texts []string
			for _, r := range rules {
				texts = append(texts, fmt.Sprintf("%q (%s, supersedes %d)", r.Text, r.Status, r.Supersedes))
			}
			if len(rules) != 2 || rules[1].Supersedes != first[0].ID || !strings.Contains(rules[1].Text, tc.want) {
				t.Fatalf("rules %s, want a replacement of rule %d that says %q", strings.Join(texts, "; "), first[0].ID, tc.want)
			}
			wantOld, wantNew := governance.RuleActive, governance.RuleProposed
			if tc.replaced {
				wantOld, wantNew = governance.RuleSuperseded, governance.RuleActive
			}
			if rules[0].Status != wantOld || rules[1].Status != wantNew {
				t.Fatalf("rules %s; want %s, %s", strings.Join(texts, "; "), wantOld, wantNew)
			}
		})
	}
}
