package storetest

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// SkillStore is what the suite exercises of a store's skills.
type SkillStore interface {
	SaveSkill(ctx context.Context, actor string, p *governance.SkillProposal) (*governance.SkillSaved, error)
	FindSkill(ctx context.Context, projectID int64, name string) (*governance.Skill, error)
	FindSkills(ctx context.Context, f governance.SkillFilter) ([]*governance.Skill, int, error)
	FindSkillVersions(ctx context.Context, skillID int64) ([]*governance.SkillVersion, error)
	FindSkillEvidence(ctx context.Context, skillID int64) ([]governance.SkillEvidence, error)
	DecideSkill(ctx context.Context, actor string, skillID int64, d governance.SkillDecision) (*governance.Skill, error)
	CountSkillUse(ctx context.Context, skillID int64) error
	SkillGeneration(ctx context.Context, projectID int64) (int64, error)
	RecordProcedures(ctx context.Context, projectID int64, gen *int64, ps []governance.Procedure) error
	FindProcedureSessions(ctx context.Context, projectID int64, signature string) ([]governance.SkillEvidence, error)
	MaskSkillVersions(ctx context.Context, actor string, masked []*governance.SkillMasked) (int, error)
	SkillsMaskedBy(ctx context.Context) (string, error)
	SetSkillsMaskedBy(ctx context.Context, gateVersion string) error
}

// SkillContent is a parsed skill folder for tests.
func SkillContent(tb testing.TB, name, description, body string, files ...governance.SkillFile) governance.SkillContent {
	tb.Helper()
	md := "---\nname: " + name + "\ndescription: " + strconv.Quote(description) + "\n---\n" + body
	c, problems := governance.ParseSkillFolder(governance.SkillFolder{Name: name,
		Files: append([]governance.SkillFile{{Path: governance.SkillFileName, Content: []byte(md)}}, files...)})
	if problems != nil {
		tb.Fatalf("skill %s: %v", name, problems)
	}
	return *c
}

