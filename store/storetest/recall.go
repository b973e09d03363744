package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// ImportRecords imports an export of a new project slug holding recs.
func ImportRecords(tb testing.TB, s Store, slug string, recs ...governance.ExportRecord) *governance.Project {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	hdr := governance.ExportRecord{Type: "project", Format: governance.ExportFormat, Project: &governance.ExportProject{Slug: slug, Name: slug}}
	for _, r := range append([]governance.ExportRecord{hdr}, recs...) {
		if err := enc.Encode(r); err != nil {
			tb.Fatal(err)
		}
	}
	p, _, err := s.ImportExport(context.Background(), &buf, governance.ImportOptions{Actor: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// EpisodeRecord is an export record of an episode summary.
func EpisodeRecord(session, subject, summary string) governance.ExportRecord {
	return governance.ExportRecord{Type: "episode", Episode: &governance.ExportEpisode{SessionID: session, SubjectID: subject,
		Summary: summary, EventCount: 1, Extractor: "test", CreatedAt: FixtureAt, UpdatedAt: FixtureAt}}
}

// traceReason is the trace's reason for rule id ("" when not considered).
func traceReason(pkg *governance.RecallPackage, id int64) string {
	for _, e := range pkg.Trace.Considered {
		if e.ID == governance.RecallRuleID(id) {
			return e.Reason
		}
	}
	return ""
}

// TestRecall: the hard scope filter (project, subject), the reasons of the
// rules recall leaves out, the stored trace without memory text, use
// counts, episodes found by their words however old, raw events.
func TestRecall(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	other := LoadMemoryFixture(t, s, "expense")
	travel, rule := f.Project, f.Rules
	req := governance.RecallRequest{Task: "带五岁的女儿去上海玩两天，她一直想去迪士尼乐园。最终路线必须可以执行。",
		ProjectID: travel.ID, SubjectID: "family-1"}
	pkg, err := s.Recall(ctx, "token:1", req)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Scope", func(t *testing.T) {
		for _, ref := range []int64{RuleFar, RuleNap, RuleCheck} {
			if got := traceReason(pkg, rule[ref]); got != governance.TraceIncluded {
				t.Errorf("rule %d: reason %q, want included", ref, got)
			}
		}
		for ref, want := range map[int64]string{RulePaused: "paused", RuleExpired: "expired", RuleForgotten: "forgotten",
			RuleSuperseded: "superseded", RuleProposed: "", RuleOther: ""} {
			if got := traceReason(pkg, rule[ref]); got != want {
				t.Errorf("rule %d: reason %q, want %q", ref, got, want)
			}
		}
		for _, id := range other.Rules {
			if traceReason(pkg, id) != "" {
				t.Errorf("rule %d of another project considered", id)
			}
		}
		// The other project's active rules: all but the proposed,
		// superseded and forgotten ones.
		want := governance.ScopeCounts{RulesOtherProjects: 6, RulesOtherSubjects: 1, EpisodesOtherSubjects: 1}
		if got := pkg.Trace.ScopeFiltered; got != want {
			t.Errorf("scope filtered = %+v, want %+v", got, want)
		}
		if strings.Contains(pkg.Text, "13:00") || strings.Contains(pkg.Text, "另一家人") {
			t.Errorf("out-of-scope text in package:\n%s", pkg.Text)
		}
		for _, it := range pkg.Items {
			if it.Kind == governance.RecallKindRule && it.Source.RuleID == rule[RuleFar] &&
				(it.Source.EvidenceEvents != 2 || strings.Join(it.Source.SessionIDs, ",") != "s1") {
				t.Errorf("sources of the lesson = %+v, want 2 events of s1", it.Source)
			}
		}
	})
	t.Run("TraceStoredWithoutText", func(t *testing.T) {
		if pkg.Trace.ID == 0 {
			t.Fatal("trace id not set")
		}
		traces, total, err := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: travel.ID, RuleID: rule[RuleNap]})
		if err != nil || total != 1 || len(traces) != 1 {
			t.Fatalf("find traces = %+v, %d, %v", traces, total, err)
		}
		got := traces[0]
		if got.ID != pkg.Trace.ID || got.Actor != "token:1" || got.SubjectID != "family-1" || len(got.TaskHash) != 64 ||
			len(got.Trace.Considered) != len(pkg.Trace.Considered) || got.Used != pkg.Used {
			t.Errorf("stored trace = %+v", got)
		}
		body, _ := json.Marshal(got)
		for _, text := range []string{"午睡", "路线检查", "迪士尼", "上海"} {
			if strings.Contains(string(body), text) {
				t.Errorf("stored trace holds text %q: %s", text, body)
			}
		}
		if _, total, _ := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: other.Project.ID}); total != 0 {
			t.Errorf("%d traces in the other project", total)
		}
	})
	t.Run("UseCounted", func(t *testing.T) {
		r, err := s.FindRuleByID(ctx, rule[RuleNap])
		if err != nil {
			t.Fatal(err)
		}
		if r.UseCount != 1 || r.LastUsedAt == nil {
			t.Errorf("use count %d, last used %v", r.UseCount, r.LastUsedAt)
		}
		pr := req
		pr.Preview = true
		if _, err := s.Recall(ctx, "alice", pr); err != nil {
			t.Fatal(err)
		}
		if r, _ := s.FindRuleByID(ctx, rule[RuleNap]); r.UseCount != 1 {
			t.Errorf("preview counted a use: %d", r.UseCount)
		}
		if r, _ := s.FindRuleByID(ctx, rule[RulePaused]); r.UseCount != 0 {
			t.Errorf("excluded rule counted: %d", r.UseCount)
		}
		if _, total, _ := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: travel.ID}); total != 2 {
			t.Errorf("%d traces after a recall and a preview, want 2", total)
		}
	})
	t.Run("EpisodeText", func(t *testing.T) {
		recs := []governance.ExportRecord{EpisodeRecord("old", "", "Fixed the failing route check by giving the Terracotta Army its own day; 兵马俑单独一天。")}
		// Newer episodes fill the recent window, so only the words can find the first.
		for i := range 60 {
			recs = append(recs, EpisodeRecord(fmt.Sprintf("w%d", i), "family-1", "闲聊天气，没有安排。"))
		}
		xian := ImportRecords(t, s, "xian", recs...)
		ImportRecords(t, s, "xian-expense", EpisodeRecord("x1", "", "Terracotta Army invoice 兵马俑报销。"))
		for _, task := range []string{"Which route check failed for the Terracotta Army?", "西安的兵马俑怎么安排"} {
			pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: task, ProjectID: xian.ID, SubjectID: "family-1"})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, it := range pkg.Items {
				found = found || (it.Kind == governance.RecallKindEpisode && strings.Contains(it.Text, "兵马俑单独一天"))
				if strings.Contains(it.Text, "报销") {
					t.Errorf("%s: another project's episode recalled", task)
				}
			}
			if !found {
				t.Errorf("%s: the old episode not recalled: %+v", task, pkg.Trace.Considered)
			}
		}
	})
	t.Run("Events", func(t *testing.T) {
		if _, err := s.IngestEvents(ctx, travel.ID, []*governance.Event{
			{ID: "x1", SessionID: "s5", SubjectID: "family-1", Turn: 1, Role: governance.RoleUser, Text: "Disneyland tickets sell out on weekends.", OccurredAt: time.Now()},
			{ID: "x2", SessionID: "s6", SubjectID: "family-2", Turn: 1, Role: governance.RoleUser, Text: "Disneyland tickets for family two.", OccurredAt: time.Now()},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.IngestEvents(ctx, other.Project.ID, []*governance.Event{
			{ID: "x3", SessionID: "s5", SubjectID: "family-1", Turn: 1, Role: governance.RoleUser, Text: "Disneyland tickets of expense.", OccurredAt: time.Now()},
		}); err != nil {
			t.Fatal(err)
		}
		pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "Buy Disneyland tickets", ProjectID: travel.ID, SubjectID: "family-1", IncludeEvents: true})
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, it := range pkg.Items {
			if it.Kind == governance.RecallKindEvent {
				events = append(events, it.Source.EventID)
			}
		}
		if strings.Join(events, ",") != "x1" {
			t.Errorf("events recalled = %v, want [x1]", events)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := s.Recall(ctx, "t", governance.RecallRequest{ProjectID: travel.ID}); governance.ErrorCode(err) != governance.EINVALID {
			t.Errorf("no task: %v, want EINVALID", err)
		}
		if _, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "x", ProjectID: 99999}); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("unknown project: %v, want ENOTFOUND", err)
		}
	})
}

// RecallRuleCountsCheck returns a check that every project's kept count
// of active rules (recall_rule_counts) is the count of its active rules;
// queryInt runs one SQL query returning one number on the backend.
func RecallRuleCountsCheck(tb testing.TB, queryInt func(query string) (int, error)) func(step string) {
	return func(step string) {
		tb.Helper()
		bad, err := queryInt(`
			SELECT count(*) FROM projects p
			WHERE (SELECT count(*) FROM rules r WHERE r.project_id = p.id AND r.status = 'active')
				<> COALESCE((SELECT active FROM recall_rule_counts c WHERE c.project_id = p.id), 0)`)
		if err != nil || bad != 0 {
			tb.Fatalf("%s: %d projects with a wrong count (%v)", step, bad, err)
		}
	}
}
