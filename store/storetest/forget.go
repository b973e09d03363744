package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// noCopyLeft fails when any of texts is in project p's export (every
// layer: events, episodes, rules with their versions, candidates), in a
// search of its events, or in the reasons of the audit log.
func noCopyLeft(t *testing.T, s MemoryStore, projectID int64, texts ...string) {
	t.Helper()
	ctx := context.Background()
	data, _ := ExportOf(t, s, projectID, "")
	rows, _, err := s.FindAudit(ctx, governance.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if strings.Contains(string(data), text) {
			t.Errorf("the project's export still holds %q", text)
		}
		for _, a := range rows {
			if strings.Contains(a.Reason, text) || strings.Contains(a.Details, text) {
				t.Errorf("audit row %d (%s) still holds %q", a.ID, a.Action, text)
			}
		}
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &projectID, Query: `"` + text + `"`})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 {
			t.Errorf("search still finds %q in event %s", text, hits[0].Event.ID)
		}
	}
}

// TestForgetRule: the preview shows exactly what goes; the rule, its
// versions, its candidates and evidence, the episode sentences quoting it
// and (asked) its source events lose their text; a suppression stops it
// being learned again; audit reasons on it are blanked and the audit row
// holds a hash; recall no longer offers it.
func TestForgetRule(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("WithEvents", func(t *testing.T) {
		s := OpenMemory(t, open)
		f := LoadMemoryFixture(t, s, "travel")
		p, lesson := f.Project, f.Rules[RuleFar]
		text := FixtureRuleTexts[RuleFar]
		if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "rita", Action: "rule.approve", ObjectType: "rule",
			ObjectID: strconv.FormatInt(lesson, 10), ProjectID: p.ID, Reason: "approved: " + text}); err != nil {
			t.Fatal(err)
		}
		preview, err := s.PreviewForgetRule(ctx, lesson, true)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s.ForgetRule(ctx, "family-chen", lesson, true)
		if err != nil {
			t.Fatal(err)
		}
		var pr, pc []int64
		for _, r := range preview.Rules {
			pr = append(pr, r.ID)
		}
		for _, c := range preview.Candidates {
			pc = append(pc, c.ID)
		}
		if !slices.Equal(pr, rep.RuleIDs) || !slices.Equal(pc, rep.CandidateIDs) || preview.EventCount != rep.Events {
			t.Fatalf("preview rules %v cands %v events %d; forgot %v %v %d", pr, pc, preview.EventCount, rep.RuleIDs, rep.CandidateIDs, rep.Events)
		}
		// The lesson (not the rule it superseded: only rules saying the
		// same go), its one candidate with two events, the episode quoting it.
		if !slices.Equal(rep.RuleIDs, []int64{lesson}) || len(rep.CandidateIDs) != 1 || rep.Events != 2 || len(rep.EpisodeIDs) != 1 ||
			rep.Suppressions == 0 || rep.Versions != 1 || !strings.HasPrefix(rep.ContentHash, "sha256:") || len(rep.AuditIDs) != 1 {
			t.Fatalf("report = %+v", rep)
		}
		r, err := s.FindRuleByID(ctx, lesson)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleForgotten || r.Text != governance.RedactedText {
			t.Fatalf("rule after forget = %s %q", r.Status, r.Text)
		}
		if vs, _ := s.FindRuleVersions(ctx, lesson); len(vs) != 1 || vs[0].Text != governance.RedactedText || vs[0].Reason != "" {
			t.Fatalf("versions keep their text: %+v", vs)
		}
		if chain, _ := s.FindRuleEvidence(ctx, lesson); len(chain) != 0 {
			t.Fatalf("evidence links remain: %d", len(chain))
		}
		for _, id := range []string{"e2", "e3"} {
			evs, _, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: ptr("s1")})
			for _, e := range evs {
				if e.ID == id && (!e.Redacted || e.Text != governance.RedactedText) {
					t.Errorf("event %s not redacted: %+v", id, e)
				}
			}
		}
		eps, _, _ := s.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID})
		for _, e := range eps {
			if e.SessionID == "s1" && (strings.Contains(e.Summary, "景点单独") || !strings.Contains(e.Summary, "路线检查通过")) {
				t.Errorf("the episode of s1 = %q: want the quoting sentence dropped, the others kept", e.Summary)
			}
		}
		noCopyLeft(t, s, p.ID, text, "故宫和环球影城排在同一天", "approved: ")
		// Unrelated memories stay.
		if r, _ := s.FindRuleByID(ctx, f.Rules[RuleNap]); r.Text != FixtureRuleTexts[RuleNap] {
			t.Errorf("an unrelated rule changed: %q", r.Text)
		}
		pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "景点 安排 一天", ProjectID: p.ID, SubjectID: "family-1"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(pkg.Text, "景点单独") {
			t.Errorf("recall still offers the forgotten rule:\n%s", pkg.Text)
		}
		v, err := s.VerifyAudit(ctx)
		if err != nil || !v.OK {
			t.Fatalf("verify = %+v, %v", v, err)
		}
		rows, _, _ := s.FindAudit(ctx, governance.AuditFilter{Action: "rule.forget"})
		if len(rows) != 1 || rows[0].Actor != "family-chen" || !strings.Contains(rows[0].Details, rep.ContentHash) {
			t.Fatalf("forget audit = %+v", rows)
		}
	})
	t.Run("WithoutEvents", func(t *testing.T) {
		s := OpenMemory(t, open)
		f := LoadMemoryFixture(t, s, "travel")
		rep, err := s.ForgetRule(ctx, "rita", f.Rules[RuleNap], false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != 0 {
			t.Fatalf("events redacted without being asked: %d", rep.Events)
		}
		evs, _, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &f.Project.ID})
		for _, e := range evs {
			if e.Redacted {
				t.Errorf("event %s redacted", e.ID)
			}
		}
	})
	t.Run("AlreadyForgotten", func(t *testing.T) {
		s := OpenMemory(t, open)
		f := LoadMemoryFixture(t, s, "travel")
		if _, err := s.ForgetRule(ctx, "rita", f.Rules[RuleForgotten], false); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("forgotten rule: %v, want ECONFLICT", err)
		}
		if _, err := s.ForgetRule(ctx, "rita", 99999, false); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("unknown rule: %v, want ENOTFOUND", err)
		}
		if _, err := s.ForgetRules(ctx, "rita", nil, false); governance.ErrorCode(err) != governance.EINVALID {
			t.Fatalf("no rule: %v, want EINVALID", err)
		}
		rep, err := s.ForgetRules(ctx, "rita", []int64{f.Rules[RuleNap], f.Rules[RuleCheck]}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.AuditIDs) != 2 || !slices.Contains(rep.RuleIDs, f.Rules[RuleNap]) || !slices.Contains(rep.RuleIDs, f.Rules[RuleCheck]) {
			t.Fatalf("report = %+v", rep)
		}
		if _, err := s.ForgetRule(ctx, "rita", f.Rules[RuleNap], false); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("forget twice: %v, want ECONFLICT", err)
		}
	})
}