// TestSkills: versions are stored byte for byte with their files; a
// repeated proposal writes nothing; the lifecycle holds in the store (a
// version with findings is never activated by an import, only by a
// reviewer who saw them); usage does not move the generation; every
// change is audited; a subject's forget takes its procedures and the
// draft learned from its sessions; a project's deletion its skills.
func TestSkills(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	st := SkillStore(s)
	p := MustCreateProject(t, s, "dev")
	binary := []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}
	v1 := SkillContent(t, "deploy-staging", "Deploy the app to staging.", "\n1. make deploy\n",
		governance.SkillFile{Path: "scripts/check.sh", Content: []byte("#!/bin/sh\nmake smoke\n")},
		governance.SkillFile{Path: "assets/logo.png", Content: binary})
	saved, err := st.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: p.ID, Content: v1, Origin: governance.OriginImport,
		Source: "/home/dev/.claude/skills/deploy-staging", Examples: governance.SkillExamples{Should: []string{"deploy to staging"}},
		Findings: []governance.SkillFinding{{File: "scripts/check.sh", Finding: governance.Finding{Category: governance.SkillScript}}}})
	if err != nil {
		t.Fatal(err)
	}
	sk := saved.Skill
	if !saved.Created || saved.Version != 1 || sk.Status != governance.SkillProposed || sk.Pending != 1 || sk.Version != 0 || sk.Findings != 1 {
		t.Fatalf("saved = %+v, skill %+v", saved, sk)
	}
	gen0, err := st.SkillGeneration(ctx, p.ID)
	if err != nil || gen0 == 0 {
		t.Fatalf("generation = %d, %v", gen0, err)
	}
	vs, err := st.FindSkillVersions(ctx, sk.ID)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions = %v, %v", vs, err)
	}
	got := vs[0]
	if got.Content.SkillMD != v1.SkillMD || got.Content.Description != "Deploy the app to staging." || got.Digest != v1.Digest() ||
		got.Status != governance.VersionProposed || got.Source != "/home/dev/.claude/skills/deploy-staging" || len(got.Findings) != 1 {
		t.Fatalf("version = %+v", got)
	}
	if f, ok := got.Content.File("assets/logo.png"); !ok || !bytes.Equal(f.Content, binary) {
		t.Fatalf("binary file = %v, %v", f, ok)
	}
	if again, err := st.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: p.ID, Content: v1, Origin: governance.OriginImport,
		KeepExamples: true}); err != nil || !again.Unchanged || again.Version != 1 {
		t.Fatalf("re-import = %+v, %v", again, err)
	}
	if g, _ := st.SkillGeneration(ctx, p.ID); g != gen0 {
		t.Fatalf("an unchanged import moved the generation %d → %d", gen0, g)
	}

	// Approving needs the findings acknowledged.
	if _, err := st.DecideSkill(ctx, "rita", sk.ID, governance.SkillDecision{Action: governance.SkillApprove}); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("approve without acknowledging findings: %v", err)
	}
	sk, err = st.DecideSkill(ctx, "rita", sk.ID, governance.SkillDecision{Action: governance.SkillApprove, Acknowledged: true, Reason: "script read"})
	if err != nil || sk.Status != governance.SkillActive || sk.Version != 1 || sk.Pending != 0 {
		t.Fatalf("approve = %+v, %v", sk, err)
	}
	if _, err := st.DecideSkill(ctx, "rita", sk.ID, governance.SkillDecision{Action: governance.SkillApprove}); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("approved twice: %v", err)
	}

	// A changed re-import waits; asking to activate it is refused while it has findings.
	v2 := SkillContent(t, "deploy-staging", "Deploy the app to staging and smoke-test it.", "\n1. make deploy\n2. make smoke\n")
	saved, err = st.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: p.ID, Content: v2, Origin: governance.OriginImport,
		KeepExamples: true, Activate: true, Findings: []governance.SkillFinding{{File: "SKILL.md", Finding: governance.Finding{Category: governance.SkillNetwork}}}})
	if err != nil || saved.Created || saved.Activated || saved.Version != 2 || saved.Skill.Version != 1 || saved.Skill.Pending != 2 ||
		saved.Skill.Description != "Deploy the app to staging." {
		t.Fatalf("changed import = %+v (%+v), %v", saved, saved.Skill, err)
	}
	vs, _ = st.FindSkillVersions(ctx, sk.ID)
	if len(vs) != 2 || !slices.Equal(vs[0].Examples.Should, []string{"deploy to staging"}) || vs[1].Status != governance.VersionActive {
		t.Fatalf("versions = %+v", vs)
	}
	if sk, err = st.DecideSkill(ctx, "rita", sk.ID, governance.SkillDecision{Action: governance.SkillReject, Reason: "calls home"}); err != nil ||
		sk.Status != governance.SkillActive || sk.Version != 1 || sk.Pending != 0 {
		t.Fatalf("reject = %+v, %v", sk, err)
	}
	// A clean one is activated at once when asked.
	v3 := SkillContent(t, "deploy-staging", "Deploy to staging, then smoke-test.", "\n1. make deploy smoke\n")
	saved, err = st.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: p.ID, Content: v3, Origin: governance.OriginImport, Activate: true})
	if err != nil || !saved.Activated || saved.Skill.Version != 3 || saved.Skill.Description != "Deploy to staging, then smoke-test." {
		t.Fatalf("clean activation = %+v, %v", saved, err)
	}
	vs, _ = st.FindSkillVersions(ctx, sk.ID)
	statuses := []governance.SkillVersionStatus{}
	for _, v := range vs {
		statuses = append(statuses, v.Status)
	}
	if want := []governance.SkillVersionStatus{governance.VersionActive, governance.VersionRejected, governance.VersionSuperseded}; !slices.Equal(statuses, want) {
		t.Fatalf("version statuses = %v, want %v", statuses, want)
	}

	// Usage, stale, archive, restore, pin.
	gen1, _ := st.SkillGeneration(ctx, p.ID)
	if err := st.CountSkillUse(ctx, sk.ID); err != nil {
		t.Fatal(err)
	}
	if sk, _ = st.FindSkill(ctx, p.ID, "deploy-staging"); sk.Uses != 1 || sk.LastUsedAt == nil {
		t.Fatalf("use not counted: %+v", sk)
	}
	if g, _ := st.SkillGeneration(ctx, p.ID); g != gen1 {
		t.Fatal("usage moved the generation")
	}
	for _, step := range []struct {
		action governance.SkillAction
		want   governance.SkillStatus
	}{{governance.SkillStaleA, governance.SkillStale}, {governance.SkillArchive, governance.SkillArchived},
		{governance.SkillRestore, governance.SkillActive}, {governance.SkillPin, governance.SkillActive}} {
		sk, err = st.DecideSkill(ctx, "rita", sk.ID, governance.SkillDecision{Action: step.action})
		if err != nil || sk.Status != step.want {
			t.Fatalf("%s = %+v, %v", step.action, sk, err)
		}
	}
	if !sk.Pinned {
		t.Fatal("not pinned")
	}
	if _, err := st.DecideSkill(ctx, "rita", sk.ID, governance.SkillDecision{Action: governance.SkillRestore}); governance.ErrorCode(err) != governance.ECONFLICT {
		t.Fatalf("restore of an active skill: %v", err)
	}
	if g, _ := st.SkillGeneration(ctx, p.ID); g <= gen1 {
		t.Fatal("a decision did not move the generation")
	}
	entries, _, err := s.FindAudit(ctx, governance.AuditFilter{ObjectType: "skill"})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]int{}
	for _, e := range entries {
		actions[e.Action]++
	}
	if actions["skill.imported"] != 3 || actions["skill.approve"] != 1 || actions["skill.reject"] != 1 || actions["skill.pin"] != 1 {
		t.Fatalf("audit actions = %v", actions)
	}

	// Lists.
	other := SkillContent(t, "cut-release", "Cut a release: bump, changelog, tag.", "\n1. bump\n")
	if _, err := st.SaveSkill(ctx, "heartbeat", &governance.SkillProposal{ProjectID: p.ID, Content: other, Origin: governance.OriginEvidence,
		Signature: "steps:abc", Evidence: []governance.SkillEvidence{
			{SessionID: "s1", SubjectID: "dev-1", Seqs: []int64{3, 4}, Check: "`make tag`"},
			{SessionID: "s2", SubjectID: "dev-2", Seqs: []int64{9}}}}); err != nil {
		t.Fatal(err)
	}
	list, total, err := st.FindSkills(ctx, governance.SkillFilter{ProjectID: p.ID})
	if err != nil || total != 2 || len(list) != 2 || list[0].Name != "cut-release" || list[1].Name != "deploy-staging" {
		t.Fatalf("list = %v (%d), %v", list, total, err)
	}
	if list[0].Signature != "steps:abc" {
		t.Fatalf("signature = %q", list[0].Signature)
	}
	if bySig, n, _ := st.FindSkills(ctx, governance.SkillFilter{ProjectID: p.ID, Signature: "steps:abc"}); n != 1 || bySig[0].Name != "cut-release" {
		t.Fatalf("by signature = %v", bySig)
	}
	list, total, _ = st.FindSkills(ctx, governance.SkillFilter{ProjectID: p.ID, Statuses: []governance.SkillStatus{governance.SkillActive}, Query: "STAGING"})
	if total != 1 || list[0].Name != "deploy-staging" {
		t.Fatalf("filtered list = %v (%d)", list, total)
	}
	if _, err := st.FindSkill(ctx, p.ID, "nope"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("unknown skill: %v", err)
	}

	// Procedures and evidence; a subject's forget takes them.
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	procs := []governance.Procedure{
		{SessionID: "s1", SubjectID: "dev-1", Signature: "steps:abc", At: at, Steps: []governance.ProcedureStep{{Key: "a", Seq: 3}, {Key: "b", Seq: 4}}},
		{SessionID: "s2", SubjectID: "dev-2", Signature: "steps:abc", At: at.Add(time.Hour), Steps: []governance.ProcedureStep{{Key: "a", Seq: 9}}},
	}
	if err := st.RecordProcedures(ctx, p.ID, nil, procs); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordProcedures(ctx, p.ID, nil, procs[:1]); err != nil {
		t.Fatal(err)
	}
	sessions, err := st.FindProcedureSessions(ctx, p.ID, "steps:abc")
	if err != nil || len(sessions) != 2 || sessions[0].SessionID != "s1" || !slices.Equal(sessions[0].Seqs, []int64{3, 4}) {
		t.Fatalf("procedure sessions = %+v, %v", sessions, err)
	}
	release, _ := st.FindSkill(ctx, p.ID, "cut-release")
	if ev, err := st.FindSkillEvidence(ctx, release.ID); err != nil || len(ev) != 2 || ev[0].Check != "`make tag`" {
		t.Fatalf("evidence = %+v, %v", ev, err)
	}
	ev := Ev("s1-1", "s1", 1, governance.RoleUser, "release it")
	ev.SubjectID = "dev-1"
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "dev-1"); err != nil {
		t.Fatal(err)
	}
	// The draft rested on dev-1's session too: it goes (TestForgetSkills).
	if _, err := st.FindSkill(ctx, p.ID, release.Name); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("the draft after the forget: %v", err)
	}
	if ev, _ := st.FindSkillEvidence(ctx, release.ID); len(ev) != 0 {
		t.Fatalf("evidence after the forget = %+v", ev)
	}
	if sessions, _ := st.FindProcedureSessions(ctx, p.ID, "steps:abc"); len(sessions) != 1 || sessions[0].SubjectID != "dev-2" {
		t.Fatalf("procedures after the forget = %+v", sessions)
	}

	if _, err := s.DeleteProject(ctx, "admin", p.ID); err != nil {
		t.Fatal(err)
	}
	if list, _, err := st.FindSkills(ctx, governance.SkillFilter{ProjectID: p.ID}); err != nil || len(list) != 0 {
		t.Fatalf("skills after the project's deletion = %v, %v", list, err)
	}
}

