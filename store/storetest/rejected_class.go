package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// ClassStore is the review queue's class rejection part of a store.
type ClassStore interface {
	MemoryStore
	RejectClass(ctx context.Context, actor string, rc *governance.RejectedClass, ruleIDs []int64) (*governance.RejectedClass, error)
	LiftClass(ctx context.Context, actor string, projectID, id int64) error
	FindRejectedClasses(ctx context.Context, projectID int64, withLifted bool) ([]*governance.RejectedClass, error)
	FindEvidenceSpread(ctx context.Context, ruleIDs []int64) (map[int64]governance.EvidenceSpread, error)
}

func classAuditRow(tb testing.TB, s Store, id int64) *governance.AuditEntry {
	tb.Helper()
	rows, _, err := s.FindAudit(context.Background(), governance.AuditFilter{ObjectType: "rejected_class", ObjectID: itoa(id), Limit: 1})
	if err != nil || len(rows) == 0 {
		tb.Fatalf("no audit row for class rejection %d: %v", id, err)
	}
	return rows[0]
}

// TestRejectClass: a reviewer rejects a proposal's class with a reason;
// its proposals are rejected with it, the next beat holds a group of the
// same class with the reason and still proposes another one, and lifting
// the rejection takes it out of the beat's input. Every step is audited;
// a bad reason, a rule of another class or a second rejection of the same
// class writes nothing.
func TestRejectClass(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	st := OpenMemory(t, open)
	s, ok := st.(ClassStore)
	if !ok {
		t.Fatalf("%T does not implement storetest.ClassStore", st)
	}
	p := MustCreateProject(t, s, "classes")
	m := heuristic.NewMerger()
	hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: &consolidate.Consolidator{
		Extractor: &LineExtractor{}, Merger: m, Classifier: gate.Patterns}}
	beat := func(id string, at time.Duration, lines ...string) {
		t.Helper()
		if _, err := s.IngestEvents(ctx, p.ID, Session(id, now.Add(-at), true, lines...)); err != nil {
			t.Fatal(err)
		}
		if _, err := hb.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
	}
	proposed := func() []*governance.Rule {
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID, Statuses: []governance.RuleStatus{governance.RuleProposed}})
		if err != nil {
			t.Fatal(err)
		}
		return rules
	}
	beat("s1", 72*time.Hour, "we always write the trip report to the shared drive", "we always book aisle seats")
	first := proposed()
	if len(first) != 2 {
		t.Fatalf("proposals = %d, want 2", len(first))
	}
	report, aisle := first[0], first[1]
	if !strings.Contains(report.Text, "report") {
		report, aisle = aisle, report
	}
	spread, err := s.FindEvidenceSpread(ctx, []int64{report.ID})
	if err != nil || spread[report.ID] != (governance.EvidenceSpread{Sessions: 1, Subjects: 1}) {
		t.Fatalf("spread = %+v, %v", spread, err)
	}
	class := governance.RuleClass(report)
	rc := func(reason governance.ClassReason) *governance.RejectedClass {
		return &governance.RejectedClass{ProjectID: p.ID, Class: class, Reason: reason, RuleID: report.ID}
	}
	_, err = s.RejectClass(ctx, "rita", rc("because"), []int64{report.ID})
	wantCode(t, err, governance.EINVALID)
	_, err = s.RejectClass(ctx, "rita", rc(governance.ClassOneOff), []int64{report.ID, aisle.ID})
	wantCode(t, err, governance.ECONFLICT)
	if len(proposed()) != 2 {
		t.Fatal("a refused class rejection rejected a proposal")
	}
	if got, _ := s.FindRejectedClasses(ctx, p.ID, true); len(got) != 0 {
		t.Fatalf("a refused class rejection was kept: %+v", got)
	}
	got, err := s.RejectClass(ctx, "rita", rc(governance.ClassOneOff), []int64{report.ID})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := s.FindRuleByID(ctx, report.ID); r.Status != governance.RuleRejected {
		t.Fatalf("the class's proposal is %s", r.Status)
	}
	if a := lastAudit(t, s, itoa(report.ID)); a.Action != "rule.reject" || a.Reason != governance.ClassRejectReason(governance.ClassOneOff) {
		t.Fatalf("rule audit = %+v", a)
	}
	if a := classAuditRow(t, s, got.ID); a.Action != "class.reject" || a.Actor != "rita" || a.Reason != "one_off" || a.ProjectID != p.ID ||
		strings.Contains(a.Details, "report") {
		t.Fatalf("class audit = %+v", a)
	}
	_, err = s.RejectClass(ctx, "rita", rc(governance.ClassCommandDump), []int64{aisle.ID})
	wantCode(t, err, governance.ECONFLICT)

	// The next beat: the same class is held with the reason, another
	// class is proposed.
	beat("s2", 48*time.Hour, "we always write the trip report to the team wiki", "we always pack a rain jacket")
	held, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: p.ID, Statuses: []governance.CandidateStatus{governance.CandidateHeld}})
	if err != nil || len(held) != 1 || !strings.Contains(held[0].Statement, "wiki") || held[0].StatusReason != governance.SuppressedWhy(got) {
		t.Fatalf("held = %+v, %v; want the wiki report held as suppressed", held, err)
	}
	var texts []string
	for _, r := range proposed() {
		texts = append(texts, r.Text)
	}
	if len(texts) != 2 || !strings.Contains(strings.Join(texts, "|"), "rain jacket") {
		t.Fatalf("proposed = %q, want the aisle seats and the rain jacket", texts)
	}

	// Lifting it: audited, and the beat's input no longer carries it.
	wantCode(t, s.LiftClass(ctx, "rita", p.ID+1, got.ID), governance.ECONFLICT)
	if err := s.LiftClass(ctx, "rita", p.ID, got.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.LiftClass(ctx, "rita", p.ID, got.ID), governance.ECONFLICT)
	if a := classAuditRow(t, s, got.ID); a.Action != "class.lift" {
		t.Fatalf("class audit = %+v", a)
	}
	if standing, _ := s.FindRejectedClasses(ctx, p.ID, false); len(standing) != 0 {
		t.Fatalf("standing after lift = %+v", standing)
	}
	all, err := s.FindRejectedClasses(ctx, p.ID, true)
	if err != nil || len(all) != 1 || all[0].LiftedAt == nil || all[0].LiftedBy != "rita" || all[0].Class != class {
		t.Fatalf("rejections = %+v, %v", all, err)
	}
	in, err := s.LoadConsolidateInput(ctx, p, time.Hour)
	if err != nil || len(in.RejectedClasses) != 0 {
		t.Fatalf("input classes = %+v, %v", in.RejectedClasses, err)
	}
	// Rejected again after the lift: a new standing rejection.
	if _, err := s.RejectClass(ctx, "rita", rc(governance.ClassOffProject), []int64{aisle.ID}); err == nil {
		t.Fatal("the aisle seats are not of the report's class")
	}
}