// TestForgetSubject: everything about a subject goes (its rules,
// candidates, events, episodes, recall traces); the other subject's stay.
func TestForgetSubject(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	p := f.Project
	if _, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "上海迪士尼 午睡", ProjectID: p.ID, SubjectID: "family-2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "午睡", ProjectID: p.ID, SubjectID: "family-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PreviewForgetSubject(ctx, p.ID, " "); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("no subject: %v, want EINVALID", err)
	}
	preview, err := s.PreviewForgetSubject(ctx, p.ID, "family-2")
	if err != nil {
		t.Fatal(err)
	}
	if preview.EventCount != 2 || len(preview.Candidates) != 2 || len(preview.Rules) != 1 || preview.RecallTraces != 1 {
		t.Fatalf("preview: %d events, %d candidates, %d rules, %d traces", preview.EventCount, len(preview.Candidates), len(preview.Rules), preview.RecallTraces)
	}
	rep, err := s.ForgetSubject(ctx, "admin", p.ID, "family-2")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 2 || len(rep.CandidateIDs) != 2 || len(rep.RuleIDs) != 1 || rep.RecallTraces != 1 || len(rep.EpisodeIDs) != 1 {
		t.Fatalf("report = %+v", rep)
	}
	noCopyLeft(t, s, p.ID, "上海迪士尼", "13:00–15:00", "另一家人")
	sub := "family-2"
	if _, total, _ := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: p.ID, SubjectID: &sub}); total != 0 {
		t.Errorf("%d recall traces of the subject left", total)
	}
	if _, total, _ := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: p.ID}); total != 1 {
		t.Errorf("%d recall traces left, want family-1's", total)
	}
	if r, _ := s.FindRuleByID(ctx, f.Rules[RuleNap]); r.Text != FixtureRuleTexts[RuleNap] {
		t.Errorf("family-1's rule changed: %q", r.Text)
	}
	again, err := s.ForgetSubject(ctx, "admin", p.ID, "family-2")
	if err != nil || len(again.AuditIDs) != 0 {
		t.Fatalf("forgetting again: %+v, %v; want nothing done", again, err)
	}
}

