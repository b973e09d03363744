package storetest

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestCandidateDecisions(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	held, _, err := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: d.Travel.ID,
		Statuses: []governance.CandidateStatus{governance.CandidateHeld}})
	if err != nil || len(held) < 2 {
		t.Fatalf("held = %d, %v", len(held), err)
	}
	// The held member of the largest merge group: its group goes along.
	groups := map[int64][]int64{}
	for _, c := range held {
		groups[c.GroupID] = append(groups[c.GroupID], c.ID)
	}
	pick := held[0]
	for _, c := range held {
		if len(groups[c.GroupID]) > len(groups[pick.GroupID]) {
			pick = c
		}
	}
	before, _ := d.Store.ReviewQueueVersion(ctx, d.Travel.ID, governance.CandidateHeld)
	r, err := d.Store.ReleaseCandidate(ctx, "rita", pick.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != governance.RuleProposed || r.Text != pick.Statement || r.Kind != pick.Type || r.ProjectID != d.Travel.ID {
		t.Fatalf("rule = %+v", r)
	}
	for _, id := range groups[pick.GroupID] {
		c, err := d.Store.FindCandidateByID(ctx, id)
		if err != nil || c.Status != governance.CandidateProposed || c.RuleID != r.ID {
			t.Fatalf("group member %d: %+v, %v", id, c, err)
		}
	}
	if after, _ := d.Store.ReviewQueueVersion(ctx, d.Travel.ID, governance.CandidateHeld); after == before {
		t.Fatal("the held tab's version did not change")
	}
	if _, err := d.Store.ReleaseCandidate(ctx, "rita", pick.ID, ""); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("second release: %v", err)
	}
	if _, err := d.Store.RejectCandidate(ctx, "rita", 999999, "x"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown candidate: %v", err)
	}

	blocked, _, err := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: d.Travel.ID,
		Statuses: []governance.CandidateStatus{governance.CandidateBlocked}})
	if err != nil || len(blocked) == 0 {
		t.Fatalf("blocked = %d, %v", len(blocked), err)
	}
	c, err := d.Store.RejectCandidate(ctx, "rita", blocked[0].ID, "an injection")
	if err != nil || c.Status != governance.CandidateRejected {
		t.Fatalf("reject: %+v, %v", c, err)
	}
	audit, _, err := d.Store.FindAudit(ctx, governance.AuditFilter{ObjectType: "candidate"})
	if err != nil || len(audit) != 2 {
		t.Fatalf("audit = %+v, %v", audit, err)
	}
	for _, a := range audit {
		if a.Actor != "rita" || a.ProjectID != d.Travel.ID || (a.Action != "candidate.release" && a.Action != "candidate.reject") {
			t.Fatalf("audit row %+v", a)
		}
	}
}
