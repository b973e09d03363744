package skillrows

import (
	"cmp"
	"context"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Tx is a store's write transaction as a skill's save and a reviewer's
// decision use it (Save, Decide), after the store's own locks and checks:
// each method is one step in SQL.
type Tx interface {
	// Now is the transaction's time.
	Now() time.Time
	// SkillByName and SkillByID read a skill for a change (its row
	// locked where the engine locks rows); ENOTFOUND when there is none.
	SkillByName(ctx context.Context, projectID int64, name string) (*governance.Skill, error)
	SkillByID(ctx context.Context, id int64) (*governance.Skill, error)
	// CreateSkill inserts sk and sets its id.
	CreateSkill(ctx context.Context, sk *governance.Skill) error
	// Versions are the versions of skill skillID, newest first, with
	// their files; only > 0: that version alone.
	Versions(ctx context.Context, skillID int64, only int) ([]*governance.SkillVersion, error)
	// Supersede marks the versions of skill skillID in one of statuses
	// superseded.
	Supersede(ctx context.Context, skillID int64, statuses ...governance.SkillVersionStatus) error
	// InsertVersion writes a version's row, then its files and the
	// sessions it was learned from (a session already kept for the
	// skill is kept as it was).
	InsertVersion(ctx context.Context, row Version, files []governance.SkillFile, evidence []governance.SkillEvidence) error
	// DecideVersion gives version n of skill skillID the status, decided
	// by actor now.
	DecideVersion(ctx context.Context, skillID int64, n int, status governance.SkillVersionStatus, actor string) error
	// WriteSkill writes sk's columns.
	WriteSkill(ctx context.Context, sk *governance.Skill) error
	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
}

// Save stores proposal p as the next version of the project's skill of
// that name (creating the skill), unless a version already holds the same
// content and examples (Same); audited as the origin says (SavedAudit). A
// proposal to activate a version with findings stores it proposed
// ((*governance.Skill).NextVersion). Only the newest proposal waits; an
// activated version replaces the active one.
func Save(ctx context.Context, tx Tx, actor string, p *governance.SkillProposal) (*governance.SkillSaved, error) {
	now := tx.Now()
	sk, err := tx.SkillByName(ctx, p.ProjectID, p.Content.Name)
	created := false
	switch {
	case governance.ErrorCode(err) == governance.ENOTFOUND:
		created = true
		sk = &governance.Skill{ProjectID: p.ProjectID, Name: p.Content.Name, Category: p.Category, Status: governance.SkillProposed,
			StatusAt: now, CreatedAt: now}
		if err := tx.CreateSkill(ctx, sk); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		versions, err := tx.Versions(ctx, sk.ID, 0)
		if err != nil {
			return nil, err
		}
		if v := Same(versions, p); v != nil {
			return &governance.SkillSaved{Skill: sk, Version: v.Version, Unchanged: true}, nil
		}
	}
	if p.Category != "" {
		sk.Category = p.Category
	}
	status := sk.NextVersion(p, now)
	waiting := []governance.SkillVersionStatus{governance.VersionProposed}
	if status == governance.VersionActive {
		waiting = append(waiting, governance.VersionActive)
	}
	if err := tx.Supersede(ctx, sk.ID, waiting...); err != nil {
		return nil, err
	}
	row := Encode(sk.ID, sk.Latest, status, actor, p)
	row.CreatedAt = now
	if status == governance.VersionActive {
		row.DecidedBy, row.DecidedAt = actor, &now
	}
	if err := tx.InsertVersion(ctx, row, p.Content.Files, p.Evidence); err != nil {
		return nil, err
	}
	if err := tx.WriteSkill(ctx, sk); err != nil {
		return nil, err
	}
	if err := tx.AppendAudit(ctx, SavedAudit(actor, sk, p, status)); err != nil {
		return nil, err
	}
	return &governance.SkillSaved{Skill: sk, Version: sk.Latest, Created: created, Activated: status == governance.VersionActive}, nil
}

// Decide applies a reviewer's decision on skill skillID (the lifecycle,
// (*governance.Skill).Decide, says whether its status allows it) and
// audits it (DecisionAudit).
func Decide(ctx context.Context, tx Tx, actor string, skillID int64, d governance.SkillDecision) (*governance.Skill, error) {
	sk, err := tx.SkillByID(ctx, skillID)
	if err != nil {
		return nil, err
	}
	var pending *governance.SkillVersion
	if want := cmp.Or(d.Version, sk.Pending); want > 0 && (d.Action == governance.SkillApprove || d.Action == governance.SkillReject) {
		vs, err := tx.Versions(ctx, sk.ID, want)
		if err != nil {
			return nil, err
		}
		if len(vs) == 1 {
			pending = vs[0]
		}
	}
	n, status, err := sk.Decide(d, pending, tx.Now())
	if err != nil {
		return nil, err
	}
	if status == governance.VersionActive {
		if err := tx.Supersede(ctx, sk.ID, governance.VersionActive); err != nil {
			return nil, err
		}
	}
	if n > 0 {
		if err := tx.DecideVersion(ctx, sk.ID, n, status, actor); err != nil {
			return nil, err
		}
	}
	if err := tx.WriteSkill(ctx, sk); err != nil {
		return nil, err
	}
	if err := tx.AppendAudit(ctx, DecisionAudit(actor, sk, d, n)); err != nil {
		return nil, err
	}
	return sk, nil
}