// TestForgetSubjectWithoutEvents: a subject known only by a member's link
// and the recall traces an agent left for it (a new member whose agent
// asked for memory before anything was said) is still forgotten: the
// traces (which hold the tasks asked) and the membership go, and the
// forget is audited. A plan with no content counted as nothing to do, so
// both stayed, naming the subject in plain text.
func TestForgetSubjectWithoutEvents(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	p := f.Project
	const subject = "quiet-newcomer"
	if err := s.CreateAccount(ctx, &governance.Account{Username: "newcomer", PasswordHash: "h",
		Memberships: []governance.Membership{{ProjectID: p.ID, Role: governance.ProjectMember, SubjectID: subject}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall(ctx, "agent", governance.RecallRequest{Task: "where did I leave my passport scan", ProjectID: p.ID, SubjectID: subject}); err != nil {
		t.Fatal(err)
	}
	preview, err := s.PreviewForgetSubject(ctx, p.ID, subject)
	if err != nil || preview.RecallTraces != 1 {
		t.Fatalf("preview = %+v, %v; want its recall trace", preview, err)
	}
	rep, err := s.ForgetSubject(ctx, "admin", p.ID, subject)
	if err != nil || rep.RecallTraces != 1 || len(rep.AuditIDs) == 0 {
		t.Fatalf("forget = %+v, %v; want the trace deleted and the forget audited", rep, err)
	}
	sub := subject
	if _, total, _ := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: p.ID, SubjectID: &sub}); total != 0 {
		t.Errorf("%d recall traces of the subject left", total)
	}
	a, err := s.FindAccountByUsername(ctx, "newcomer")
	if err != nil {
		t.Fatalf("the member's account: %v; want it kept", err)
	}
	if len(a.Memberships) != 0 {
		t.Errorf("the account keeps its membership: %+v", a.Memberships)
	}
	again, err := s.ForgetSubject(ctx, "admin", p.ID, subject)
	if err != nil || len(again.AuditIDs) != 0 {
		t.Fatalf("forgetting again: %+v, %v; want nothing done", again, err)
	}
}

// TestForgetCandidate: a pending candidate goes with the unattached
// members of its merge group, and (asked) its events.
func TestForgetCandidate(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	p := f.Project
	cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	var pending *governance.Candidate
	for _, c := range cands {
		if c.Statement == "孩子每天 13:00–15:00 午睡。" {
			pending = c
		}
	}
	if pending == nil {
		t.Fatal("fixture candidate missing")
	}
	preview, err := s.PreviewForgetCandidate(ctx, pending.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.ForgetCandidate(ctx, "rita", pending.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(preview.Candidates) != 2 || len(rep.CandidateIDs) != 2 || rep.Events != 2 || preview.EventCount != 2 {
		t.Fatalf("preview %d candidates %d events; report %+v", len(preview.Candidates), preview.EventCount, rep)
	}
	noCopyLeft(t, s, p.ID, "孩子每天 13:00–15:00 午睡", "上海迪士尼安排一整天")
	if _, err := s.FindCandidateByID(ctx, pending.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Errorf("forgotten candidate: %v, want ENOTFOUND", err)
	}
	if _, err := s.ForgetCandidate(ctx, "rita", pending.ID, false); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Errorf("forget again: %v, want ENOTFOUND", err)
	}
}

// TestDeleteProject: the preview counts what goes; afterwards no row of
// the project is left, its audit reasons are blank, the audit row holds
// counts and a hash, and another project is untouched.
func TestDeleteProject(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	keep := LoadMemoryFixture(t, s, "keep")
	p := f.Project
	if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "rita", Action: "rule.approve", ObjectType: "rule",
		ObjectID: strconv.FormatInt(f.Rules[RuleNap], 10), ProjectID: p.ID, Reason: "午睡 is fine"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "午睡", ProjectID: p.ID, SubjectID: "family-1"}); err != nil {
		t.Fatal(err)
	}
	d, err := s.PreviewDeleteProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Events != 8 || d.Rules != 9 || d.Candidates != 4 || d.Episodes != 2 || d.RecallTraces != 1 || d.Suppressions != 1 || d.AuditReasons != 1 {
		t.Fatalf("preview = %+v", d)
	}
	got, err := s.DeleteProject(ctx, "admin", p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Events != d.Events || !strings.HasPrefix(got.ContentHash, "sha256:") {
		t.Fatalf("deleted = %+v", got)
	}
	if _, err := s.FindProjectByID(ctx, p.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("project after deletion: %v", err)
	}
	if rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID}); len(rules) != 0 {
		t.Errorf("%d rules left", len(rules))
	}
	if evs, _, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID}); len(evs) != 0 {
		t.Errorf("%d events left", len(evs))
	}
	rows, _, _ := s.FindAudit(ctx, governance.AuditFilter{})
	for _, a := range rows {
		if strings.Contains(a.Reason, "午睡") {
			t.Errorf("audit row %d keeps reason %q", a.ID, a.Reason)
		}
	}
	del, _, _ := s.FindAudit(ctx, governance.AuditFilter{Action: "project.delete"})
	if len(del) != 1 || !strings.Contains(del[0].Details, got.ContentHash) || strings.Contains(del[0].Details, "午睡") {
		t.Fatalf("deletion audit = %+v", del)
	}
	if v, err := s.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	// The other project keeps everything.
	if rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &keep.Project.ID}); len(rules) != 9 {
		t.Errorf("the other project has %d rules, want 9", len(rules))
	}
	if _, err := s.DeleteProject(ctx, "admin", p.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Errorf("delete again: %v, want ENOTFOUND", err)
	}
}

