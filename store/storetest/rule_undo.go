package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// undoLast undoes the latest action on rule id as actor.
func undoLast(t *testing.T, s MemoryStore, actor string, id int64, anyActor bool) (*governance.Rule, error) {
	t.Helper()
	return s.UndoRule(context.Background(), actor, id, lastAudit(t, s, itoa(id)).ID, anyActor)
}

// wantUndoAudit checks the rule's newest audit row: a rule.undo by actor
// naming the action undone, and never the rule's text.
func wantUndoAudit(t *testing.T, s MemoryStore, r *governance.Rule, actor, undone string) {
	t.Helper()
	a := lastAudit(t, s, itoa(r.ID))
	if a.Action != governance.UndoAuditAction || a.Actor != actor || !strings.Contains(a.Details, `"undone":"`+undone+`"`) {
		t.Fatalf("audit = %+v; want %s by %s naming %s", a, governance.UndoAuditAction, actor, undone)
	}
	if strings.Contains(a.Details, r.Text) {
		t.Fatalf("undo audit row holds the rule's text: %s", a.Details)
	}
}

// TestUndoRule: the reviewer who took the last lifecycle action on a rule
// undoes it, and the rule (and its candidates, its version, the rule it
// replaced) is back as it was; another reviewer may not, an admin may; a
// later change makes the undo a conflict.
func TestUndoRule(t *testing.T, open Opener) {
	ctx := context.Background()
	candStatuses := func(d *Demo, id int64) map[int64]governance.CandidateStatus {
		out := map[int64]governance.CandidateStatus{}
		for _, c := range d.Candidates(t, id) {
			out[c.ID] = c.Status
		}
		return out
	}
	sameCands := func(t *testing.T, d *Demo, id int64, want map[int64]governance.CandidateStatus) {
		t.Helper()
		got := candStatuses(d, id)
		if len(got) != len(want) {
			t.Fatalf("rule %d has %d candidates, want %d", id, len(got), len(want))
		}
		for cid, st := range want {
			if got[cid] != st {
				t.Errorf("candidate %d = %s, want %s", cid, got[cid], st)
			}
		}
	}
	t.Run("Approve", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		before := candStatuses(d, nap.ID)
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		_, err := undoLast(t, d.Store, "otto", nap.ID, false)
		wantCode(t, err, governance.EFORBIDDEN)
		r, err := undoLast(t, d.Store, "rita", nap.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleProposed || r.Version != nap.Version {
			t.Fatalf("rule = %s v%d, want proposed v%d", r.Status, r.Version, nap.Version)
		}
		sameCands(t, d, nap.ID, before)
		wantUndoAudit(t, d.Store, r, "rita", "rule.approve")
		// An undo is not undone: the rule's last action is now the undo.
		_, err = undoLast(t, d.Store, "rita", nap.ID, false)
		wantCode(t, err, governance.ECONFLICT)
	})
	t.Run("ApproveWithEdits", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, &governance.RuleEdit{Text: "午睡时间 14:00–16:00 不安排任何行程", Reason: "shorter"}); err != nil {
			t.Fatal(err)
		}
		r, err := undoLast(t, d.Store, "rita", nap.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleProposed || r.Text != nap.Text || r.Kind != nap.Kind {
			t.Fatalf("rule = %s %q (%s), want proposed %q (%s)", r.Status, r.Text, r.Kind, nap.Text, nap.Kind)
		}
		vs, err := d.Store.FindRuleVersions(ctx, nap.ID)
		if err != nil || len(vs) != 3 || vs[2].Text != nap.Text {
			t.Fatalf("versions = %+v, %v; want the edit kept in the history and the text before as version 3", vs, err)
		}
		wantUndoAudit(t, d.Store, r, "rita", "rule.approve")
	})
	t.Run("ApproveReplacement", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap, attach := d.Rule(t, "午睡"), d.Rule(t, "结论")
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Store.SupersedeRule(ctx, "rita", nap.ID, attach.ID, "the family changed the nap time"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Store.ApproveRule(ctx, "rita", attach.ID, nil); err != nil {
			t.Fatal(err)
		}
		if old, _ := d.Store.FindRuleByID(ctx, nap.ID); old.Status != governance.RuleSuperseded {
			t.Fatalf("old = %s, want superseded", old.Status)
		}
		r, err := undoLast(t, d.Store, "rita", attach.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleProposed || r.Supersedes != nap.ID {
			t.Fatalf("newer = %s replacing %d; want proposed, still replacing %d", r.Status, r.Supersedes, nap.ID)
		}
		old, err := d.Store.FindRuleByID(ctx, nap.ID)
		if err != nil || old.Status != governance.RuleActive || old.SupersededBy != 0 {
			t.Fatalf("old = %+v, %v; want active again", old, err)
		}
		wantUndoAudit(t, d.Store, old, "rita", "rule.supersede")
		// Approving it again supersedes the old rule again.
		if _, err := d.Store.ApproveRule(ctx, "rita", attach.ID, nil); err != nil {
			t.Fatal(err)
		}
		if old, _ := d.Store.FindRuleByID(ctx, nap.ID); old.Status != governance.RuleSuperseded || old.SupersededBy != attach.ID {
			t.Fatalf("old = %s by %d, want superseded by %d", old.Status, old.SupersededBy, attach.ID)
		}
	})
	t.Run("RejectByAdmin", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		before := candStatuses(d, nap.ID)
		if _, err := d.Store.RejectRule(ctx, "rita", nap.ID, "not now"); err != nil {
			t.Fatal(err)
		}
		r, err := undoLast(t, d.Store, "admin", nap.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleProposed {
			t.Fatalf("status = %s, want proposed", r.Status)
		}
		sameCands(t, d, nap.ID, before)
		wantUndoAudit(t, d.Store, r, "admin", "rule.reject")
		if a := lastAudit(t, d.Store, itoa(nap.ID)); !strings.Contains(a.Details, `"actor_undone":"rita"`) {
			t.Fatalf("audit details = %s; want the reviewer whose action was undone", a.Details)
		}
	})
	t.Run("HoldDemoteRestore", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		before := candStatuses(d, nap.ID)
		if _, err := d.Store.HoldRule(ctx, "rita", nap.ID, "wait"); err != nil {
			t.Fatal(err)
		}
		r, err := undoLast(t, d.Store, "rita", nap.ID, false)
		if err != nil || r.Status != governance.RuleProposed {
			t.Fatalf("undo hold = %+v, %v; want proposed", r, err)
		}
		sameCands(t, d, nap.ID, before)
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		for _, step := range []struct {
			do   func() error
			want governance.RuleStatus
		}{
			{func() error { _, err := d.Store.DemoteRule(ctx, "rita", nap.ID, "older now"); return err }, governance.RuleActive},
			{func() error {
				if _, err := d.Store.DemoteRule(ctx, "rita", nap.ID, "older now"); err != nil {
					return err
				}
				_, err := d.Store.DemoteRule(ctx, "rita", nap.ID, "much older")
				return err
			}, governance.RuleStale},
			// Restore goes stale → active (not back to archived): the undo
			// puts it back where it was restored from.
			{func() error { _, err := d.Store.RestoreRule(ctx, "rita", nap.ID, ""); return err }, governance.RuleStale},
		} {
			if err := step.do(); err != nil {
				t.Fatal(err)
			}
			r, err := undoLast(t, d.Store, "rita", nap.ID, false)
			if err != nil || r.Status != step.want {
				t.Fatalf("undo = %+v, %v; want %s", r, err, step.want)
			}
		}
		// A restore of a rejected proposal: undone, it is rejected again
		// with its candidates.
		other := d.Rule(t, "结论")
		if _, err := d.Store.RejectRule(ctx, "rita", other.ID, "no"); err != nil {
			t.Fatal(err)
		}
		rejected := candStatuses(d, other.ID)
		if _, err := d.Store.RestoreRule(ctx, "rita", other.ID, ""); err != nil {
			t.Fatal(err)
		}
		r, err = undoLast(t, d.Store, "rita", other.ID, false)
		if err != nil || r.Status != governance.RuleRejected {
			t.Fatalf("undo restore = %+v, %v; want rejected", r, err)
		}
		sameCands(t, d, other.ID, rejected)
		wantUndoAudit(t, d.Store, r, "rita", "rule.restore")
	})
	t.Run("PauseAndExpiry", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		if _, err := d.Store.SetRulePaused(ctx, "rita", nap.ID, true, ""); err != nil {
			t.Fatal(err)
		}
		r, err := undoLast(t, d.Store, "rita", nap.ID, false)
		if err != nil || r.Paused {
			t.Fatalf("undo pause = %+v, %v; want not paused", r, err)
		}
		future := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		if _, err := d.Store.SetRuleExpiry(ctx, "rita", nap.ID, &future, "summer only"); err != nil {
			t.Fatal(err)
		}
		later := future.Add(24 * time.Hour)
		if _, err := d.Store.SetRuleExpiry(ctx, "rita", nap.ID, &later, "a day more"); err != nil {
			t.Fatal(err)
		}
		r, err = undoLast(t, d.Store, "rita", nap.ID, false)
		if err != nil || r.ExpiresAt == nil || !r.ExpiresAt.Equal(future) {
			t.Fatalf("undo expiry = %+v, %v; want the expiry before, %v", r, err, future)
		}
		wantUndoAudit(t, d.Store, r, "rita", "rule.expiry_set")
	})
	t.Run("LaterChange", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		approval := lastAudit(t, d.Store, itoa(nap.ID)).ID
		// Another reviewer pauses it: the approval is no longer the rule's
		// latest change, for its reviewer and for an admin.
		if _, err := d.Store.SetRulePaused(ctx, "otto", nap.ID, true, ""); err != nil {
			t.Fatal(err)
		}
		_, err := d.Store.UndoRule(ctx, "rita", nap.ID, approval, false)
		wantCode(t, err, governance.ECONFLICT)
		_, err = d.Store.UndoRule(ctx, "admin", nap.ID, approval, true)
		wantCode(t, err, governance.ECONFLICT)
		// A new version is a later change too.
		if _, err := d.Store.EditRule(ctx, "otto", nap.ID, governance.RuleEdit{Text: nap.Text + "。", Reason: "typo"}); err != nil {
			t.Fatal(err)
		}
		_, err = undoLast(t, d.Store, "otto", nap.ID, false)
		wantCode(t, err, governance.ECONFLICT) // an edit is not undone
		if r, _ := d.Store.FindRuleByID(ctx, nap.ID); r.Status != governance.RuleActive || !r.Paused {
			t.Fatalf("rule = %s paused=%v after refused undos", r.Status, r.Paused)
		}
		// Returning a rule to candidates is not undone.
		other := d.Rule(t, "结论")
		if _, err := d.Store.ApproveRule(ctx, "rita", other.ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Store.DemoteRuleToCandidates(ctx, "rita", other.ID, "needs more evidence"); err != nil {
			t.Fatal(err)
		}
		_, err = undoLast(t, d.Store, "rita", other.ID, false)
		wantCode(t, err, governance.ECONFLICT)
		if v, err := d.Store.VerifyAudit(ctx); err != nil || !v.OK {
			t.Fatalf("audit = %+v, %v", v, err)
		}
	})
}

