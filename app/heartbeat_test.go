package app_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// nudges records what the heartbeat was asked for.
type nudges []string

func (n *nudges) NudgeBy(trigger string) { *n = append(*n, trigger) }

func TestHeartbeat(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	forbidden := outcomes{MemberLi: eforbidden, MemberWang: eforbidden, TokenForget: eforbidden, Anonymous: eforbidden}

	t.Run("Beats", func(t *testing.T) {
		want := outcomes{Admin: "", TravelReviewer: "", ExpenseReviewer: ""}
		for k, v := range forbidden {
			want[k] = v
		}
		f.check(t, want, func(actor governance.Actor) error {
			_, err := f.App.Heartbeat.Beats(ctx, actor, 20)
			return err
		})
	})

	t.Run("Run", func(t *testing.T) {
		var hb nudges
		f.check(t, forbidden, func(actor governance.Actor) error { return f.App.Heartbeat.Run(ctx, actor, &hb) })
		if len(hb) != 0 {
			t.Fatalf("refused runs nudged: %v", hb)
		}
		wantCode(t, "no heartbeat", f.App.Heartbeat.Run(ctx, f.Actors[Admin], nil), econflict)
		if err := f.App.Heartbeat.Run(ctx, f.Actors[TravelReviewer], &hb); err != nil {
			t.Fatal(err)
		}
		if len(hb) != 1 || hb[0] != "manual:account:"+TravelReviewer {
			t.Fatalf("nudges = %v", hb)
		}
		rows, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{Action: "heartbeat.run"})
		if err != nil || len(rows) != 1 || rows[0].Actor != "account:"+TravelReviewer {
			t.Fatalf("audit = %+v, %v", rows, err)
		}
	})
}