// TestDeleteScratchProjects: only flagged scratch projects with the
// run's prefix go.
func TestDeleteScratchProjects(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	scratch := &governance.Project{Slug: "eval-run7-a", Name: "scratch", Scratch: true}
	if err := s.CreateProject(ctx, scratch); err != nil {
		t.Fatal(err)
	}
	if _, err := s.IngestEvents(ctx, scratch.ID, []*governance.Event{Ev("e1", "s1", 1, governance.RoleUser, "scratch text")}); err != nil {
		t.Fatal(err)
	}
	other := &governance.Project{Slug: "eval-run8-a", Name: "other run", Scratch: true}
	if err := s.CreateProject(ctx, other); err != nil {
		t.Fatal(err)
	}
	named := MustCreateProject(t, s, "eval-run7-b") // not flagged
	if err := s.DeleteScratchProjects(ctx, ""); governance.ErrorCode(err) != governance.EINVALID {
		t.Fatalf("empty prefix: %v, want EINVALID", err)
	}
	if err := s.DeleteScratchProjects(ctx, "eval-run7-"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FindProjectByID(ctx, scratch.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Errorf("scratch project left: %v", err)
	}
	for _, p := range []*governance.Project{other, named} {
		if _, err := s.FindProjectByID(ctx, p.ID); err != nil {
			t.Errorf("project %s deleted: %v", p.Slug, err)
		}
	}
}

// TestForgetDuringBeat: a subject forget that commits while a beat is
// extracting wins: the beat must not write the forgotten text back as an
// episode, candidate or rule from the text it had read before (the beat
// sees the forget generation move and consolidates again).
func TestForgetDuringBeat(t *testing.T, open Opener) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s := OpenMemory(t, open)
	ctx := context.Background()
	p := MustCreateProject(t, s, "travel")
	secret := "we always travel with the blue suitcase"
	if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, secret)); err != nil {
		t.Fatal(err)
	}
	x := NewGatedExtractor()
	hb := NewHeartbeat(s, x, func() time.Time { return now })
	done := make(chan error, 1)
	go func() { _, err := hb.Beat(ctx, "test"); done <- err }()
	<-x.Started // the beat has read the text and is extracting
	if _, err := s.ForgetSubject(ctx, "test", p.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	close(x.Release)
	if err := <-done; err != nil {
		t.Fatalf("beat: %v", err)
	}
	noCopyLeft(t, s, p.ID, "suitcase")
	eps, _, _ := s.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: p.ID})
	cands, _, _ := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID})
	rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	for _, e := range eps {
		if strings.Contains(e.Summary, "suitcase") {
			t.Errorf("episode %d: %q", e.ID, e.Summary)
		}
	}
	for _, c := range cands {
		if strings.Contains(c.Statement, "suitcase") {
			t.Errorf("candidate %d: %q", c.ID, c.Statement)
		}
	}
	for _, r := range rules {
		if strings.Contains(r.Text, "suitcase") {
			t.Errorf("rule %d: %q", r.ID, r.Text)
		}
	}
}

