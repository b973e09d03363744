package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// pausedImport streams file into project projectID with ImportStream and
// stops half-way, inside the import's transaction, until the returned
// function is called; that function lets the import finish and returns
// its error.
func pausedImport(t *testing.T, s Store, projectID int64, file []*governance.Event) (finish func() error) {
	t.Helper()
	half, release := make(chan struct{}), make(chan struct{})
	imported := make(chan error, 1)
	go func() {
		_, err := s.ImportStream(context.Background(), "admin", projectID, func(emit func(*governance.Event) error) error {
			for i, e := range file {
				if i == len(file)/2 {
					close(half) // half the file is emitted, inside the import's transaction
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
	select {
	case <-half:
	case err := <-imported:
		t.Fatalf("the import ended (%v) before half its file", err)
	}
	return func() error {
		close(release)
		return <-imported
	}
}

// forgetWaits starts forget and checks that it is still waiting a moment
// later (for the import in flight); the returned function waits for it.
func forgetWaits(t *testing.T, forget func() (*governance.ForgetReport, error)) (wait func() (*governance.ForgetReport, error)) {
	t.Helper()
	type result struct {
		rep *governance.ForgetReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := forget()
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the forget finished (%v) while an import of the project was in flight", r.err)
	case <-time.After(200 * time.Millisecond):
	}
	return func() (*governance.ForgetReport, error) {
		r := <-done
		return r.rep, r.err
	}
}

// TestForgetDuringImport: a forget asked while a streamed import of the
// project is half-way waits for the import's transaction and then forgets
// what it wrote too: when both are done, nothing the forget covers is
// left, from before the import or from it — in the rows, the search or
// recall. Subject: every line of the subject. RuleWithEvents: the lines
// restating the forgotten rule.
func TestForgetDuringImport(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Run("Subject", func(t *testing.T) {
		now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
		s := OpenMemory(t, open)
		p := MustCreateProject(t, s, "travel")
		if _, err := s.IngestEvents(ctx, p.ID, Session("s0", now.Add(-72*time.Hour), true, "we always travel with the blue suitcase")); err != nil {
			t.Fatal(err)
		}
		file := append(Session("s1", now.Add(-48*time.Hour), true, "the blue suitcase goes in the boot"),
			Session("s2", now.Add(-24*time.Hour), true, "the red suitcase is the blue one's twin")...)
		finish := pausedImport(t, s, p.ID, file)
		wait := forgetWaits(t, func() (*governance.ForgetReport, error) { return s.ForgetSubject(ctx, "admin", p.ID, "u1") })
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		rep, err := wait()
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != 3 {
			t.Fatalf("forgot %d lines; want the one ingested before and the two imported", rep.Events)
		}
		for _, r := range rawRows(t, s) {
			for col, v := range r.cols {
				if strings.Contains(v, "suitcase") {
					t.Errorf("%s.%s still holds the forgotten text: %q", r.table, col, v)
				}
			}
			if r.table == "events" && (r.cols["subject_id"] == "u1" || strings.Contains(" s0 s1 s2 ", " "+r.cols["session_id"]+" ")) {
				t.Errorf("event %s of session %q, subject %q is left", r.cols["id"], r.cols["session_id"], r.cols["subject_id"])
			}
		}
		noCopyLeft(t, s, p.ID, "suitcase")
		pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "what goes in the boot", ProjectID: p.ID, SubjectID: "u1"})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(pkg); strings.Contains(string(b), "suitcase") {
			t.Fatalf("recall still offers the forgotten text: %s", b)
		}
	})
	t.Run("RuleWithEvents", func(t *testing.T) {
		d := LoadDemo(t, open)
		s := d.Store
		nap := d.Rule(t, "午睡")
		// Lines that restate the nap rule (TestForgetRuleRedactsRestatements
		// shows a forget of it finds them), in a new session of the file.
		restatements := []string{"记住了，每天14:00到16:00都留给她午睡。", "抱歉，已调整：断桥、白堤挪到四点以后，14:00到16:00回酒店午睡。"}
		at := time.Date(2026, 6, 20, 9, 0, 0, 0, time.UTC)
		var file []*governance.Event
		for i, text := range append(restatements, "下午两点去断桥、白堤散步", "晚上吃片儿川") {
			e := Ev("import-"+string(rune('a'+i)), "import-1", i+1, governance.RoleUser, text)
			e.SubjectID, e.OccurredAt = "family-chen", at.Add(time.Duration(i)*time.Minute)
			file = append(file, e)
		}
		// The restatements sit on both sides of the pause.
		file[1], file[2] = file[2], file[1]
		finish := pausedImport(t, s, d.Travel.ID, file)
		wait := forgetWaits(t, func() (*governance.ForgetReport, error) { return s.ForgetRule(ctx, "family-chen", nap.ID, true) })
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		if _, err := wait(); err != nil {
			t.Fatal(err)
		}
		session := "import-1"
		events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &d.Travel.ID, SessionID: &session})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != len(file) {
			t.Fatalf("%d lines of the import stored; want %d", len(events), len(file))
		}
		for _, e := range events {
			if strings.Contains(e.Text, "午睡") {
				t.Errorf("imported line %s still restates the forgotten rule: %q", e.ID, e.Text)
			}
		}
		for _, r := range rawRows(t, s) {
			for _, text := range restatements {
				if strings.Contains(r.cols["text"], text) {
					t.Errorf("%s row still holds %q", r.table, text)
				}
			}
		}
		noCopyLeft(t, s, d.Travel.ID, restatements...)
	})
}
