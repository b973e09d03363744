package storetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// skillsLeft fails when any of texts is still in a stored skill of the
// project (a version's SKILL.md, fields or files, the skill's row), or in
// the details or reasons of a skill's audit rows.
func skillsLeft(t *testing.T, s Store, projectID int64, texts ...string) {
	t.Helper()
	ctx := context.Background()
	st := SkillStore(s)
	list, _, err := st.FindSkills(ctx, governance.SkillFilter{ProjectID: projectID})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, sk := range list {
		held = append(held, sk.Name+" "+sk.Description)
		vs, err := st.FindSkillVersions(ctx, sk.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			held = append(held, v.Content.SkillMD, v.Content.Description, v.Reason)
			for _, m := range v.Content.Metadata {
				held = append(held, m)
			}
			for _, f := range v.Content.Files {
				held = append(held, string(f.Content))
			}
			for _, f := range v.Findings {
				held = append(held, f.Excerpt)
			}
		}
	}
	rows, _, err := s.FindAudit(ctx, governance.AuditFilter{ObjectType: "skill"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rows {
		held = append(held, a.Details, a.Reason)
	}
	for _, text := range texts {
		for _, h := range held {
			if strings.Contains(h, text) {
				t.Errorf("a skill still holds %q: %q", text, h)
				break
			}
		}
	}
}

// TestForgetSkills: a forget leaves no copy in the skills drafted from
// what it forgets. A subject's forget deletes a draft nobody activated
// (drafted from its sessions and another's); a skill a reviewer activated
// and edited stays, its drafted version redacted and marked, the lines of
// the edit repeating it replaced, the link to the subject's session gone;
// reasons given on both are redacted, audit details never named the
// draft. A rule forgotten with its events takes the draft resting on
// them, not another. The preview lists what the forget does.
func TestForgetSkills(t *testing.T, open Opener) {
	ctx := context.Background()
	draft := func(name, secret string, sessions ...governance.SkillEvidence) *governance.SkillProposal {
		ids := make([]string, len(sessions))
		for i, e := range sessions {
			ids[i] = e.SessionID
		}
		p := &governance.Procedure{Topic: "publish " + secret, Explicit: true, Signature: "steps:" + name,
			Steps: []governance.ProcedureStep{{Tool: "step", Command: "run make " + secret}, {Tool: "step", Command: "check the " + secret + " page"}}}
		return &governance.SkillProposal{Content: governance.DraftSkill(name, p, ids, nil), Origin: governance.OriginEvidence,
			Signature: p.Signature, Evidence: sessions, Reason: "Drafted from a user saying how this task is done."}
	}
	t.Run("Subject", func(t *testing.T) {
		s := open(t)
		st := SkillStore(s)
		p := MustCreateProject(t, s, "dev")
		events := []*governance.Event{Ev("a-1", "sess-a1", 1, governance.RoleUser, "this is how we publish quokka"),
			Ev("b-1", "sess-b1", 1, governance.RoleUser, "publish it"), Ev("c-1", "sess-c1", 1, governance.RoleUser, "deploy it")}
		events[0].SubjectID, events[1].SubjectID, events[2].SubjectID = "dev-a", "dev-b", "dev-a"
		if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
			t.Fatal(err)
		}
		// A draft from dev-a's session and dev-b's: nobody activated it.
		d := draft("publish-quokka", "quokka", governance.SkillEvidence{SessionID: "sess-a1", SubjectID: "dev-a"},
			governance.SkillEvidence{SessionID: "sess-b1", SubjectID: "dev-b"})
		d.ProjectID = p.ID
		gone, err := st.SaveSkill(ctx, "heartbeat", d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.DecideSkill(ctx, "rita", gone.Skill.ID, governance.SkillDecision{Action: governance.SkillReject,
			Reason: "quokka is not how we publish"}); err != nil {
			t.Fatal(err)
		}
		// A draft from dev-a's other session, activated and then edited.
		k := draft("deploy-wombat", "wombat", governance.SkillEvidence{SessionID: "sess-c1", SubjectID: "dev-a"})
		k.ProjectID = p.ID
		kept, err := st.SaveSkill(ctx, "heartbeat", k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.DecideSkill(ctx, "rita", kept.Skill.ID, governance.SkillDecision{Action: governance.SkillApprove,
			Reason: "wombat works"}); err != nil {
			t.Fatal(err)
		}
		edit := strings.Replace(k.Content.SkillMD, "## Verification", "Ask the on-call reviewer first.\n\n## Verification", 1)
		c, problems := governance.ParseSkillFolder(governance.SkillFolder{Name: "deploy-wombat", Files: []governance.SkillFile{
			{Path: governance.SkillFileName, Content: []byte(edit)}}})
		if problems != nil {
			t.Fatal(problems)
		}
		if _, err := st.SaveSkill(ctx, "rita", &governance.SkillProposal{ProjectID: p.ID, Content: *c, Origin: governance.OriginReviewer,
			Reason: "edited the wombat steps"}); err != nil {
			t.Fatal(err)
		}
		other := SkillContent(t, "cut-release", "Cut a release.", "\n1. make tag\n")
		if _, err := st.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: p.ID, Content: other, Origin: governance.OriginImport}); err != nil {
			t.Fatal(err)
		}

		preview, err := s.PreviewForgetSubject(ctx, p.ID, "dev-a")
		if err != nil {
			t.Fatal(err)
		}
		loader, ok := s.(interface {
			LoadConsolidateInput(ctx context.Context, p *governance.Project, idle time.Duration) (*governance.ConsolidateInput, error)
		})
		if !ok {
			t.Fatalf("%T does not load a beat's input", s)
		}
		generation := func() int64 {
			t.Helper()
			in, err := loader.LoadConsolidateInput(ctx, p, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return in.ForgetGeneration
		}
		before := generation()
		rep, err := s.ForgetSubject(ctx, "admin", p.ID, "dev-a")
		if err != nil {
			t.Fatal(err)
		}
		// A beat that read the subject's sessions before the forget writes
		// neither their procedures nor a draft from them.
		procs := []governance.Procedure{{SessionID: "sess-a1", SubjectID: "dev-a", Signature: "steps:late",
			At: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), Steps: []governance.ProcedureStep{{Key: "a", Seq: 1}}}}
		if err := st.RecordProcedures(ctx, p.ID, &before, procs); !errors.Is(err, governance.ErrForgotMeanwhile) {
			t.Fatalf("procedures read before the forget: %v", err)
		}
		late := draft("publish-quokka", "quokka", governance.SkillEvidence{SessionID: "sess-a1", SubjectID: "dev-a"})
		late.ProjectID, late.ForgetGeneration = p.ID, &before
		if _, err := st.SaveSkill(ctx, "heartbeat", late); !errors.Is(err, governance.ErrForgotMeanwhile) {
			t.Fatalf("a draft read before the forget: %v", err)
		}
		if got, _ := st.FindProcedureSessions(ctx, p.ID, "steps:late"); len(got) != 0 {
			t.Fatalf("procedures written after the forget: %+v", got)
		}
		// Read after it, the same write goes through.
		after := generation()
		if err := st.RecordProcedures(ctx, p.ID, &after, []governance.Procedure{{SessionID: "sess-b1", SubjectID: "dev-b",
			Signature: "steps:late", At: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC),
			Steps: []governance.ProcedureStep{{Key: "a", Seq: 1}}}}); err != nil {
			t.Fatal(err)
		}
		if len(preview.Skills) != 2 || !preview.Skills[0].Delete || preview.Skills[1].Delete {
			t.Fatalf("preview skills = %+v", preview.Skills)
		}
		if !slices.Equal(rep.SkillsDeleted, []int64{gone.Skill.ID}) || !slices.Equal(rep.SkillsRedacted, []int64{kept.Skill.ID}) {
			t.Fatalf("report = %+v", rep)
		}
		if _, err := st.FindSkill(ctx, p.ID, "publish-quokka"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("the draft is still there: %v", err)
		}
		sk, err := st.FindSkill(ctx, p.ID, "deploy-wombat")
		if err != nil || sk.Status != governance.SkillActive {
			t.Fatalf("kept skill = %+v, %v", sk, err)
		}
		vs, err := st.FindSkillVersions(ctx, sk.ID)
		if err != nil || len(vs) != 2 {
			t.Fatalf("versions = %+v, %v", vs, err)
		}
		if !vs[1].Redacted || vs[1].Content.Description != governance.RedactedText || vs[0].Redacted {
			t.Fatalf("versions after the forget: v1 %+v, v2 redacted %v", vs[1], vs[0].Redacted)
		}
		if !strings.Contains(vs[0].Content.SkillMD, "Ask the on-call reviewer first.") ||
			!strings.Contains(vs[0].Content.SkillMD, "name: deploy-wombat") {
			t.Fatalf("the edit lost its own text:\n%s", vs[0].Content.SkillMD)
		}
		if _, problems := governance.ParseSkillFolder(governance.SkillFolder{Name: sk.Name, Files: []governance.SkillFile{
			{Path: governance.SkillFileName, Content: []byte(vs[0].Content.SkillMD)}}}); problems != nil {
			t.Fatalf("the edit is no longer a valid folder: %v\n%s", problems, vs[0].Content.SkillMD)
		}
		if ev, _ := st.FindSkillEvidence(ctx, sk.ID); len(ev) != 0 {
			t.Fatalf("evidence after the forget = %+v", ev)
		}
		if rest, _ := st.FindSkill(ctx, p.ID, "cut-release"); rest == nil || rest.Description != "Cut a release." {
			t.Fatalf("an unrelated skill changed: %+v", rest)
		}
		skillsLeft(t, s, p.ID, "quokka", "publish wombat", "make wombat", "wombat page", "wombat steps", "wombat works", "sess-a1", "sess-c1")
	})
	t.Run("RuleWithEvents", func(t *testing.T) {
		s := OpenMemory(t, open)
		st := SkillStore(s)
		f := LoadMemoryFixture(t, s, "travel")
		evs, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &f.Project.ID, SessionID: ptr("s1")})
		if err != nil {
			t.Fatal(err)
		}
		seq := map[string]int64{}
		for _, e := range evs {
			seq[e.ID] = e.Seq
		}
		on := draft("plan-numbat", "numbat", governance.SkillEvidence{SessionID: "s1", SubjectID: evs[0].SubjectID, Seqs: []int64{seq["e2"]}})
		off := draft("plan-bilby", "bilby", governance.SkillEvidence{SessionID: "s1", SubjectID: evs[0].SubjectID, Seqs: []int64{seq["e1"]}})
		for _, d := range []*governance.SkillProposal{on, off} {
			d.ProjectID = f.Project.ID
			if _, err := st.SaveSkill(ctx, "heartbeat", d); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := s.ForgetRule(ctx, "rita", f.Rules[RuleFar], true)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.SkillsDeleted) != 1 {
			t.Fatalf("report = %+v", rep)
		}
		if _, err := st.FindSkill(ctx, f.Project.ID, "plan-numbat"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("the draft resting on the forgotten events is still there: %v", err)
		}
		if _, err := st.FindSkill(ctx, f.Project.ID, "plan-bilby"); err != nil {
			t.Fatalf("the other draft went: %v", err)
		}
		skillsLeft(t, s, f.Project.ID, "numbat")
	})
}