// TestSuppressionScope: a suppression holds for the scope of what was
// forgotten: a member's preference for that member only, a project-wide
// rule for everyone.
func TestSuppressionScope(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	nap := d.Rule(t, "午睡")
	if nap.SubjectID != "family-chen" {
		t.Fatalf("nap rule scope = %q", nap.SubjectID)
	}
	chain, err := d.Store.FindRuleEvidence(ctx, nap.ID)
	if err != nil || len(chain) == 0 {
		t.Fatalf("evidence = %v, %v", chain, err)
	}
	said := chain[0].Events[0]
	if _, err := d.Store.ForgetRule(ctx, "family-chen", nap.ID, false); err != nil {
		t.Fatal(err)
	}
	lesson := d.Rule(t, "单独安排一天")
	if _, err := d.Store.ForgetRule(ctx, "rita", lesson.ID, false); err != nil {
		t.Fatal(err)
	}
	// The export lists the suppressions with their subjects.
	data, _ := ExportOf(t, d.Store, d.Travel.ID, "")
	scopes := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec governance.ExportRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type == "suppression" {
			scopes[rec.SubjectID]++
		}
	}
	if len(scopes) != 2 || scopes["family-chen"] == 0 || scopes[""] == 0 {
		t.Fatalf("suppressions by subject = %v, want the preference's for family-chen and the lesson's for everyone", scopes)
	}

	// Another family says the same words in a new session, and so does
	// the family that forgot them.
	at := said.OccurredAt.Add(30 * 24 * time.Hour)
	for _, subject := range []string{"family-wang", "family-chen"} {
		session := "again-" + subject
		if _, err := d.Store.IngestEvents(ctx, d.Travel.ID, []*governance.Event{
			{ID: session + "-1", SessionID: session, SubjectID: subject, Turn: 1, Role: governance.RoleUser, Text: said.Text, OccurredAt: at},
			{ID: session + "-end", SessionID: session, SubjectID: subject, Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Beat.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	bySubject := map[string]int{}
	cands, _, _ := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: d.Travel.ID})
	for _, c := range cands {
		if strings.HasPrefix(c.SessionID, "again-") {
			bySubject[c.SubjectID]++
		}
	}
	if bySubject["family-wang"] == 0 || bySubject["family-chen"] != 0 {
		t.Fatalf("candidates from the repeated words by subject = %v, want family-wang's only", bySubject)
	}
}

// TestForgetScrubsEvalResults: a stored eval result that quotes a
// forgotten rule loses the quote, also where JSON escaped it (quotes, <,
// >, &).
func TestForgetScrubsEvalResults(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	const text = `Keep pull requests < 400 lines & call them "small"`
	p := ImportRecords(t, s, "coding", governance.ExportRecord{Type: "rule", Rule: &governance.ExportRule{Ref: 1,
		Kind: governance.TypePreference, Text: text, PromotionReason: governance.ReasonExplicit, Status: governance.RuleActive,
		Version: 1, Trust: 0.8, Fingerprint: governance.Fingerprint(text), CreatedAt: FixtureAt, UpdatedAt: FixtureAt}})
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules = %v, %v", rules, err)
	}
	suite := MustCreateEvalSuite(t, s, "coding")
	run := &evalrow.RunRow{SuiteID: suite.ID, Total: 1, CreatedBy: "alice"}
	if err := s.CreateEvalRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimEvalRun(ctx); err != nil {
		t.Fatal(err)
	}
	detail, _ := json.Marshal(map[string]any{"package": []map[string]string{{"text": text}}, "output": "I kept it: " + text})
	if !strings.Contains(string(detail), `\u003c`) {
		t.Fatalf("detail %s is not escaped; the test needs a text JSON escapes", detail)
	}
	if err := s.SaveEvalResult(ctx, &evalrow.ResultRow{RunID: run.ID, CaseID: "c1", Kind: "recall", Status: "passed", Detail: string(detail)}, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetRule(ctx, "alice", rules[0].ID, false); err != nil {
		t.Fatal(err)
	}
	results, err := s.FindEvalResults(ctx, run.ID)
	if err != nil || len(results) != 1 {
		t.Fatalf("results = %v, %v", results, err)
	}
	if strings.Contains(results[0].Detail, "400 lines") || !strings.Contains(results[0].Detail, governance.RedactedText) {
		t.Fatalf("detail after the forget = %s", results[0].Detail)
	}
}
