package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

// MustCreateEvalSuite stores an uploaded suite with the given name.
func MustCreateEvalSuite(tb testing.TB, s Store, name string) *evals.SuiteRow {
	tb.Helper()
	suite := &evals.SuiteRow{Name: name, Origin: evals.OriginUploaded, Body: "name: " + name + "\n"}
	if err := s.UpsertEvalSuite(context.Background(), suite, "tester"); err != nil {
		tb.Fatal(err)
	}
	return suite
}

// TestEvalSuiteData: a suite's data file is kept beside it and read back
// whole, across parts; saving the suite with another body replaces it or,
// saved without one, drops it; a suite without a file is ENOTFOUND.
func TestEvalSuiteData(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	data := make([]byte, 2*evals.SuiteDataPart+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	read := func(id int64) []byte {
		t.Helper()
		rc, err := s.OpenEvalSuiteData(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		got, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	suite := &evals.SuiteRow{Name: "big", Origin: evals.OriginUploaded, Body: "name: big\nbenchmark: {stored: a}\n"}
	if err := s.UpsertEvalSuiteData(ctx, suite, bytes.NewReader(data), "tester"); err != nil {
		t.Fatal(err)
	}
	if got := read(suite.ID); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, want the %d stored", len(got), len(data))
	}
	again := &evals.SuiteRow{Name: "big", Origin: evals.OriginUploaded, Body: "name: big\nbenchmark: {stored: b}\n"}
	if err := s.UpsertEvalSuiteData(ctx, again, bytes.NewReader(data[:100]), "tester"); err != nil {
		t.Fatal(err)
	}
	if got := read(suite.ID); !bytes.Equal(got, data[:100]) || again.ID != suite.ID {
		t.Fatalf("after a new file: %d bytes (suite %d)", len(got), again.ID)
	}
	if err := s.UpsertEvalSuite(ctx, &evals.SuiteRow{Name: "big", Origin: evals.OriginUploaded, Body: "name: big\n"}, "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenEvalSuiteData(ctx, suite.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("a suite saved without a file: %v, want ENOTFOUND", err)
	}
	if _, err := s.OpenEvalSuiteData(ctx, 4242); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatalf("no suite: %v, want ENOTFOUND", err)
	}
}

// TestEvalSuites: a suite is saved by name, its body replaced by a later
// save of the same origin; another origin's name is ECONFLICT.
func TestEvalSuites(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		s := open(t)
		suite := MustCreateEvalSuite(t, s, "travel")
		again := &evals.SuiteRow{Name: "travel", Origin: evals.OriginUploaded, Body: "name: travel\ncases: []\n"}
		if err := s.UpsertEvalSuite(ctx, again, "tester"); err != nil {
			t.Fatal(err)
		}
		if again.ID != suite.ID {
			t.Fatalf("id = %d, want %d", again.ID, suite.ID)
		}
		got, err := s.FindEvalSuiteByName(ctx, "travel")
		if err != nil {
			t.Fatal(err)
		}
		if got.Body != again.Body {
			t.Fatalf("body = %q", got.Body)
		}
	})
	t.Run("ErrConflictWithBuiltin", func(t *testing.T) {
		s := open(t)
		if err := s.UpsertEvalSuite(ctx, &evals.SuiteRow{Name: "x", Origin: evals.OriginBuiltin, Body: "a"}, "system"); err != nil {
			t.Fatal(err)
		}
		err := s.UpsertEvalSuite(ctx, &evals.SuiteRow{Name: "x", Origin: evals.OriginUploaded, Body: "b"}, "tester")
		if got, want := governance.ErrorCode(err), governance.ECONFLICT; got != want {
			t.Fatalf("code = %q, want %q (%v)", got, want, err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		s := open(t)
		_, err := s.FindEvalSuiteByID(ctx, 42)
		if got, want := governance.ErrorCode(err), governance.ENOTFOUND; got != want {
			t.Fatalf("code = %q, want %q", got, want)
		}
	})
}

// TestEvalRunLifecycle: a run is queued, claimed once, counts its results
// once each, finishes or is cancelled — after which nothing more counts.
func TestEvalRunLifecycle(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("ClaimSaveFinish", func(t *testing.T) {
		s := open(t)
		suite := MustCreateEvalSuite(t, s, "travel")
		run := &evals.RunRow{SuiteID: suite.ID, Total: 3, CreatedBy: "alice"}
		if err := s.CreateEvalRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		claimed, err := s.ClaimEvalRun(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if claimed.ID != run.ID || claimed.Status != evals.RunRunning || claimed.StartedAt == nil || claimed.SuiteName != "travel" {
			t.Fatalf("claimed = %+v", claimed)
		}
		if _, err := s.ClaimEvalRun(ctx); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("second claim err = %v", err)
		}
		cur := "c1"
		if err := s.UpdateEvalRun(ctx, run.ID, evals.RunUpdate{CurrentCase: &cur}); err != nil {
			t.Fatal(err)
		}
		for _, r := range []*evals.ResultRow{
			{RunID: run.ID, CaseID: "c1", Kind: "recall", Status: "passed"},
			{RunID: run.ID, CaseID: "c1", Kind: "recall", Status: "failed"}, // duplicate: ignored
			{RunID: run.ID, CaseID: "c2", Kind: "ab", Status: "skipped", Reason: "no model"},
			{RunID: run.ID, CaseID: "c3", Kind: "ab", Status: "error", Reason: "judge"},
		} {
			if err := s.SaveEvalResult(ctx, r, 10, 0.5); err != nil {
				t.Fatal(err)
			}
		}
		ok, err := s.FinishEvalRun(ctx, run.ID, evals.RunDone, `{"pass_rate":0.5}`, "")
		if err != nil || !ok {
			t.Fatalf("finish = %v, %v", ok, err)
		}
		got, err := s.FindEvalRunByID(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Done != 3 || got.Passed != 1 || got.Failed != 1 || got.Skipped != 1 || got.Tokens != 30 || got.Cost != 1.5 ||
			got.Status != evals.RunDone || got.FinishedAt == nil || got.CurrentCase != "" {
			t.Fatalf("run = %+v", got)
		}
		results, err := s.FindEvalResults(ctx, run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != 3 || results[0].Status != "passed" {
			t.Fatalf("results = %+v", results)
		}
		if err := s.UpdateEvalRun(ctx, run.ID, evals.RunUpdate{CurrentCase: &cur}); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("update after finish err = %v", err)
		}
	})
	t.Run("ConcurrentClaims", func(t *testing.T) {
		s := open(t)
		suite := MustCreateEvalSuite(t, s, "travel")
		const runs = 4
		for range runs {
			if err := s.CreateEvalRun(ctx, &evals.RunRow{SuiteID: suite.ID, CreatedBy: "alice"}); err != nil {
				t.Fatal(err)
			}
		}
		claimed := make(chan int64, runs+2)
		errs := make(chan error, runs+2)
		for range runs + 2 {
			go func() {
				run, err := s.ClaimEvalRun(ctx)
				if governance.ErrorCode(err) == governance.ENOTFOUND {
					claimed <- 0
					errs <- nil
					return
				}
				if run != nil {
					claimed <- run.ID
				} else {
					claimed <- -1
				}
				errs <- err
			}()
		}
		seen := map[int64]bool{}
		for range runs + 2 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
			if id := <-claimed; id > 0 {
				if seen[id] {
					t.Fatalf("run %d claimed twice", id)
				}
				seen[id] = true
			}
		}
		if len(seen) != runs {
			t.Fatalf("%d runs claimed, want %d", len(seen), runs)
		}
	})
	t.Run("Cancel", func(t *testing.T) {
		s := open(t)
		suite := MustCreateEvalSuite(t, s, "travel")
		run := &evals.RunRow{SuiteID: suite.ID, CreatedBy: "alice"}
		if err := s.CreateEvalRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ClaimEvalRun(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.CancelEvalRun(ctx, run.ID, "alice"); err != nil {
			t.Fatal(err)
		}
		ok, err := s.FinishEvalRun(ctx, run.ID, evals.RunDone, "", "")
		if err != nil || ok {
			t.Fatalf("finish after cancel = %v, %v", ok, err)
		}
		// A case that ends after the cancel is not recorded, whenever the
		// runner notices.
		if err := s.SaveEvalResult(ctx, &evals.ResultRow{RunID: run.ID, CaseID: "late", Kind: "recall", Status: "passed"}, 5, 0.1); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.FindEvalRunByID(ctx, run.ID); got.Done != 0 || got.Passed != 0 || got.Tokens != 0 {
			t.Fatalf("counted after cancel: %+v", got)
		}
		if results, _ := s.FindEvalResults(ctx, run.ID); len(results) != 0 {
			t.Fatalf("stored after cancel: %+v", results)
		}
		if err := s.CancelEvalRun(ctx, run.ID, "alice"); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("second cancel err = %v", err)
		}
		runs, total, err := s.FindEvalRuns(ctx, evals.RunFilter{SuiteID: &suite.ID, Statuses: []evals.RunStatus{evals.RunCancelled}})
		if err != nil || total != 1 || runs[0].Status != evals.RunCancelled {
			t.Fatalf("runs = %+v, %d, %v", runs, total, err)
		}
		v, err := s.VerifyAudit(ctx)
		if err != nil || !v.OK {
			t.Fatalf("audit = %+v, %v", v, err)
		}
	})
}

// TestForgetDuringEval: an eval case that recalled a rule before the rule
// was forgotten and stores its result after the forget does not write the
// forgotten text back (the forget scrubbed only the results stored before).
func TestForgetDuringEval(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
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
