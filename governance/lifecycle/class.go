package lifecycle

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
)

// RejectClass records that a reviewer rejects class rc.Class of project
// rc.ProjectID for rc.Reason, and rejects the proposals of ruleIDs (the
// class's proposals now in the queue) with it: all in one transaction with
// one audit row for the class and one per rule. Each rule must still be a
// proposal of that project and class; a class already rejected is
// ECONFLICT.
func (a RuleActions[T]) RejectClass(ctx context.Context, actor string, rc *governance.RejectedClass, ruleIDs []int64) (*governance.RejectedClass, error) {
	if !rc.Reason.Valid() {
		return nil, governance.Errorf(governance.EINVALID, "Choose why the class is rejected.")
	}
	if len(ruleIDs) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "Select at least one rule.")
	}
	key := rc.Class.Key()
	err := a.store.Update(ctx, "RejectClass", func(tx T) error {
		rc.Actor, rc.CreatedAt, rc.LiftedAt, rc.LiftedBy = actor, tx.Now(), nil, ""
		id, err := tx.InsertRejectedClass(ctx, rc)
		if err != nil {
			return err
		}
		rc.ID = id
		why := governance.ClassRejectReason(rc.Reason)
		for _, rid := range governance.DistinctIDs(ruleIDs) {
			r, err := tx.LockRule(ctx, rid)
			if err != nil {
				return err
			}
			if r.ProjectID != rc.ProjectID || governance.RuleClass(r).Key() != key {
				return ErrChanged(r.ID)
			}
			if err := reject(ctx, tx, actor, r, why); err != nil {
				return err
			}
		}
		return tx.AppendAudit(ctx, classAudit(actor, "class.reject", rc, map[string]any{
			"rules": len(governance.DistinctIDs(ruleIDs)), "rule": rc.RuleID, "kind": rc.Class.Kind, "channel": rc.Class.Channel, "risk": rc.Class.Risk}))
	})
	if err != nil {
		return nil, err
	}
	return rc, nil
}

// LiftClass ends the standing rejection id of project projectID: the next
// beat may propose that class again. ECONFLICT when no such rejection
// stands (lifted meanwhile, or of another project).
func (a RuleActions[T]) LiftClass(ctx context.Context, actor string, projectID, id int64) error {
	return a.store.Update(ctx, "LiftClass", func(tx T) error {
		rc, err := tx.LiftRejectedClass(ctx, projectID, id, actor)
		if err != nil {
			return err
		}
		if rc == nil {
			return governance.Errorf(governance.ECONFLICT, "No standing class rejection %d.", id)
		}
		return tx.AppendAudit(ctx, classAudit(actor, "class.lift", rc, nil))
	})
}

func classAudit(actor, action string, rc *governance.RejectedClass, details map[string]any) *governance.AuditEntry {
	d := ""
	if details != nil {
		// Strings and numbers only: Marshal cannot fail.
		b, _ := json.Marshal(details)
		d = string(b)
	}
	return &governance.AuditEntry{Actor: actor, Action: action, ObjectType: "rejected_class",
		ObjectID: strconv.FormatInt(rc.ID, 10), ProjectID: rc.ProjectID, Reason: string(rc.Reason), Details: d}
}
