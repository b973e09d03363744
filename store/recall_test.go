package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// recallRuleRow is a rule written straight into the rules table.
type recallRuleRow struct {
	Project int64
	Subject string
	Kind    governance.MemoryType
	Reason  governance.PromotionReason
	Status  governance.RuleStatus
	Text    string
	Trust   float64
	Paused  bool
	Expires string
}

// MustInsertRecallRule inserts a rule with SQL (the heartbeat and review
// paths are not under test here) and returns its id.
func MustInsertRecallRule(tb testing.TB, s *store.Store, r recallRuleRow) int64 {
	tb.Helper()
	if r.Kind == "" {
		r.Kind = governance.TypeLesson
	}
	if r.Reason == "" {
		r.Reason = governance.ReasonToolFailure
	}
	if r.Status == "" {
		r.Status = governance.RuleActive
	}
	if r.Trust == 0 {
		r.Trust = 0.8
	}
	var expires any
	if r.Expires != "" {
		expires = r.Expires
	}
	now := s.Now().UTC().Format(time.RFC3339)
	res, err := s.DB().ExecContext(context.Background(), `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, trust, paused, expires_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Project, r.Subject, r.Kind, r.Text, r.Reason, r.Status, r.Trust, r.Paused, expires, now, now)
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

// MustInsertRecallEpisode inserts an episode summary with SQL.
func MustInsertRecallEpisode(tb testing.TB, s *store.Store, project int64, session, subject, summary string) int64 {
	tb.Helper()
	now := s.Now().UTC().Format(time.RFC3339)
	res, err := s.DB().ExecContext(context.Background(), `
		INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
		VALUES (?, ?, ?, ?, 1, 1, 1, 'test', ?, ?)`, project, session, subject, summary, now, now)
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

func traceReason(pkg *governance.RecallPackage, id int64) string {
	for _, e := range pkg.Trace.Considered {
		if e.ID == governance.RecallRuleID(id) {
			return e.Reason
		}
	}
	return ""
}

func TestRecall(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	travel := MustCreateProject(t, s, "travel")
	expense := MustCreateProject(t, s, "expense")

	far := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Text: "远距离的大型景点单独安排一天；同一区域的景点放在同一天。"})
	nap := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Subject: "family-1", Kind: governance.TypePreference,
		Reason: governance.ReasonExplicit, Text: "每天 14:00–16:00 留给孩子午睡。"})
	check := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Subject: "family-1", Kind: governance.TypePreference,
		Reason: governance.ReasonExplicit, Text: "每次给出行程时，附上路线检查的结论。"})
	paused := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Text: "酒店订在王府井附近。", Paused: true})
	expired := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Text: "故宫需要提前预约。", Expires: "2020-01-01T00:00:00Z"})
	forgotten := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Subject: "family-1", Status: governance.RuleForgotten, Text: ""})
	proposed := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Status: governance.RuleProposed, Text: "尚未批准的规则。"})
	other := MustInsertRecallRule(t, s, recallRuleRow{Project: travel.ID, Subject: "family-2", Kind: governance.TypePreference,
		Text: "每天 13:00–15:00 留给孩子午睡。"})
	invoice := MustInsertRecallRule(t, s, recallRuleRow{Project: expense.ID, Kind: governance.TypeFact, Reason: governance.ReasonRepeated,
		Text: "200 元以下的报销不需要扫描发票。"})
	MustInsertRecallEpisode(t, s, travel.ID, "s1", "family-1", "北京三日亲子游：环球影城单独安排一天后路线检查通过。")
	MustInsertRecallEpisode(t, s, travel.ID, "s9", "family-2", "另一家人的上海迪士尼行程。")

	req := governance.RecallRequest{Task: "带五岁的女儿去上海玩两天，她一直想去迪士尼乐园。最终路线必须可以执行。",
		ProjectID: travel.ID, SubjectID: "family-1"}
	pkg, err := s.Recall(ctx, "token:1", req)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Scope", func(t *testing.T) {
		for _, id := range []int64{far, nap, check} {
			if got := traceReason(pkg, id); got != governance.TraceIncluded {
				t.Errorf("rule %d: reason %q, want included", id, got)
			}
		}
		for id, want := range map[int64]string{paused: "paused", expired: "expired", forgotten: "forgotten", proposed: "", other: "", invoice: ""} {
			if got := traceReason(pkg, id); got != want {
				t.Errorf("rule %d: reason %q, want %q", id, got, want)
			}
		}
		want := governance.ScopeCounts{RulesOtherProjects: 1, RulesOtherSubjects: 1, EpisodesOtherSubjects: 1}
		if got := pkg.Trace.ScopeFiltered; got != want {
			t.Errorf("scope filtered = %+v, want %+v", got, want)
		}
		if strings.Contains(pkg.Text, "报销") || strings.Contains(pkg.Text, "13:00") || strings.Contains(pkg.Text, "另一家人") {
			t.Errorf("out-of-scope text in package:\n%s", pkg.Text)
		}
	})
	t.Run("TraceStoredWithoutText", func(t *testing.T) {
		if pkg.Trace.ID == 0 {
			t.Fatal("trace id not set")
		}
		var body, hash string
		if err := s.DB().QueryRowContext(ctx, `SELECT trace, task_hash FROM recall_traces WHERE id = ?`, pkg.Trace.ID).Scan(&body, &hash); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"午睡", "路线检查", "迪士尼", "上海"} {
			if strings.Contains(body, text) {
				t.Errorf("stored trace holds text %q: %s", text, body)
			}
		}
		if !strings.Contains(body, governance.RecallRuleID(nap)) || len(hash) != 64 {
			t.Errorf("trace = %s, hash %q", body, hash)
		}
		traces, total, err := s.FindRecallTraces(ctx, governance.RecallTraceFilter{ProjectID: travel.ID, RuleID: nap})
		if err != nil || total != 1 || len(traces[0].Trace.Considered) != len(pkg.Trace.Considered) {
			t.Fatalf("find traces = %+v, %d, %v", traces, total, err)
		}
	})
	t.Run("UseCounted", func(t *testing.T) {
		r, err := s.FindRuleByID(ctx, nap)
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
		if r, _ := s.FindRuleByID(ctx, nap); r.UseCount != 1 {
			t.Errorf("preview counted a use: %d", r.UseCount)
		}
		if r, _ := s.FindRuleByID(ctx, paused); r.UseCount != 0 {
			t.Errorf("excluded rule counted: %d", r.UseCount)
		}
	})
	t.Run("EpisodeFTS", func(t *testing.T) {
		ep := MustInsertRecallEpisode(t, s, travel.ID, "s2", "", "Fixed the failing route check by giving the Terracotta Army its own day; 兵马俑单独一天。")
		// Newer episodes fill the recent window, so only the index can find ep.
		for i := range 60 {
			MustInsertRecallEpisode(t, s, travel.ID, fmt.Sprintf("w%d", i), "family-1", "闲聊天气，没有安排。")
		}
		MustInsertRecallEpisode(t, s, expense.ID, "x1", "", "Terracotta Army invoice 兵马俑报销。")
		for _, task := range []string{"Which route check failed for the Terracotta Army?", "西安的兵马俑怎么安排"} {
			pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: task, ProjectID: travel.ID, SubjectID: "family-1"})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, it := range pkg.Items {
				found = found || it.ID == governance.RecallEpisodeID(ep)
				if strings.Contains(it.Text, "报销") {
					t.Errorf("%s: another project's episode recalled", task)
				}
			}
			if !found {
				t.Errorf("%s: episode %d not recalled: %+v", task, ep, pkg.Trace.Considered)
			}
		}
		// The update trigger keeps the index in step.
		if _, err := s.DB().ExecContext(ctx, `UPDATE episodes SET summary = 'weather chat' WHERE id = ?`, ep); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes_recall WHERE episodes_recall MATCH 'terracotta OR 兵马'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("index rows for the old text = %d (want only the expense episode), %v", n, err)
		}
	})
	t.Run("Events", func(t *testing.T) {
		if _, err := s.IngestEvents(ctx, travel.ID, []*governance.Event{
			{ID: "x1", SessionID: "s5", SubjectID: "family-1", Turn: 1, Role: governance.RoleUser, Text: "Disneyland tickets sell out on weekends.", OccurredAt: time.Now()},
			{ID: "x2", SessionID: "s6", SubjectID: "family-2", Turn: 1, Role: governance.RoleUser, Text: "Disneyland tickets for family two.", OccurredAt: time.Now()},
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
		_, err := s.Recall(ctx, "t", governance.RecallRequest{ProjectID: travel.ID})
		if governance.ErrorCode(err) != governance.EINVALID {
			t.Errorf("err = %v", err)
		}
		_, err = s.Recall(ctx, "t", governance.RecallRequest{Task: "x", ProjectID: 999})
		if governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("err = %v", err)
		}
	})
}

// TestRecallRuleCounts: the per-project active counts the scope filter
// reports stay equal to a full count through inserts, status changes,
// project moves and deletes.
func TestRecallRuleCounts(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	a, b := MustCreateProject(t, s, "a"), MustCreateProject(t, s, "b")
	check := func(step string) {
		t.Helper()
		var bad int
		if err := s.DB().QueryRowContext(ctx, `
			SELECT COUNT(*) FROM projects p
			WHERE (SELECT COUNT(*) FROM rules r WHERE r.project_id = p.id AND r.status = 'active')
				<> COALESCE((SELECT active FROM recall_rule_counts c WHERE c.project_id = p.id), 0)`).Scan(&bad); err != nil || bad != 0 {
			t.Fatalf("%s: %d projects with a wrong count (%v)", step, bad, err)
		}
	}
	r1 := MustInsertRecallRule(t, s, recallRuleRow{Project: a.ID, Text: "one"})
	r2 := MustInsertRecallRule(t, s, recallRuleRow{Project: a.ID, Text: "two"})
	MustInsertRecallRule(t, s, recallRuleRow{Project: b.ID, Status: governance.RuleProposed, Text: "three"})
	check("insert")
	for _, q := range []string{
		`UPDATE rules SET status = 'forgotten' WHERE id = ` + fmt.Sprint(r1),
		`UPDATE rules SET status = 'active' WHERE status = 'proposed'`,
		`UPDATE rules SET project_id = ` + fmt.Sprint(b.ID) + ` WHERE id = ` + fmt.Sprint(r2),
		`UPDATE rules SET text = 'edited', version = version + 1`,
		`DELETE FROM rules WHERE id = ` + fmt.Sprint(r2),
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
		check(q)
	}
	pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "x", ProjectID: a.ID})
	if err != nil || pkg.Trace.ScopeFiltered.RulesOtherProjects != 1 {
		t.Fatalf("other projects = %+v, %v", pkg.Trace.ScopeFiltered, err)
	}
}
