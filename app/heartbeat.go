package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// HeartbeatStore reads the beat history and records who asked for a beat.
type HeartbeatStore interface {
	FindBeats(ctx context.Context, limit int) ([]*governance.BeatRecord, error)
	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
}

// Nudger asks the background heartbeat for a beat now, recording trigger
// as why it ran.
type Nudger interface {
	NudgeBy(trigger string)
}

// Heartbeat is the use cases of the heartbeat page (reviewers and admins).
type Heartbeat struct {
	store HeartbeatStore
}

var errHeartbeatForbidden = governance.Errorf(governance.EFORBIDDEN, "Only reviewers and admins see and run the heartbeat.")

func heartbeatAllowed(actor governance.Actor) error {
	if actor.Account == nil || governance.Can(actor, governance.ActReviewAny, governance.Object{}) != nil {
		return errHeartbeatForbidden
	}
	return nil
}

// Beats returns the newest limit beats.
func (h Heartbeat) Beats(ctx context.Context, actor governance.Actor, limit int) ([]*governance.BeatRecord, error) {
	if err := heartbeatAllowed(actor); err != nil {
		return nil, err
	}
	return h.store.FindBeats(ctx, limit)
}

// Run asks hb for a beat now on behalf of actor and audits the request.
// A nil hb (the heartbeat does not run in this process) is ECONFLICT.
func (h Heartbeat) Run(ctx context.Context, actor governance.Actor, hb Nudger) error {
	if err := heartbeatAllowed(actor); err != nil {
		return err
	}
	if hb == nil {
		return governance.Errorf(governance.ECONFLICT, "The heartbeat does not run in this process.")
	}
	who := "account:" + actor.Name()
	hb.NudgeBy("manual:" + who)
	return h.store.AppendAudit(ctx, &governance.AuditEntry{
		Actor: who, Action: "heartbeat.run", ObjectType: "heartbeat", ObjectID: "now",
	})
}
