// Package skillrows is the part of skill storage both stores share: how a
// version is laid out in its row (JSON columns) and read back with its
// files and evidence (read.go), which stored version a proposal repeats,
// the steps of a save and of a reviewer's decision over a store's Tx
// (write.go), and the audit rows of skill changes. Each store keeps its
// SQL.
package skillrows

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// Version is a skill_versions row.
type Version struct {
	SkillID   int64
	Version   int
	Status    string
	SkillMD   string
	Fields    string
	Digest    string
	Findings  string
	Examples  string
	Eval      string
	Origin    string
	Source    string
	Actor     string
	Reason    string
	DecidedBy string
	DecidedAt *time.Time
	CreatedAt time.Time
	Redacted  bool
}

// fields are the front matter a version's row keeps beside its SKILL.md.
type fields struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	AllowedTools  []string          `json:"allowed_tools,omitempty"`
}

// Encode lays a proposal out as the row of version n (files and evidence
// have rows of their own).
func Encode(skillID int64, n int, status governance.SkillVersionStatus, actor string, p *governance.SkillProposal) Version {
	c := p.Content
	findings, _ := json.Marshal(nonNil(p.Findings))
	eval := ""
	if p.Eval != nil {
		b, _ := json.Marshal(p.Eval)
		eval = string(b)
	}
	return Version{SkillID: skillID, Version: n, Status: string(status), SkillMD: c.SkillMD, Fields: FieldsJSON(c), Digest: c.Digest(),
		Findings: string(findings), Examples: ExamplesJSON(p.Examples), Eval: eval, Origin: string(p.Origin), Source: p.Source,
		Actor: actor, Reason: p.Reason}
}

// Decode reads a row back (files are added by the caller).
func (r Version) Decode() *governance.SkillVersion {
	v := &governance.SkillVersion{SkillID: r.SkillID, Version: r.Version, Status: governance.SkillVersionStatus(r.Status),
		Digest: r.Digest, Examples: Examples(r.Examples), Origin: governance.SkillOrigin(r.Origin), Source: r.Source,
		Actor: r.Actor, Reason: r.Reason, DecidedBy: r.DecidedBy, DecidedAt: r.DecidedAt, CreatedAt: r.CreatedAt,
		Redacted: r.Redacted}
	var f fields
	_ = json.Unmarshal([]byte(r.Fields), &f)
	v.Content = governance.SkillContent{Name: f.Name, Description: f.Description, SkillMD: r.SkillMD, License: f.License,
		Compatibility: f.Compatibility, Metadata: f.Metadata, AllowedTools: f.AllowedTools}
	if _, body, ok := governance.SplitFrontMatter(r.SkillMD); ok {
		v.Content.Body = body
	}
	_ = json.Unmarshal([]byte(r.Findings), &v.Findings)
	if r.Eval != "" {
		v.Eval = &governance.SkillEval{}
		_ = json.Unmarshal([]byte(r.Eval), v.Eval)
	}
	return v
}

// Examples reads an examples column.
func Examples(s string) governance.SkillExamples {
	var e governance.SkillExamples
	_ = json.Unmarshal([]byte(s), &e)
	return e
}

// ExamplesJSON writes an examples column.
func ExamplesJSON(e governance.SkillExamples) string {
	b, _ := json.Marshal(e)
	return string(b)
}

// Same returns the stored version (versions newest first, with files) that
// already holds what p proposes — the same content and examples — or nil.
// A proposal that keeps the examples takes the newest version's first.
func Same(versions []*governance.SkillVersion, p *governance.SkillProposal) *governance.SkillVersion {
	if p.KeepExamples && p.Examples.Empty() && len(versions) > 0 {
		p.Examples = versions[0].Examples
		if p.Eval == nil {
			p.Eval = versions[0].Eval
		}
	}
	digest := p.Content.Digest()
	for _, v := range versions {
		if v.Digest == digest && slices.Equal(v.Examples.Should, p.Examples.Should) && slices.Equal(v.Examples.ShouldNot, p.Examples.ShouldNot) {
			return v
		}
	}
	return nil
}

