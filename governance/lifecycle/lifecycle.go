// Package lifecycle decides the rule lifecycle: what a reviewer's action
// does to a rule and its candidates, the audit row it leaves, and when a
// held proposal comes back into review. The table of which status allows
// which action is the domain's (governance); the SQL of each step is a
// store backend's, behind Tx and Store, so SQLite (package store) and
// PostgreSQL (store/postgres) keep only their statements and their
// transactions, and this package knows neither.
package lifecycle

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Tx is one write transaction of a backend, as the lifecycle uses it:
// each method is one step in SQL, deciding nothing.
type Tx interface {
	// Now is the transaction's time, written on every row it changes.
	Now() time.Time
	// LockRule reads rule id for a change (its row locked until the
	// transaction ends, where the engine locks rows); ENOTFOUND when it
	// is gone.
	LockRule(ctx context.Context, id int64) (*governance.Rule, error)
	// SetRuleStatus moves rule id from status from to status to; false
	// when its status was no longer from.
	SetRuleStatus(ctx context.Context, id int64, from, to governance.RuleStatus) (bool, error)
	// SetCandidates gives the candidates of rule ruleID that are in one of
	// the statuses from the status to, and the reason unless it is nil;
	// unlink ends their link to the rule. It returns how many changed.
	SetCandidates(ctx context.Context, ruleID int64, from []governance.CandidateStatus, to governance.CandidateStatus,
		reason *string, unlink bool) (int64, error)
	// CountCandidates counts the candidates linked to rule ruleID, and
	// how many of them are held.
	CountCandidates(ctx context.Context, ruleID int64) (all, held int, err error)
	// RuleOfCandidates returns the one rule every candidate of ids is
	// linked to, or 0 when some are unlinked or linked to another rule.
	RuleOfCandidates(ctx context.Context, ids []int64) (int64, error)
	// SetSupersedes records on rule newerID that it replaces rule oldID.
	SetSupersedes(ctx context.Context, newerID, oldID int64) error
	// Supersede marks rule oldID, still in status from, superseded by
	// rule newerID; false when its status was no longer from.
	Supersede(ctx context.Context, oldID, newerID int64, from governance.RuleStatus) (bool, error)
	// SupersededFrom is the status superseded rule id had before ("" when
	// it was superseded before the store kept it).
	SupersededFrom(ctx context.Context, id int64) (governance.RuleStatus, error)
	// Unsupersede moves superseded rule id to status to and ends its
	// replacement: the newer rule no longer names it as the one it
	// replaces; false when id was not superseded.
	Unsupersede(ctx context.Context, id int64, to governance.RuleStatus) (bool, error)
	SetPaused(ctx context.Context, id int64, paused bool) error
	// SetExpiry sets (UTC, whole seconds) or clears (nil) the expiry.
	SetExpiry(ctx context.Context, id int64, at *time.Time) error
	// WriteVersion writes ed as version of rule r, which must still be
	// at r.Version (false when it no longer is).
	WriteVersion(ctx context.Context, actor string, r *governance.Rule, ed *governance.EditedRule, version int) (bool, error)
	// InsertRule writes a new rule with its first version and audit row.
	InsertRule(ctx context.Context, r *governance.Rule, actor, reason string) (int64, error)
	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
	// LastRuleAudit is the latest audit row about rule ruleID (nil: none).
	LastRuleAudit(ctx context.Context, ruleID int64) (*governance.AuditEntry, error)
	// RuleVersions is rule ruleID's history, oldest first.
	RuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error)
	// InsertRejectedClass writes a standing class rejection and returns
	// its id.
	InsertRejectedClass(ctx context.Context, rc *governance.RejectedClass) (int64, error)
	// LiftRejectedClass ends the standing rejection id of project
	// projectID and returns it as lifted, or nil when none stands.
	LiftRejectedClass(ctx context.Context, projectID, id int64, actor string) (*governance.RejectedClass, error)
	// SetMerged writes on rule id what it takes over from a rule merged
	// into it: trust when above 0 and the rule it replaces when not 0,
	// leaving its updated_at.
	SetMerged(ctx context.Context, id int64, trust float64, supersedes int64) error

	// LockCandidate reads candidate id for a decision (its row locked
	// until the transaction ends, where the engine locks rows);
	// ENOTFOUND when it is gone.
	LockCandidate(ctx context.Context, id int64) (*governance.Candidate, error)
	// CandidateRule is the rule candidate id supports (0: none, its row
	// locked where the engine locks rows); found is false when there is
	// no such candidate.
	CandidateRule(ctx context.Context, id int64) (ruleID int64, found bool, err error)
	// ReleaseCandidates makes candidate c, and with group every held
	// candidate of its merge group, proposed evidence of rule ruleID,
	// with the status reason why.
	ReleaseCandidates(ctx context.Context, c *governance.Candidate, ruleID int64, group bool, why string) error
	// RejectCandidate rejects candidate id for the reason.
	RejectCandidate(ctx context.Context, id int64, reason string) error
	// MoveCandidates links the candidates of rule fromID to rule toID, in
	// toID's merge group (the lowest of its candidates') when it has one,
	// with the status reason why; it returns how many moved.
	MoveCandidates(ctx context.Context, fromID, toID int64, why string) (int64, error)
	// SplitCandidate unlinks candidate id from its rule: held, in a merge
	// group of its own, with the status reason why.
	SplitCandidate(ctx context.Context, id int64, why string) error
}

