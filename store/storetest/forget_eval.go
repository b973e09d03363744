package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// TestForgetWithholdsEvalReads: a subject forget reaches what eval runs
// that read the project live (fixtures.use_live_project) or copied its
// events (fixtures.copy_events) stored of the subject's words: their
// results lose their details (and a failure its reason), their summaries
// the rule texts of the compliance table, and a forgotten rule's wording
// quoted in any result or summary is replaced. A run of a suite that reads
// only another project keeps the rest of its results.
func TestForgetWithholdsEvalReads(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	other := ImportRecords(t, s, "elsewhere")
	// The subject's sentence and its rule, as a case would quote them.
	const said = "上海迪士尼怎么排"
	ruleText := FixtureRuleTexts[RuleOther]
	suite := func(name, fixtures, project string) *evals.SuiteRow {
		t.Helper()
		body := "name: " + name + "\nproject: " + project + "\nsubject: family-2\nfixtures: " + fixtures + `
cases:
  - {id: c1, kind: recall, task: plan the day, include: [午睡]}
`
		if fixtures == "copy" {
			body = "name: " + name + "\nproject: copy\nfixtures: {copy_events: {copy: " + project + "}}\n" + `cases:
  - {id: c1, kind: recall, task: plan the day, include: [午睡]}
`
		}
		if _, err := evals.ParseSuite(name+".yaml", []byte(body)); err != nil {
			t.Fatalf("suite %s: %v", name, err)
		}
		row := &evals.SuiteRow{Name: name, Origin: evals.OriginUploaded, Body: body}
		if err := s.UpsertEvalSuite(ctx, row, "tester"); err != nil {
			t.Fatal(err)
		}
		return row
	}
	detail, _ := json.Marshal(map[string]any{"package": []map[string]string{{"text": said}}, "output": "I planned: " + said})
	summary, _ := json.Marshal(map[string]any{"suite_sha256": "x", "metrics": map[string]any{"total": 2,
		"compliance": []map[string]any{{"name": ruleText, "method": "judge"}}}})
	type ran struct {
		run   *evals.RunRow
		reads bool
	}
	var runs []ran
	for _, tc := range []struct {
		suite *evals.SuiteRow
		reads bool
	}{
		{suite("live", "{use_live_project: true}", f.Project.Slug), true},
		{suite("copied", "copy", f.Project.Slug), true},
		{suite("unrelated", "{use_live_project: true}", other.Slug), false},
	} {
		run := &evals.RunRow{SuiteID: tc.suite.ID, Total: 2, CreatedBy: "alice", Reads: evals.LiveProjectsOf(tc.suite.Body)}
		if err := s.CreateEvalRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ClaimEvalRun(ctx); err != nil {
			t.Fatal(err)
		}
		for _, r := range []*evals.ResultRow{
			{RunID: run.ID, CaseID: "c1", Kind: "recall", Status: "passed", Reason: "all 1 expected memories recalled", Detail: string(detail)},
			{RunID: run.ID, CaseID: "c2", Kind: "recall", Status: "failed", Reason: "recalled " + ruleText + " instead of " + said, Detail: string(detail)},
		} {
			if err := s.SaveEvalResult(ctx, r, 0, 0); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := s.FinishEvalRun(ctx, run.ID, evals.RunDone, string(summary), ""); err != nil || !ok {
			t.Fatalf("finish: %v, %v", ok, err)
		}
		runs = append(runs, ran{run, tc.reads})
	}
	if _, err := s.ForgetSubject(ctx, "admin", f.Project.ID, "family-2"); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		results, err := s.FindEvalResults(ctx, r.run.ID)
		if err != nil || len(results) != 2 {
			t.Fatalf("results = %v, %v", results, err)
		}
		got, err := s.FindEvalRunByID(ctx, r.run.ID)
		if err != nil {
			t.Fatal(err)
		}
		all := got.Summary
		for _, res := range results {
			all += res.Detail + res.Reason
		}
		if strings.Contains(all, ruleText) {
			t.Errorf("run %d still quotes the forgotten rule: %s", r.run.ID, all)
		}
		if !r.reads {
			if !strings.Contains(all, said) || !strings.Contains(got.Summary, governance.RedactedText) {
				t.Errorf("run %d read another project and lost its details: %s", r.run.ID, all)
			}
			continue
		}
		if strings.Contains(all, said) || strings.Contains(all, ruleText) {
			t.Errorf("run %d read the project; after the forget it still holds the subject's words: %s", r.run.ID, all)
		}
		if results[0].Reason != "all 1 expected memories recalled" || results[0].Status != "passed" || results[1].Status != "failed" {
			t.Errorf("run %d: statuses and counting reasons must stay: %+v %+v", r.run.ID, results[0], results[1])
		}
		if m := evals.ParseRunSummary(got.Summary).Metrics; m == nil || m.Total != 2 {
			t.Errorf("run %d: the summary's counts went: %s", r.run.ID, got.Summary)
		}
	}
}

// TestForgetSubjectLeavesNoTie: after a subject forget no audit row names
// the subject's id beside its keyed reference: an export of the subject
// names it by the reference (AuditEntry.Subject), an export row written
// in plain text before is rewritten by the forget's re-chain, and the
// forget's own rows name "self" when the one who asked is named like the
// subject (a member forgetting everything about themselves). The chain
// still verifies.
func TestForgetSubjectLeavesNoTie(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	p := f.Project
	const subject = "family-2"
	if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "admin", Action: "project.export", ObjectType: "project",
		ObjectID: "1", ProjectID: p.ID, Details: `{"subject":"` + subject + `"}`}); err != nil { // as written before
		t.Fatal(err)
	}
	row := &governance.AuditEntry{Actor: "admin", Action: "project.export", ObjectType: "project", ObjectID: "1", ProjectID: p.ID,
		Details: `{"subject":null}`, Subject: subject}
	if err := s.AppendAudit(ctx, row); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(row.Details, subject) || !strings.Contains(row.Details, `"subject":"subject:`) {
		t.Fatalf("an export row names the subject %s", row.Details)
	}
	if _, err := s.ForgetSubject(ctx, subject, p.ID, subject); err != nil {
		t.Fatal(err)
	}
	rows, _, err := s.FindAudit(ctx, governance.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rows {
		if strings.Contains(a.Actor+a.ObjectID+a.Details+a.Reason, subject) {
			t.Errorf("audit row %d (%s by %s) still names %s: %s %s", a.ID, a.Action, a.Actor, subject, a.ObjectID, a.Details)
		}
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("verify after the forget: %+v, %v", v, err)
	}
}
