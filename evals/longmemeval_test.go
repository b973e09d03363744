package evals_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

const lmeSample = "testdata/longmemeval-sample.json"

// readLME reads every question of a LongMemEval file.
func readLME(t *testing.T, r io.Reader) []*evals.LMEQuestion {
	t.Helper()
	lr, err := evals.NewLMEReader(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []*evals.LMEQuestion
	for {
		q, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, q)
	}
}

// gzipped returns body compressed.
func gzipped(t *testing.T, body []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestParseLongMemEval: questions are read one at a time, compressed or
// not; sessions come in date order, a repeated session id is made unique,
// and a question's memory holds only what happened by its date.
func TestParseLongMemEval(t *testing.T) {
	body, err := os.ReadFile(lmeSample)
	if err != nil {
		t.Fatal(err)
	}
	plain := readLME(t, bytes.NewReader(body))
	if packed := readLME(t, bytes.NewReader(gzipped(t, body))); !reflect.DeepEqual(plain, packed) {
		t.Fatal("the gzip-compressed file reads differently")
	}
	if len(plain) != 4 {
		t.Fatalf("questions = %d, want 4", len(plain))
	}
	user := plain[0]
	var order []string
	for _, s := range user.Sessions {
		order = append(order, s.ID)
	}
	if got := strings.Join(order, ","); got != "s_garden,s_cooking,answer_a1" {
		t.Errorf("sessions in date order = %s", got)
	}
	if update := plain[1]; update.Answer != "15" || update.Type != "knowledge-update" {
		t.Errorf("update question = %+v", update)
	}
	events, evidence, late := plain[1].Memory()
	for _, e := range events {
		if e.OccurredAt.After(plain[1].Date) {
			t.Errorf("event %s (%s) is after the question's date %s", e.ID, e.OccurredAt, plain[1].Date)
		}
		if e.SubjectID != "q-update" || (e.Kind != governance.KindSessionEnd && e.Text == "") {
			t.Errorf("event = %+v", e)
		}
	}
	if strings.Join(evidence, ",") != "answer_u1/1,answer_u2/1" || late != 1 {
		t.Errorf("evidence = %v, late = %d; want answer_u1/1, answer_u2/1 and 1 late", evidence, late)
	}
	multi := plain[2]
	if multi.Sessions[3].ID != "s_dup#2" {
		t.Errorf("the repeated session is %s, want s_dup#2", multi.Sessions[3].ID)
	}
	events, evidence, _ = multi.Memory()
	ids := map[string]bool{}
	for _, e := range events {
		if ids[e.ID] {
			t.Errorf("event id %s twice", e.ID)
		}
		ids[e.ID] = true
		e.Normalize()
		if errs := e.Validate(); len(errs) > 0 {
			t.Errorf("event %s: %v", e.ID, errs)
		}
	}
	if strings.Join(evidence, ",") != "answer_m1/1,answer_m2/2" {
		t.Errorf("evidence = %v (the empty turn is left out, the numbering kept)", evidence)
	}
	if !plain[3].Abstention() || plain[0].Abstention() {
		t.Error("abstention is read off the _abs id")
	}
	for name, body := range map[string]string{
		"NotJSON":      "not json",
		"NotAnArray":   `{"question_id": "x"}`,
		"NoID":         `[{"question": "q?", "question_date": "2023/05/01 (Mon) 10:00", "haystack_dates": [], "haystack_session_ids": [], "haystack_sessions": []}]`,
		"BadDate":      `[{"question_id": "a", "question": "q?", "question_date": "yesterday", "haystack_dates": ["2023/05/01"], "haystack_session_ids": ["s"], "haystack_sessions": [[]]}]`,
		"Lengths":      `[{"question_id": "a", "question": "q?", "question_date": "2023/05/01", "haystack_dates": [], "haystack_session_ids": ["s"], "haystack_sessions": [[]]}]`,
		"Role":         `[{"question_id": "a", "question": "q?", "question_date": "2023/05/01", "haystack_dates": ["2023/05/01"], "haystack_session_ids": ["s"], "haystack_sessions": [[{"role": "system", "content": "x"}]]}]`,
		"DuplicateID":  `[` + strings.Repeat(`{"question_id": "a", "question": "q?", "question_date": "2023/05/01", "haystack_dates": ["2023/05/01"], "haystack_session_ids": ["s"], "haystack_sessions": [[]]},`, 2) + `{}]`,
		"Truncated":    string(body[:len(body)/2]),
		"NotGzipAtAll": "\x1f\x8bnot gzip",
	} {
		t.Run("Err"+name, func(t *testing.T) {
			lr, err := evals.NewLMEReader(strings.NewReader(body))
			for err == nil {
				_, err = lr.Next()
			}
			if errors.Is(err, io.EOF) {
				t.Fatal("no error")
			}
			if name == "DuplicateID" && !strings.Contains(err.Error(), "question 2") {
				t.Errorf("error %q does not name question 2", err)
			}
		})
	}
}

// TestLongMemEvalSuite: a LongMemEval file is recognised by what it holds,
// compressed or not, whatever its size (it is read a question at a time);
// its suite lists the question ids.
func TestLongMemEvalSuite(t *testing.T) {
	body, err := os.ReadFile(lmeSample)
	if err != nil {
		t.Fatal(err)
	}
	if evals.SniffBenchmark(body) != evals.FormatLongMemEval || evals.SniffBenchmark(gzipped(t, body)) != evals.FormatLongMemEval {
		t.Fatal("the sample is not recognised as LongMemEval")
	}
	if f, _ := os.ReadFile("testdata/locomo-sample.json"); evals.SniffBenchmark(f) != evals.FormatLoCoMo {
		t.Fatal("the LoCoMo sample is taken for LongMemEval")
	}
	dir := t.TempDir()
	// A file larger than a suite may be: questions with long turns.
	var big bytes.Buffer
	long := strings.Repeat("a long turn ", 200<<10)
	n := evals.MaxSuiteBytes/len(long) + 1
	big.WriteString("[")
	for i := range n {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"question_id": "big-%d", "question_type": "single-session-user", "question": "What?", "question_date": "2023/05/30 (Tue) 10:00",
			"answer": "x", "answer_session_ids": [], "haystack_dates": ["2023/05/01 (Mon) 09:00"], "haystack_session_ids": ["s"],
			"haystack_sessions": [[{"role": "user", "content": %q}]]}`, i, long)
	}
	big.WriteString("]")
	path := filepath.Join(dir, "longmemeval-big.json.gz")
	if err := os.WriteFile(path, gzipped(t, big.Bytes()), 0o644); err != nil {
		t.Fatal(err)
	}
	suite, err := evals.LoadSuiteFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if suite.Name != "longmemeval-big" || len(suite.CaseIDs()) != n || suite.CaseIDs()[0] != "big-0" {
		t.Fatalf("suite %s has %d questions (%v), want %d", suite.Name, len(suite.CaseIDs()), suite.CaseIDs(), n)
	}
	if got := suite.Benchmark.Retrievers; strings.Join(got, ",") != "recall,search,fts5" {
		t.Errorf("default retrievers = %v", got)
	}
	// Uploaded bytes parse the same way, and a broken file names its question.
	if s, err := evals.ParseSuite("sample.json", body); err != nil || len(s.CaseIDs()) != 4 {
		t.Fatalf("ParseSuite = %v, %v", s, err)
	}
	bad := bytes.Replace(body, []byte(`"question_date": "2023/06/20 (Tue) 08:00"`), []byte(`"question_date": "soon"`), 1)
	if _, err := evals.ParseSuite("bad.json", bad); err == nil || !strings.Contains(err.Error(), "question 2 (q-update)") {
		t.Fatalf("error = %v, want one naming question 2 (q-update)", err)
	}
}

// runLME runs the sample benchmark with every retriever.
func runLME(t *testing.T) *evals.Report {
	t.Helper()
	suite, err := evals.LoadSuiteFile(lmeSample)
	if err != nil {
		t.Fatal(err)
	}
	st := MustOpenStore(t)
	rep, err := evals.RunSuite(context.Background(), evals.Deps{Memory: benchServices(st), Concurrency: 2}, suite)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() {
		t.Fatalf("the run failed:\n%s", rep)
	}
	if projects, _ := st.FindProjects(context.Background()); len(projects) != 0 {
		t.Fatalf("%d scratch projects left", len(projects))
	}
	return rep
}

// TestLongMemEvalBenchmark: each question is asked in its own scratch
// project as of its date; the report has the turn-level and the
// session-level tables, the knowledge-update and abstention rows, and two
// runs give the same figures.
func TestLongMemEvalBenchmark(t *testing.T) {
	rep := runLME(t)
	tbl := rep.Metrics.Benchmark
	if tbl == nil || tbl.Format != evals.FormatLongMemEval || tbl.Questions != 3 || tbl.LateEvidence != 1 || tbl.NoEvidence != 0 {
		t.Fatalf("table = %+v", tbl)
	}
	rows := map[string]evals.MetricRow{}
	for _, r := range tbl.Rows {
		rows["turn/"+r.Retriever+"/"+r.Category] = r
	}
	for _, r := range tbl.SessionRows {
		rows["session/"+r.Retriever+"/"+r.Category] = r
	}
	for _, key := range []string{"turn/recall/overall", "turn/search/overall", "turn/fts5/overall", "session/recall/overall", "turn/recall/knowledge-update", "session/fts5/multi-session"} {
		if rows[key].Questions == 0 {
			t.Errorf("no row %s", key)
		}
	}
	// The recall engine finds the beagle first, and both marathons.
	if r := rows["turn/recall/single-session-user"]; r.HitAt[0].Value != 1 {
		t.Errorf("recall single-session-user = %+v", r)
	}
	if r := rows["turn/recall/multi-session"]; r.AllAt[2].Value != 1 {
		t.Errorf("recall multi-session = %+v", r)
	}
	newest := map[string]evals.ShareRow{}
	for _, r := range tbl.NewestFirst {
		newest[r.Retriever] = r
	}
	if r := newest["recall"]; r.Questions != 1 || r.Share != 1 {
		t.Errorf("recall's newest answer session first = %+v", r)
	}
	if len(tbl.Abstention) != 3 || tbl.Abstention[0].Questions != 1 {
		t.Errorf("abstention rows = %+v", tbl.Abstention)
	}
	// Only recall says when it found no strong match: of the question
	// about a cat in a haystack that mentions a dog, it does.
	if m := tbl.NoStrongMatch; len(m) != 1 || m[0].Retriever != "recall" || m[0].Abstention != 1 || m[0].Flagged != 1 || m[0].Answerable != 3 {
		t.Errorf("no strong match rows = %+v", m)
	}
	text := rep.String()
	for _, want := range []string{"turn level (relevant: the answer turns)", "session level (relevant: the answer sessions)",
		"knowledge updates, newest answer session above the older ones: recall 1.000 of 1", "abstention (no answer in the haystack): recall 1 questions",
		"no strong match: recall says so of 1.000 of 1 abstention questions",
		"single-session-user", "removing scratch projects"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the report:\n%s", want, text)
		}
	}
	again := runLME(t)
	if !reflect.DeepEqual(rep.Metrics.Benchmark, again.Metrics.Benchmark) {
		t.Fatalf("two runs differ:\n%s\n%s", rep, again)
	}
	t.Logf("\n%s", text)
}

// TestLongMemEvalFile runs the benchmark on the LongMemEval file named by
// MNEMO_LONGMEMEVAL (.json or .json.gz) and prints the tables:
//
//	MNEMO_LONGMEMEVAL=/path/to/longmemeval-s-dev.json.gz go test ./evals -run TestLongMemEvalFile -v
func TestLongMemEvalFile(t *testing.T) {
	path := os.Getenv("MNEMO_LONGMEMEVAL")
	if path == "" {
		t.Skip("set MNEMO_LONGMEMEVAL to a LongMemEval file (e.g. longmemeval-s-dev.json.gz) to run the benchmark")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("LongMemEval file %s is not there: %v", path, err)
	}
	suite, err := evals.LoadSuiteFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := os.Getenv("MNEMO_LONGMEMEVAL_RETRIEVERS"); r != "" {
		suite.Benchmark.Retrievers = strings.Split(r, ",")
	}
	st := MustOpenStore(t)
	rep, err := evals.RunSuite(context.Background(), evals.Deps{Memory: benchServices(st), Concurrency: 2}, suite)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() {
		t.Errorf("the run failed")
	}
	t.Logf("\n%s", rep)
}

// TestLongMemEvalUpload: an uploaded LongMemEval file is kept beside its
// suite, whose body names it and lists its questions; a run reads it back,
// and a run queued before the file was replaced fails rather than measure
// another file.
func TestLongMemEvalUpload(t *testing.T) {
	ctx := context.Background()
	body, err := os.ReadFile(lmeSample)
	if err != nil {
		t.Fatal(err)
	}
	st := MustOpenStore(t)
	row, err := evals.Upload(ctx, st, "sample.json.gz", gzipped(t, body), "tester")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(row.Body, "stored: sha256:") || strings.Contains(row.Body, "beagle") {
		t.Fatalf("the suite body holds the file or does not name it:\n%s", row.Body)
	}
	if info := evals.Describe(row); info.Cases != 4 || info.Format != evals.FormatLongMemEval {
		t.Fatalf("suite = %+v", info)
	}
	stale, err := evals.Enqueue(ctx, st, row.ID, "tester")
	if err != nil {
		t.Fatal(err)
	}
	// The same name, another file: the queued run must not read it.
	changed := bytes.Replace(body, []byte("beagle"), []byte("poodle"), -1)
	if _, err := evals.Upload(ctx, st, "sample.json", changed, "tester"); err != nil {
		t.Fatal(err)
	}
	fresh, err := evals.Enqueue(ctx, st, row.ID, "tester")
	if err != nil {
		t.Fatal(err)
	}
	startRunner(t, newTestRunner(st, benchServices(st)))
	got := waitRun(t, st, stale.ID, "failed", func(r *evals.RunRow) bool { return r.Status == evals.RunFailed })
	if !strings.Contains(got.Error, "changed after the run was queued") {
		t.Fatalf("stale run error = %q", got.Error)
	}
	waitRun(t, st, fresh.ID, "done", func(r *evals.RunRow) bool { return r.Status == evals.RunDone })
	res, err := st.FindEvalResults(ctx, fresh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("the run of the stored file has no results")
	}
}