// Store is a backend's store as the lifecycle uses it: its write
// transactions (of type T) and a read of a rule as committed.
type Store[T Tx] interface {
	// Update runs fn in one write transaction and commits it when fn
	// returns nil; otherwise nothing fn did is kept. op names the store
	// method it serves (the SQLite store names its writer turn by it).
	Update(ctx context.Context, op string, fn func(tx T) error) error
	FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error)
}

// Change runs fn on rule id inside one transaction and returns the rule as
// committed.
func Change[T Tx](ctx context.Context, s Store[T], op string, id int64, fn func(tx T, r *governance.Rule) error) (*governance.Rule, error) {
	if err := s.Update(ctx, op, func(tx T) error {
		r, err := tx.LockRule(ctx, id)
		if err != nil {
			return err
		}
		return fn(tx, r)
	}); err != nil {
		return nil, err
	}
	return s.FindRuleByID(ctx, id)
}

// ChangeAll runs fn on each rule of ids (once per id) in one transaction:
// all or none.
func ChangeAll[T Tx](ctx context.Context, s Store[T], op string, ids []int64, fn func(tx T, r *governance.Rule) error) error {
	if len(ids) == 0 {
		return governance.Errorf(governance.EINVALID, "Select at least one rule.")
	}
	return s.Update(ctx, op, func(tx T) error {
		seen := map[int64]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			r, err := tx.LockRule(ctx, id)
			if err != nil {
				return err
			}
			if err := fn(tx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// ErrChanged is the conflict of a rule another request changed between
// our read and our write.
func ErrChanged(id int64) error {
	return governance.Errorf(governance.ECONFLICT, "Rule %d changed meanwhile; reload and try again.", id)
}

// Audit appends the audit row of an action on rule r: ids, the reason and
// details (JSON), never the rule's text.
func Audit(ctx context.Context, tx Tx, actor, action string, r *governance.Rule, reason string, details any) error {
	d := ""
	if details != nil {
		b, err := json.Marshal(details)
		if err != nil {
			return err
		}
		d = string(b)
	}
	return tx.AppendAudit(ctx, &governance.AuditEntry{
		Actor: actor, Action: action, ObjectType: "rule", ObjectID: strconv.FormatInt(r.ID, 10),
		ProjectID: r.ProjectID, Reason: strings.TrimSpace(reason), Details: d,
	})
}

// SetStatus moves r from its current status to to; a concurrent change of
// the status is ECONFLICT.
func SetStatus(ctx context.Context, tx Tx, r *governance.Rule, to governance.RuleStatus) error {
	ok, err := tx.SetRuleStatus(ctx, r.ID, r.Status, to)
	if err != nil {
		return err
	}
	if !ok {
		return ErrChanged(r.ID)
	}
	r.Status, r.UpdatedAt = to, tx.Now()
	return nil
}

func statuses(s ...governance.CandidateStatus) []governance.CandidateStatus { return s }
