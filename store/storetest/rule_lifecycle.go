package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

func TestApproveRule(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		r, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleActive {
			t.Fatalf("status = %s, want active", r.Status)
		}
		for _, c := range d.Candidates(t, nap.ID) {
			if c.Status != governance.CandidatePromoted {
				t.Errorf("candidate %d = %s, want promoted", c.ID, c.Status)
			}
		}
		if a := lastAudit(t, d.Store, itoa(nap.ID)); a.Action != "rule.approve" || a.Actor != "rita" {
			t.Fatalf("audit = %+v", a)
		}
		_, err = d.Store.ApproveRule(ctx, "rita", nap.ID, nil)
		wantCode(t, err, governance.ECONFLICT)
	})
	t.Run("WithEdits", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		_, err := d.Store.ApproveRule(ctx, "rita", nap.ID, &governance.RuleEdit{Text: "午睡时间 14:00–16:00 不安排任何行程"})
		wantCode(t, err, governance.EINVALID) // no reason
		r, err := d.Store.ApproveRule(ctx, "rita", nap.ID, &governance.RuleEdit{Text: "午睡时间 14:00–16:00 不安排任何行程", Reason: "shorter"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleActive || r.Version != 2 || r.Text != "午睡时间 14:00–16:00 不安排任何行程" {
			t.Fatalf("rule = %+v", r)
		}
		vs, err := d.Store.FindRuleVersions(ctx, nap.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 2 || vs[1].Actor != "rita" || vs[1].Reason != "shorter" || vs[0].Text != nap.Text {
			t.Fatalf("versions = %+v", vs)
		}
	})
	t.Run("Bulk", func(t *testing.T) {
		d := LoadDemo(t, open)
		a, b := d.Rule(t, "午睡"), d.Rule(t, "结论")
		if err := d.Store.ApproveRules(ctx, "rita", []int64{a.ID, b.ID}); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{a.ID, b.ID} {
			if r, _ := d.Store.FindRuleByID(ctx, id); r.Status != governance.RuleActive {
				t.Errorf("rule %d = %s", id, r.Status)
			}
		}
		// All or nothing: one approved rule in the batch fails it all.
		c := d.Rule(t, "单独安排一天")
		wantCode(t, d.Store.ApproveRules(ctx, "rita", []int64{c.ID, a.ID}), governance.ECONFLICT)
		if r, _ := d.Store.FindRuleByID(ctx, c.ID); r.Status != governance.RuleProposed {
			t.Fatalf("rule %d = %s after a failed batch, want proposed", c.ID, r.Status)
		}
	})
}

func TestRejectRule(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	nap := d.Rule(t, "午睡")
	t.Run("ReasonRequired", func(t *testing.T) {
		_, err := d.Store.RejectRule(ctx, "rita", nap.ID, "  ")
		wantCode(t, err, governance.EINVALID)
	})
	t.Run("OK", func(t *testing.T) {
		r, err := d.Store.RejectRule(ctx, "rita", nap.ID, "duplicate of the family's own note")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleRejected {
			t.Fatalf("status = %s", r.Status)
		}
		for _, c := range d.Candidates(t, nap.ID) {
			if c.Status != governance.CandidateRejected {
				t.Errorf("candidate %d = %s, want rejected", c.ID, c.Status)
			}
		}
		if a := lastAudit(t, d.Store, itoa(nap.ID)); a.Action != "rule.reject" || a.Reason != "duplicate of the family's own note" {
			t.Fatalf("audit = %+v", a)
		}
	})
	t.Run("RestoreToProposed", func(t *testing.T) {
		r, err := d.Store.RestoreRule(ctx, "rita", nap.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleProposed {
			t.Fatalf("status = %s", r.Status)
		}
		for _, c := range d.Candidates(t, nap.ID) {
			if c.Status != governance.CandidateProposed {
				t.Errorf("candidate %d = %s, want proposed", c.ID, c.Status)
			}
		}
	})
	t.Run("BulkAllOrNothing", func(t *testing.T) {
		other := d.Rule(t, "结论")
		if err := d.Store.RejectRules(ctx, "rita", []int64{nap.ID, other.ID}, "not now"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, d.Store.RejectRules(ctx, "rita", []int64{nap.ID}, "again"), governance.ECONFLICT)
	})
}

func TestHoldAndDemote(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("Hold", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		before := d.Candidates(t, nap.ID)
		r, err := d.Store.HoldRule(ctx, "rita", nap.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleArchived {
			t.Fatalf("status = %s", r.Status)
		}
		for _, c := range before {
			got, err := d.Store.FindCandidateByID(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != governance.CandidateHeld || got.StatusReason == "" {
				t.Errorf("candidate = %+v, want held with why", got)
			}
		}
	})
	t.Run("Lifecycle", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		_, err := d.Store.DemoteRule(ctx, "rita", nap.ID, "old")
		wantCode(t, err, governance.ECONFLICT) // a proposal is not demoted
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		_, err = d.Store.DemoteRule(ctx, "rita", nap.ID, "")
		wantCode(t, err, governance.EINVALID)
		for _, want := range []governance.RuleStatus{governance.RuleStale, governance.RuleArchived} {
			r, err := d.Store.DemoteRule(ctx, "rita", nap.ID, "the child is older now")
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != want {
				t.Fatalf("status = %s, want %s", r.Status, want)
			}
		}
		_, err = d.Store.DemoteRule(ctx, "rita", nap.ID, "again")
		wantCode(t, err, governance.ECONFLICT)
		r, err := d.Store.RestoreRule(ctx, "rita", nap.ID, "still naps")
		if err != nil || r.Status != governance.RuleActive {
			t.Fatalf("restore = %+v, %v", r, err)
		}
		r, err = d.Store.DemoteRuleToCandidates(ctx, "rita", nap.ID, "needs more evidence")
		if err != nil || r.Status != governance.RuleArchived {
			t.Fatalf("to candidates = %+v, %v", r, err)
		}
		if n := len(d.Candidates(t, nap.ID)); n != 0 {
			t.Fatalf("rule keeps %d candidates", n)
		}
	})
}

func TestSupersedePauseExpire(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	nap, attach := d.Rule(t, "午睡"), d.Rule(t, "结论")
	if err := d.Store.ApproveRules(ctx, "rita", []int64{nap.ID}); err != nil {
		t.Fatal(err)
	}
	t.Run("ReplacementProposal", func(t *testing.T) {
		// attach is another proposal of the same subject: link it as the
		// replacement; approving it supersedes the nap rule.
		if _, err := d.Store.SupersedeRule(ctx, "rita", nap.ID, attach.ID, "the family changed the nap time"); err != nil {
			t.Fatal(err)
		}
		newer, _ := d.Store.FindRuleByID(ctx, attach.ID)
		if newer.Supersedes != nap.ID {
			t.Fatalf("supersedes = %d", newer.Supersedes)
		}
		if _, err := d.Store.ApproveRule(ctx, "rita", attach.ID, nil); err != nil {
			t.Fatal(err)
		}
		old, _ := d.Store.FindRuleByID(ctx, nap.ID)
		if old.Status != governance.RuleSuperseded || old.SupersededBy != attach.ID {
			t.Fatalf("old = %s by %d", old.Status, old.SupersededBy)
		}
		if ok, why := old.Usable(time.Now()); ok || why != "superseded" {
			t.Fatalf("usable = %v %q", ok, why)
		}
	})
	t.Run("OtherScope", func(t *testing.T) {
		lesson := d.Rule(t, "单独安排一天")
		_, err := d.Store.SupersedeRule(ctx, "rita", attach.ID, lesson.ID, "x")
		wantCode(t, err, governance.EINVALID)
	})
	t.Run("Pause", func(t *testing.T) {
		r, err := d.Store.SetRulePaused(ctx, "rita", attach.ID, true, "trip planning paused")
		if err != nil {
			t.Fatal(err)
		}
		if ok, why := r.Usable(time.Now()); ok || why != "paused" {
			t.Fatalf("usable = %v %q", ok, why)
		}
		if r, _ = d.Store.SetRulePaused(ctx, "rita", attach.ID, false, ""); r.Paused {
			t.Fatal("still paused")
		}
		if a := lastAudit(t, d.Store, itoa(attach.ID)); a.Action != "rule.unpause" {
			t.Fatalf("audit = %+v", a)
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		past := time.Now().Add(-time.Hour)
		_, err := d.Store.SetRuleExpiry(ctx, "rita", attach.ID, &past, "")
		wantCode(t, err, governance.EINVALID)
		future := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
		r, err := d.Store.SetRuleExpiry(ctx, "rita", attach.ID, &future, "summer only")
		if err != nil {
			t.Fatal(err)
		}
		if r.ExpiresAt == nil || !r.ExpiresAt.Equal(future) {
			t.Fatalf("expires = %v", r.ExpiresAt)
		}
		if ok, why := r.Usable(future.Add(time.Minute)); ok || why != "expired" {
			t.Fatalf("usable after expiry = %v %q", ok, why)
		}
		if r, _ = d.Store.SetRuleExpiry(ctx, "rita", attach.ID, nil, ""); r.ExpiresAt != nil {
			t.Fatal("expiry not cleared")
		}
	})
	t.Run("AuditHoldsNoContent", func(t *testing.T) {
		v, err := d.Store.VerifyAudit(ctx)
		if err != nil || !v.OK {
			t.Fatalf("verify = %+v, %v", v, err)
		}
		rows, _, _ := d.Store.FindAudit(ctx, governance.AuditFilter{})
		for _, a := range rows {
			for _, text := range []string{nap.Text, attach.Text} {
				if strings.Contains(a.Details, text) || strings.Contains(a.Reason, text) {
					t.Fatalf("audit row %d holds a rule's text", a.ID)
				}
			}
		}
	})
}

// TestConcurrentApprove: reviewers approving one proposal at the same time
// (two console instances, on PostgreSQL) — one approval wins, the others
// get ECONFLICT, and the rule has one approval in its audit.
func TestConcurrentApprove(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	nap := d.Rule(t, "午睡")
	const n = 4
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := d.Store.ApproveRule(ctx, fmt.Sprintf("reviewer-%d", i), nap.ID, nil)
			errs <- err
		}()
	}
	ok := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			ok++
		case governance.ErrorCode(err) != governance.ECONFLICT:
			t.Fatalf("concurrent approval: %v, want ECONFLICT", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d approvals succeeded, want 1", ok)
	}
	rows, _, err := d.Store.FindAudit(ctx, governance.AuditFilter{ObjectType: "rule", ObjectID: itoa(nap.ID), Action: "rule.approve"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("approval audit rows = %d, %v; want 1", len(rows), err)
	}
	if v, err := d.Store.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("audit = %+v, %v", v, err)
	}
}

// TestHoldKeepsEvidence: a held proposal keeps its candidates linked (its
// evidence chain); restoring it, or releasing one of its candidates, brings
// the same rule back as a proposal.
func TestHoldKeepsEvidence(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("Restore", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		before := d.Candidates(t, nap.ID)
		if _, err := d.Store.HoldRule(ctx, "rita", nap.ID, ""); err != nil {
			t.Fatal(err)
		}
		for _, c := range before {
			got, err := d.Store.FindCandidateByID(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != governance.CandidateHeld || got.RuleID != nap.ID {
				t.Errorf("candidate = %+v, want held, still linked to rule %d", got, nap.ID)
			}
		}
		ev, err := d.Store.FindEvidenceByRules(ctx, []int64{nap.ID})
		if err != nil || len(ev[nap.ID]) != len(before) {
			t.Fatalf("held rule's evidence = %d links, %v; want %d", len(ev[nap.ID]), err, len(before))
		}
		r, err := d.Store.RestoreRule(ctx, "rita", nap.ID, "more came in")
		if err != nil || r.Status != governance.RuleProposed {
			t.Fatalf("restore = %+v, %v; want the proposal back", r, err)
		}
		for _, c := range d.Candidates(t, nap.ID) {
			if c.Status != governance.CandidateProposed {
				t.Errorf("candidate %d = %s, want proposed", c.ID, c.Status)
			}
		}
		if n := len(d.Candidates(t, nap.ID)); n != len(before) {
			t.Fatalf("restored rule has %d candidates, want %d", n, len(before))
		}
	})
	t.Run("ReleaseReopensHeldRule", func(t *testing.T) {
		d := LoadDemo(t, open)
		nap := d.Rule(t, "午睡")
		before := d.Candidates(t, nap.ID)
		if _, err := d.Store.HoldRule(ctx, "rita", nap.ID, ""); err != nil {
			t.Fatal(err)
		}
		r, err := d.Store.ReleaseCandidate(ctx, "rita", before[0].ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != nap.ID || r.Status != governance.RuleProposed {
			t.Fatalf("release = rule %d %s; want rule %d proposed again", r.ID, r.Status, nap.ID)
		}
		if n := len(d.Candidates(t, nap.ID)); n != len(before) {
			t.Fatalf("reopened rule has %d candidates, want %d", n, len(before))
		}
	})
}

// TestBeatReopensHeldRule: a proposal a reviewer held keeps its candidates;
// when a later session says the same again, the beat brings that rule back
// into review with the old and the new evidence, never a second rule.
func TestBeatReopensHeldRule(t *testing.T, open Opener) {
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
	if err != nil || len(rules) != 1 || rules[0].Status != governance.RuleProposed {
		t.Fatalf("rules = %+v, %v; want one proposal", rules, err)
	}
	held := rules[0]
	if _, err := s.HoldRule(ctx, "rita", held.ID, "wait"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-48*time.Hour), true, pref)); err != nil {
		t.Fatal(err)
	}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	rules, _, err = s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules = %d, %v; want the held one only", len(rules), err)
	}
	if rules[0].ID != held.ID || rules[0].Status != governance.RuleProposed {
		t.Fatalf("rule = %d %s; want rule %d proposed again", rules[0].ID, rules[0].Status, held.ID)
	}
	ev, err := s.FindEvidenceByRules(ctx, []int64{held.ID})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]bool{}
	for _, l := range ev[held.ID] {
		sessions[l.Candidate.SessionID] = true
	}
	if !sessions["s1"] || !sessions["s2"] {
		t.Fatalf("evidence sessions = %v; want s1 and s2", sessions)
	}
}