// savedActions name the audit action of a stored version by its origin.
var savedActions = map[governance.SkillOrigin]string{
	governance.OriginImport:   "skill.imported",
	governance.OriginEvidence: "skill.drafted",
	governance.OriginReviewer: "skill.edited",
}

// SavedAudit is the audit row of a stored version: ids, the version, its
// origin and how many findings it has; never its content.
func SavedAudit(actor string, sk *governance.Skill, p *governance.SkillProposal, st governance.SkillVersionStatus) *governance.AuditEntry {
	action := savedActions[p.Origin]
	if action == "" {
		action = "skill.proposed"
	}
	d := map[string]any{"version": sk.Latest, "origin": string(p.Origin), "findings": len(p.Findings), "status": string(st)}
	nameIn(d, sk)
	if len(p.Evidence) > 0 {
		d["sessions"] = len(p.Evidence)
	}
	return &governance.AuditEntry{Actor: actor, Action: action, ObjectType: "skill", ObjectID: strconv.FormatInt(sk.ID, 10),
		ProjectID: sk.ProjectID, Reason: p.Reason, Details: details(d)}
}

// DecisionAudit is the audit row of a reviewer's decision on a skill.
func DecisionAudit(actor string, sk *governance.Skill, d governance.SkillDecision, version int) *governance.AuditEntry {
	det := map[string]any{"status": string(sk.Status)}
	nameIn(det, sk)
	if version > 0 {
		det["version"] = version
	}
	if d.Acknowledged {
		det["findings_acknowledged"] = true
	}
	return &governance.AuditEntry{Actor: actor, Action: "skill." + string(d.Action), ObjectType: "skill",
		ObjectID: strconv.FormatInt(sk.ID, 10), ProjectID: sk.ProjectID, Reason: d.Reason, Details: details(det)}
}

// nameIn names the skill in an audit row's details, unless the heartbeat
// drafted it (it has a signature): a draft's name is made of what its
// sessions said, and the audit, which a forget cannot rewrite, keeps no
// content.
func nameIn(d map[string]any, sk *governance.Skill) {
	if sk.Signature == "" {
		d["name"] = sk.Name
	}
}

// FieldsJSON is the fields column of a version's content.
func FieldsJSON(c governance.SkillContent) string {
	f, _ := json.Marshal(fields{Name: c.Name, Description: c.Description, License: c.License, Compatibility: c.Compatibility,
		Metadata: c.Metadata, AllowedTools: c.AllowedTools})
	return string(f)
}

func details(d map[string]any) string {
	b, _ := json.Marshal(d)
	return string(b)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// MaskedRow is the columns a masked version rewrites (governance.SkillMasked).
type MaskedRow struct {
	SkillMD, Fields, Digest, Findings string
}

// EncodeMasked is the rewrite of a masked version's row.
func EncodeMasked(m *governance.SkillMasked) MaskedRow {
	findings, _ := json.Marshal(nonNil(m.Findings))
	return MaskedRow{SkillMD: m.Content.SkillMD, Fields: FieldsJSON(m.Content), Digest: m.Content.Digest(), Findings: string(findings)}
}

// MaskedAudit is the audit row of a version whose credentials were masked
// after it was stored: the version and how many masks, never the text.
func MaskedAudit(actor string, sk *governance.Skill, m *governance.SkillMasked) *governance.AuditEntry {
	d := map[string]any{"version": m.Version, "masked": m.Masks}
	nameIn(d, sk)
	return &governance.AuditEntry{Actor: actor, Action: "skill.masked", ObjectType: "skill", ObjectID: strconv.FormatInt(sk.ID, 10),
		ProjectID: sk.ProjectID, Reason: "Credentials stored before the console masked them are masked now.", Details: details(d)}
}
