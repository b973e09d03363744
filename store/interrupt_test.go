package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// TestClaimEvalRunIdleTakesNoWriteLock: with nothing queued, the runner's
// poll must not open a write transaction (BEGIN IMMEDIATE) and take the
// writer slot every second: it answers "nothing queued" even while another
// connection holds the write lock.
func TestClaimEvalRunIdleTakesNoWriteLock(t *testing.T) {
	s := MustOpenStore(t)
	ctx := context.Background()
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = s.ClaimEvalRun(cctx)
	if governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("idle claim = %v; want ENOTFOUND without waiting for the writer", err)
	}
}

// TestForgetDuringImport: a subject forget asked while a streamed import of
// a file holding that subject is half-way waits for the import's
// transaction and then forgets what it wrote too: when both are done,
// nothing of the subject is left, from before the import or from it.
func TestForgetDuringImport(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	s := MustOpenStore(t)
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	p := MustCreateProject(t, s, "travel")
	if _, err := s.IngestEvents(ctx, p.ID, session("s0", now.Add(-72*time.Hour), true, "we always travel with the blue suitcase")); err != nil {
		t.Fatal(err)
	}
	half, release := make(chan struct{}), make(chan struct{})
	imported := make(chan error, 1)
	go func() {
		_, err := s.ImportStream(ctx, "admin", p.ID, func(emit func(*governance.Event) error) error {
			file := append(session("s1", now.Add(-48*time.Hour), true, "the blue suitcase goes in the boot"),
				session("s2", now.Add(-24*time.Hour), true, "the red suitcase is the blue one's twin")...)
			for i, e := range file {
				if i == len(file)/2 {
					close(half) // half the file is written, inside the import's transaction
					<-release
				}
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		})
		imported <- err
	}()
	<-half
	forgot := make(chan error, 1)
	var rep *governance.ForgetReport
	go func() {
		var err error
		rep, err = s.ForgetSubject(ctx, "admin", p.ID, "u1")
		forgot <- err
	}()
	select {
	case err := <-forgot:
		t.Fatalf("the forget finished (%v) while the import held the writer", err)
	default:
	}
	close(release)
	if err := <-imported; err != nil {
		t.Fatal(err)
	}
	if err := <-forgot; err != nil {
		t.Fatal(err)
	}
	if rep.Events != 3 {
		t.Fatalf("forgot %d lines; want the one ingested before and the two imported", rep.Events)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM events WHERE text LIKE '%suitcase%' OR subject_id = 'u1'
		OR session_id IN ('s0', 's1', 's2')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d events of the forgotten subject are left", n)
	}
}

// TestForgetDuringEval: an eval case that recalled a rule before the rule
// was forgotten and stores its result after the forget does not write the
// forgotten text back (the forget scrubbed only the results stored before).
func TestForgetDuringEval(t *testing.T) {
	ctx := context.Background()
	d := MustLoadDemo(t)
	nap := d.Rule(t, "午睡")
	suite := MustCreateEvalSuite(t, d.Store, "live")
	run := &evals.RunRow{SuiteID: suite.ID, Total: 2, CreatedBy: "admin"}
	if err := d.Store.CreateEvalRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Store.ClaimEvalRun(ctx); err != nil {
		t.Fatal(err)
	}
	detail := func(caseID string) string {
		b, _ := json.Marshal(map[string]any{"case_id": caseID, "recall": map[string]any{
			"task": "plan a day", "items": []map[string]any{{"kind": "rule", "rule_id": nap.ID, "text": nap.Text}}}})
		return string(b)
	}
	// Case 1 finished before the forget; case 2 read the rule before it and
	// finishes after it.
	if err := d.Store.SaveEvalResult(ctx, &evals.ResultRow{RunID: run.ID, CaseID: "c1", Kind: "recall", Status: "passed", Detail: detail("c1")}, 0, 0); err != nil {
		t.Fatal(err)
	}
	late := detail("c2")
	if _, err := d.Store.ForgetRule(ctx, "admin", nap.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := d.Store.SaveEvalResult(ctx, &evals.ResultRow{RunID: run.ID, CaseID: "c2", Kind: "recall", Status: "passed", Detail: late}, 0, 0); err != nil {
		t.Fatal(err)
	}
	results, err := d.Store.FindEvalResults(ctx, run.ID)
	if err != nil || len(results) != 2 {
		t.Fatalf("results = %d, %v", len(results), err)
	}
	for _, r := range results {
		if strings.Contains(r.Detail, nap.Text) || strings.Contains(r.Detail, "午睡") {
			t.Errorf("result %s still quotes the forgotten rule: %s", r.CaseID, r.Detail)
		}
		if !strings.Contains(r.Detail, "plan a day") {
			t.Errorf("result %s lost what was not forgotten: %s", r.CaseID, r.Detail)
		}
	}
}
