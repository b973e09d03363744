package app

import (
	"context"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
)

// AuditStore reads the audit log.
type AuditStore interface {
	FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error)
	VerifyAudit(ctx context.Context) (*governance.AuditVerification, error)
	VerifyAuditHead(ctx context.Context, expect *governance.AuditHead) (*governance.AuditVerification, error)
	AuditHead(ctx context.Context) (governance.AuditHead, error)
	FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error)
}

// AuditLog is the use cases of the audit log: reviewers of any project
// read it, admins all of it, reviewers their projects' rows.
type AuditLog struct {
	store AuditStore
}

// scoped limits f to what the actor may read; it reports whether rows
// were left out (a reviewer who is not an admin).
func (al AuditLog) scoped(actor governance.Actor, f *governance.AuditFilter) (bool, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return false, err
	}
	f.ProjectIDs = nil
	ids, all := actor.Account.ReviewableProjects()
	if !all {
		f.ProjectIDs = append([]int64{}, ids...)
	}
	return !all, nil
}

// AuditPage is one page of the audit log and the state of its hash chain.
type AuditPage struct {
	Entries []*governance.AuditEntry
	Total   int
	// Scoped is true when only the actor's projects' rows are shown.
	Scoped bool
	// Check is the verification of the whole hash chain.
	Check *governance.AuditVerification
	// Live says which objects named by the rows ("rule:12") still exist,
	// so a page links only to those (eval scratch rules go with their run).
	Live map[string]bool
}

// Page reads one page of the audit log (f's Offset and Limit), limited to
// what the actor may read, and verifies the hash chain.
func (al AuditLog) Page(ctx context.Context, actor governance.Actor, f governance.AuditFilter) (*AuditPage, error) {
	scoped, err := al.scoped(actor, &f)
	if err != nil {
		return nil, err
	}
	out := &AuditPage{Scoped: scoped}
	if out.Entries, out.Total, err = al.store.FindAudit(ctx, f); err != nil {
		return nil, err
	}
	if out.Check, err = al.store.VerifyAudit(ctx); err != nil {
		return nil, err
	}
	if out.Live, err = al.live(ctx, out.Entries); err != nil {
		return nil, err
	}
	return out, nil
}

// Verify recomputes the whole hash chain (console audit verify): whoever
// may read the audit log, since the page shows the same verdict.
func (al AuditLog) Verify(ctx context.Context, actor governance.Actor) (*governance.AuditVerification, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return nil, err
	}
	return al.store.VerifyAudit(ctx)
}

// VerifyHead is Verify that also fails unless the chain holds expect, a
// head kept from before (console audit verify --expect-head).
func (al AuditLog) VerifyHead(ctx context.Context, actor governance.Actor, expect *governance.AuditHead) (*governance.AuditVerification, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return nil, err
	}
	return al.store.VerifyAuditHead(ctx, expect)
}

// Head is the chain's head (its rows and its last row's hash), for an
// outside witness to keep: whoever may read the audit log.
func (al AuditLog) Head(ctx context.Context, actor governance.Actor) (governance.AuditHead, error) {
	if err := governance.Can(actor, governance.ActReviewAny, governance.Object{}); err != nil {
		return governance.AuditHead{}, err
	}
	return al.store.AuditHead(ctx)
}

// Export reads every row of the audit log f selects that the actor may
// read, newest first, in batches of batch rows handed to each. It stops at
// the first error of each, or of the store.
func (al AuditLog) Export(ctx context.Context, actor governance.Actor, f governance.AuditFilter, batch int, each func([]*governance.AuditEntry) error) error {
	if _, err := al.scoped(actor, &f); err != nil {
		return err
	}
	for f.Offset = 0; ; f.Offset += batch {
		f.Limit = batch
		entries, _, err := al.store.FindAudit(ctx, f)
		if err != nil {
			return err
		}
		if err := each(entries); err != nil {
			return err
		}
		if len(entries) < batch {
			return nil
		}
	}
}

// live says which rules named by audit rows still exist.
func (al AuditLog) live(ctx context.Context, entries []*governance.AuditEntry) (map[string]bool, error) {
	live := map[string]bool{}
	for _, e := range entries {
		if e.ObjectType != "rule" {
			continue
		}
		key := "rule:" + e.ObjectID
		if _, done := live[key]; done {
			continue
		}
		id, err := strconv.ParseInt(e.ObjectID, 10, 64)
		if err != nil {
			live[key] = false
			continue
		}
		_, err = al.store.FindRuleByID(ctx, id)
		switch governance.ErrorCode(err) {
		case "":
			live[key] = true
		case governance.ENOTFOUND:
			live[key] = false
		default:
			return nil, err
		}
	}
	return live, nil
}