// TestMaskSkillVersions: a version stored with a credential (as versions
// were before the console masked them) is rewritten masked — SKILL.md,
// fields, files, digest, findings, the skill's description — with a
// skill.masked audit row; a version whose text changed since it was read
// is left; a proposal's masking does not touch the active version the
// skill shows.
func TestMaskSkillVersions(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	st := SkillStore(s)
	p := MustCreateProject(t, s, "dev")
	const key = "ghp_36C7e42F292c6912E7710c838347Ae178B4c"
	c := SkillContent(t, "deploy-staging", "Deploy to staging with the token "+key+".", "\n1. make deploy\n",
		governance.SkillFile{Path: "scripts/deploy.sh", Content: []byte("#!/bin/sh\nGITHUB_TOKEN=" + key + " make deploy\n")})
	if _, err := st.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: p.ID, Content: c, Origin: governance.OriginImport, Activate: true}); err != nil {
		t.Fatal(err)
	}
	sk, err := st.FindSkill(ctx, p.ID, "deploy-staging")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := st.SkillGeneration(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := st.FindSkillVersions(ctx, sk.ID)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions = %d, %v", len(vs), err)
	}
	m := governance.MaskStoredVersion(vs[0], gate.Scan)
	if m == nil {
		t.Fatal("nothing to mask in a version holding a token")
	}
	stale := *m
	stale.Old = "another text"
	if n, err := st.MaskSkillVersions(ctx, "system", []*governance.SkillMasked{&stale}); err != nil || n != 0 {
		t.Fatalf("a version whose text changed: %d rewritten, %v", n, err)
	}
	if n, err := st.MaskSkillVersions(ctx, "system", []*governance.SkillMasked{m}); err != nil || n != 1 {
		t.Fatalf("masked %d, %v", n, err)
	}
	after, err := st.FindSkill(ctx, p.ID, "deploy-staging")
	if err != nil {
		t.Fatal(err)
	}
	vs, err = st.FindSkillVersions(ctx, sk.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := vs[0]
	text := after.Description + v.Content.SkillMD + v.Content.Description
	for _, f := range v.Content.Files {
		text += string(f.Content)
	}
	if bytes.Contains([]byte(text), []byte(key)) || v.Digest != v.Content.Digest() || len(v.Findings) != len(m.Findings) ||
		after.Findings != len(m.Findings) || after.Status != governance.SkillActive {
		t.Fatalf("after the mask: skill %+v, version %+v", after, v)
	}
	rows, _, err := s.FindAudit(ctx, governance.AuditFilter{ObjectType: "skill", ObjectID: strconv.FormatInt(sk.ID, 10), Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].Action != "skill.masked" || bytes.Contains([]byte(rows[0].Details+rows[0].Reason), []byte(key)) {
		t.Fatalf("audit = %+v, %v", rows, err)
	}
	if now, err := st.SkillGeneration(ctx, p.ID); err != nil || now <= gen {
		t.Errorf("generation %d (was %d), %v: agents' catalogs would keep the old description", now, gen, err)
	}
	// The mark of the gate that masked every version: none on a new
	// store, then the last one set.
	if by, err := st.SkillsMaskedBy(ctx); err != nil || by != "" {
		t.Fatalf("a new store is masked by %q, %v", by, err)
	}
	for _, v := range []string{"1-aaaa", gate.Version()} {
		if err := st.SetSkillsMaskedBy(ctx, v); err != nil {
			t.Fatal(err)
		}
		if by, err := st.SkillsMaskedBy(ctx); err != nil || by != v {
			t.Fatalf("masked by %q, %v; want %q", by, err, v)
		}
	}
}
