package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/storetest"
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

// TestRecallEpisodeIndex: the SQLite part of recall (the rest of recall's
// tests run on both backends, storetest.TestRecall): episodes_recall
// follows an episode's summary through its update trigger.
func TestRecallEpisodeIndex(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	travel := MustCreateProject(t, s, "travel")
	expense := MustCreateProject(t, s, "expense")
	ep := MustInsertRecallEpisode(t, s, travel.ID, "s2", "", "Fixed the failing route check by giving the Terracotta Army its own day; 兵马俑单独一天。")
	MustInsertRecallEpisode(t, s, expense.ID, "x1", "", "Terracotta Army invoice 兵马俑报销。")
	count := func() int {
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes_recall WHERE episodes_recall MATCH ?`,
			fmt.Sprintf(`"%d_terracotta" OR "%d_兵马" OR "%d_terracotta" OR "%d_兵马"`, travel.ID, travel.ID, expense.ID, expense.ID)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 2 {
		t.Fatalf("index rows = %d, want both episodes", n)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE episodes SET summary = 'weather chat' WHERE id = ?`, ep); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Errorf("index rows for the old text = %d (want only the expense episode)", n)
	}
	pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "Terracotta Army", ProjectID: travel.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range pkg.Items {
		if strings.Contains(it.Text, "Terracotta") {
			t.Errorf("recalled the old summary: %q", it.Text)
		}
	}
}

// TestRecallRuleCounts: the per-project active counts the scope filter
// reports stay equal to a full count through inserts, status changes,
// project moves and deletes.
func TestRecallRuleCounts(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	a, b := MustCreateProject(t, s, "a"), MustCreateProject(t, s, "b")
	check := storetest.RecallRuleCountsCheck(t, func(query string) (n int, err error) {
		err = s.DB().QueryRowContext(ctx, query).Scan(&n)
		return n, err
	})
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
