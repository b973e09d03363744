package governance_test

import (
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestCheckUndo: an undo is of the rule's latest row, of an undoable
// action its reviewer marked, inside the window, by that reviewer or an
// admin.
func TestCheckUndo(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	row := func(action, details string) *governance.AuditEntry {
		return &governance.AuditEntry{ID: 9, At: at, Actor: "rita", Action: action, ObjectType: "rule", ObjectID: "7", Details: details}
	}
	approve := row("rule.approve", `{"candidates":1,"version":1,"edited":false,"undoable":true}`)
	inside, after := at.Add(governance.RuleUndoWindow-time.Second), at.Add(governance.RuleUndoWindow)
	for _, tc := range []struct {
		name     string
		last     *governance.AuditEntry
		want     int64
		actor    string
		anyActor bool
		now      time.Time
		code     string
	}{
		{"own action", approve, 9, "rita", false, inside, ""},
		{"admin", approve, 9, "admin", true, inside, ""},
		{"someone else's", approve, 9, "otto", false, inside, governance.EFORBIDDEN},
		{"window closed", approve, 9, "rita", false, after, governance.ECONFLICT},
		{"not the latest row", approve, 8, "rita", false, inside, governance.ECONFLICT},
		{"no row", nil, 9, "rita", false, inside, governance.ECONFLICT},
		{"unmarked (heartbeat, outcome review, older rows)", row("rule.approve", `{"candidates":1,"version":1}`), 9, "rita", false, inside, governance.ECONFLICT},
		{"not undoable", row("rule.forget", `{"undoable":true}`), 9, "rita", false, inside, governance.ECONFLICT},
		{"undo of an undo", row(governance.UndoAuditAction, `{"undoable":true}`), 9, "rita", false, inside, governance.ECONFLICT},
		{"restore of a superseded rule", row("rule.restore", `{"from":"superseded","superseded_by":3,"undoable":true}`), 9, "rita", false, inside, governance.ECONFLICT},
		{"expiry without the one before", row("rule.expiry_set", `{"expires_at":"2026-06-01T00:00:00Z","undoable":true}`), 9, "rita", false, inside, governance.ECONFLICT},
		{"expiry with the one before", row("rule.expiry_set", `{"expires_at":"2026-06-01T00:00:00Z","was":null,"undoable":true}`), 9, "rita", false, inside, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := governance.CheckUndo(7, tc.last, tc.want, tc.actor, tc.anyActor, tc.now)
			if got := governance.ErrorCode(err); got != tc.code {
				t.Fatalf("CheckUndo = %v (code %q), want code %q", err, got, tc.code)
			}
			if tc.code == "" && (u == nil || u.AuditID != 9 || u.RuleID != 7 || !u.Until.Equal(at.Add(governance.RuleUndoWindow))) {
				t.Fatalf("undo = %+v", u)
			}
			if offered := governance.UndoOf(tc.last, tc.now) != nil; offered != (tc.code == "" || tc.code == governance.EFORBIDDEN || tc.name == "not the latest row") {
				t.Fatalf("UndoOf offered = %v", offered)
			}
		})
	}
}