// TestUndoAfterBeat: a beat that attaches evidence to a rule after a
// reviewer's action makes that action's undo a conflict.
func TestUndoAfterBeat(t *testing.T, open Opener) {
	now := time.Now().UTC().Truncate(time.Second)
	s := OpenMemory(t, open)
	ctx := context.Background()
	p := MustCreateProject(t, s, "travel")
	hb := NewHeartbeat(s, &LineExtractor{}, nil)
	const pref = "we always take the train"
	if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-72*time.Hour), true, pref)); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules = %+v, %v; want one", rules, err)
	}
	r := rules[0]
	if _, err := s.SetRulePaused(ctx, "rita", r.ID, true, ""); err != nil {
		t.Fatal(err)
	}
	pause := lastAudit(t, s, itoa(r.ID)).ID
	if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-48*time.Hour), true, pref)); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	if a := lastAudit(t, s, itoa(r.ID)); a.ID == pause {
		t.Fatalf("the beat left no audit row on rule %d; the test needs one that attaches evidence", r.ID)
	}
	_, err = s.UndoRule(ctx, "rita", r.ID, pause, false)
	wantCode(t, err, governance.ECONFLICT)
	if got, _ := s.FindRuleByID(ctx, r.ID); !got.Paused {
		t.Fatal("a refused undo resumed the rule")
	}
}
