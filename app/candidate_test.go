package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

// blockedCandidate inserts a candidate the write gate blocked.
func (f *Fixture) blockedCandidate(tb testing.TB, p *governance.Project, subject, text string) int64 {
	tb.Helper()
	id := f.Candidate(tb, p, "s-blocked", subject, text)
	if _, err := f.Store.DB().ExecContext(context.Background(), `UPDATE candidates SET status = 'blocked',
		status_reason = 'The write gate found a credential.',
		findings = '[{"category":"credential","pattern":"api_key","excerpt":"key sk-…","why":"A secret must not be remembered."}]'
		WHERE id = ?`, id); err != nil {
		tb.Fatal(err)
	}
	return id
}

func TestCandidateDecisions(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	held := f.Candidate(t, f.Travel, "s-held", "family-li", "李家喜欢靠窗的座位")

	t.Run("Authorization", func(t *testing.T) {
		// An empty reason is refused as bad input only to those allowed to
		// decide: nothing changes for anyone.
		f.check(t, outcomes{
			Admin: einvalid, TravelReviewer: einvalid,
			ExpenseReviewer: enotfound, TokenOther: enotfound,
			MemberLi: eforbidden, TokenForget: enotfound,
			Anonymous: eunauthorized,
		}, func(actor governance.Actor) error {
			_, err := f.App.Memories.Reject(ctx, actor, held, " ")
			return err
		})
		f.check(t, outcomes{ExpenseReviewer: enotfound, MemberLi: eforbidden, Anonymous: eunauthorized},
			func(actor governance.Actor) error {
				_, err := f.App.Memories.Release(ctx, actor, held, app.CandidateRelease{Reason: "x"})
				return err
			})
		c, err := f.Store.FindCandidateByID(ctx, held)
		if err != nil || c.Status != governance.CandidateHeld {
			t.Fatalf("after refusals: %+v, %v", c, err)
		}
		_, err = f.App.Memories.Release(ctx, f.Actors[Admin], 999999, app.CandidateRelease{})
		wantCode(t, "unknown candidate", err, enotfound)
	})

	t.Run("ReleaseHeld", func(t *testing.T) {
		r, err := f.App.Memories.Release(ctx, f.Actors[TravelReviewer], held, app.CandidateRelease{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleProposed || r.Text != "李家喜欢靠窗的座位" || r.SubjectID != "family-li" ||
			r.PromotionReason != governance.ReasonReviewer {
			t.Fatalf("rule = %+v", r)
		}
		c, _ := f.Store.FindCandidateByID(ctx, held)
		if c.Status != governance.CandidateProposed || c.RuleID != r.ID {
			t.Fatalf("candidate = %+v", c)
		}
		_, err = f.App.Memories.Release(ctx, f.Actors[TravelReviewer], held, app.CandidateRelease{})
		wantCode(t, "released twice", err, econflict)
	})

	t.Run("ReleaseBlocked", func(t *testing.T) {
		blocked := f.blockedCandidate(t, f.Travel, "family-li", "my key is sk-test")
		_, err := f.App.Memories.Release(ctx, f.Actors[TravelReviewer], blocked, app.CandidateRelease{})
		fe, ok := app.AsFieldErrors(err)
		if !ok || fe["acknowledged"].IsZero() || fe["reason"].IsZero() {
			t.Fatalf("unacknowledged release: %v", err)
		}
		r, err := f.App.Memories.Release(ctx, f.Actors[TravelReviewer], blocked,
			app.CandidateRelease{Acknowledged: true, Reason: "a test key, revoked"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Findings) != 1 || r.Findings[0].Category != "credential" {
			t.Fatalf("the findings did not go with the proposal: %+v", r.Findings)
		}
		audit, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{ObjectType: "candidate"})
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, a := range audit {
			if a.Action == "candidate.release" && a.Actor == TravelReviewer && a.Reason == "a test key, revoked" &&
				strings.Contains(a.Details, `"was":"blocked"`) && strings.Contains(a.Details, "credential") {
				found = true
			}
		}
		if !found {
			t.Fatalf("no audited release: %+v", audit)
		}
	})

	t.Run("Reject", func(t *testing.T) {
		id := f.Candidate(t, f.Travel, "s-rej", "family-wang", "王家只吃素")
		c, err := f.App.Memories.Reject(ctx, f.Actors[Admin], id, "not what they said")
		if err != nil || c.Status != governance.CandidateRejected {
			t.Fatalf("reject: %+v, %v", c, err)
		}
		_, err = f.App.Memories.Reject(ctx, f.Actors[Admin], id, "again")
		wantCode(t, "rejected twice", err, econflict)
	})
}
