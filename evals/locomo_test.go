package evals_test

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
	"github.com/mnemo-console/mnemo/store"
)

func TestParseLoCoMo(t *testing.T) {
	f, err := os.Open("testdata/locomo-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	convs, err := evals.ParseLoCoMo(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].ID != "conv-a" || convs[1].ID != "42" {
		t.Fatalf("conversations = %d (%s, %s)", len(convs), convs[0].ID, convs[1].ID)
	}
	a := convs[0]
	if len(a.Sessions) != 2 || len(a.Sessions[0].Turns) != 6 || a.Sessions[0].At.Format("2006-01-02 15:04") != "2023-05-08 13:56" {
		t.Fatalf("sessions = %+v", a.Sessions[0])
	}
	if a.BadEvidence != 2 {
		t.Fatalf("bad evidence = %d, want 2 (D9:99 names no turn, X1 is malformed)", a.BadEvidence)
	}
	ev := map[string]string{}
	for _, q := range a.QA {
		ev[q.Question] = strings.Join(q.Evidence, ",")
	}
	for q, want := range map[string]string{
		"Where did Melanie go camping?":                         "D1:6", // "D1:06"
		"What did Caroline paint and what did the agency want?": "D2:1,D2:3",
		"What career is Caroline considering?":                  "",
		"Who painted the sunrise?":                              "D2:1",
		"What class did Caroline sign up for?":                  "D2:6", // adversarial_answer
	} {
		if ev[q] != want {
			t.Errorf("evidence of %q = %q, want %q", q, ev[q], want)
		}
	}
	if len(convs[1].Sessions[0].Turns) != 2 || convs[1].QA[1].Category != 4 || convs[1].QA[1].Evidence[0] != "D1:2" {
		t.Fatalf("conversation 42 = %+v %+v", convs[1].Sessions[0], convs[1].QA[1])
	}
	for name, body := range map[string]string{
		"NotJSON": "not json", "Empty": "[]", "NoConversation": `[{"sample_id":"x","qa":[]}]`,
	} {
		t.Run("Err"+name, func(t *testing.T) {
			if _, err := evals.ParseLoCoMo(strings.NewReader(body)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestLoCoMoBenchmark(t *testing.T) {
	ctx := context.Background()
	st := MustOpenStore(t)
	mem := benchServices(st)
	suite, err := evals.LoadSuiteFile("testdata/locomo-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	if suite.Name != "locomo-sample" || suite.Benchmark == nil {
		t.Fatalf("suite = %s", suite.Name)
	}
	rep, err := evals.RunSuite(ctx, evals.Deps{Memory: mem}, suite)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() {
		t.Fatalf("report failed:\n%s", rep)
	}
	tbl := rep.Metrics.Benchmark
	if tbl == nil || tbl.Questions != 10 || tbl.NoEvidence != 2 || tbl.BadEvidence != 2 || tbl.Turns != 14 {
		t.Fatalf("table = %+v", tbl)
	}
	rows := map[string]evals.MetricRow{}
	for _, r := range tbl.Rows {
		rows[r.Retriever+"/"+r.Category] = r
	}
	kw := rows["keywords/overall"]
	if kw.Questions != 10 || len(kw.HitAt) != 3 || kw.HitAt[0].K != 1 {
		t.Fatalf("keywords row = %+v", kw)
	}
	if kw.HitAt[2].Value < kw.HitAt[0].Value || kw.AllAt[2].Value > kw.HitAt[2].Value || kw.NDCG10 <= 0 {
		t.Fatalf("keywords metrics are inconsistent: %+v", kw)
	}
	if r := rows["recall/overall"]; r.Questions != 10 || r.NDCG10 <= 0 {
		t.Fatalf("recall row = %+v", r)
	}
	if _, ok := rows["search/5 adversarial"]; !ok {
		t.Fatalf("no per-category rows: %v", rows)
	}
	// Conversation 42: each question's keywords find its evidence turn first.
	for _, c := range rep.Cases {
		if c.CaseID != "42" {
			continue
		}
		for _, q := range c.Detail.Benchmark.Results["keywords"] {
			if q.Ranks[0] != 1 {
				t.Errorf("%q: rank %v, want 1", q.Question, q.Ranks)
			}
		}
	}
	// The scratch project is gone.
	projects, _ := st.FindProjects(ctx)
	if len(projects) != 0 {
		t.Fatalf("projects left: %d", len(projects))
	}
	t.Logf("\n%s", rep)
}

// TestLoCoMoDeterministic runs the benchmark twice on the sample and finds
// the same ranks for every retriever and question.
func TestLoCoMoDeterministic(t *testing.T) {
	ctx := context.Background()
	var runs [2]*evals.Report
	for i := range runs {
		st := MustOpenStore(t)
		suite, err := evals.LoadSuiteFile("testdata/locomo-sample.json")
		if err != nil {
			t.Fatal(err)
		}
		suite.Benchmark.K = []int{1, 5, 10, 100}
		suite.Benchmark.Retrievers = []string{evals.RetrieverSearch, evals.RetrieverKeywords, evals.RetrieverRecall, evals.RetrieverFTS5}
		if runs[i], err = evals.RunSuite(ctx, evals.Deps{Memory: benchServices(st), Concurrency: 2}, suite); err != nil {
			t.Fatal(err)
		}
		if runs[i].Failed() {
			t.Fatalf("run %d failed:\n%s", i+1, runs[i])
		}
	}
	a, b := runs[0], runs[1]
	if !reflect.DeepEqual(a.Metrics.Benchmark, b.Metrics.Benchmark) {
		t.Fatalf("tables differ:\n%s\n%s", a, b)
	}
	for i := range a.Cases {
		if !reflect.DeepEqual(a.Cases[i].Detail.Benchmark.Results, b.Cases[i].Detail.Benchmark.Results) {
			t.Fatalf("%s: ranks differ", a.Cases[i].CaseID)
		}
	}
	rows := map[string]evals.MetricRow{}
	for _, r := range a.Metrics.Benchmark.Rows {
		rows[r.Retriever+"/"+r.Category] = r
	}
	for _, r := range []string{"recall", "fts5"} {
		row := rows[r+"/overall"]
		if row.Questions != 10 || len(row.HitAt) != 4 || row.HitAt[3].K != 100 || row.HitAt[3].Value < row.HitAt[2].Value {
			t.Fatalf("%s row = %+v", r, row)
		}
	}
}

// TestLoCoMoFile runs the benchmark on the LoCoMo file named by
// MNEMO_LOCOMO (the recall engine beside the plain FTS5 baseline) and
// prints the table:
//
//	MNEMO_LOCOMO=/path/to/locomo-dev.json go test ./evals -run TestLoCoMoFile -v
func TestLoCoMoFile(t *testing.T) {
	path := os.Getenv("MNEMO_LOCOMO")
	if path == "" {
		t.Skip("set MNEMO_LOCOMO to a LoCoMo file (e.g. locomo-dev.json) to run the benchmark")
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("LoCoMo file %s is not there: %v", path, err)
	}
	suite, err := evals.LoadSuiteFile(path)
	if err != nil {
		t.Fatal(err)
	}
	suite.Benchmark.K = []int{1, 5, 10, 100}
	suite.Benchmark.Retrievers = []string{evals.RetrieverRecall, evals.RetrieverFTS5}
	if r := os.Getenv("MNEMO_LOCOMO_RETRIEVERS"); r != "" {
		suite.Benchmark.Retrievers = strings.Split(r, ",")
	}
	st := MustOpenStore(t)
	svc := benchServices(st)
	if os.Getenv("MNEMO_LOCOMO_EMBED") == "fake" {
		// The semantic channel against the in-process fake (hashed bags of
		// terms): a plumbing check, not a measure of a real model.
		fake := modeltest.NewEmbeddings(t)
		emb := model.New(model.Config{BaseURL: fake.URL(), APIKey: "test", Model: "fake-embed"}, nil)
		st.Embedder = emb
		svc.Store = embeddingStore{Store: st, emb: emb}
	}
	rep, err := evals.RunSuite(context.Background(), evals.Deps{Memory: svc, Concurrency: 2}, suite)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", rep)
}

// embeddingStore embeds every ingested batch at once (the heartbeat's
// backfill, run to the end), so recall's semantic channel sees it.
type embeddingStore struct {
	*store.Store
	emb governance.Embedder
}

func (s embeddingStore) IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error) {
	res, err := s.Store.IngestEvents(ctx, projectID, events)
	if err != nil {
		return nil, err
	}
	if _, err := consolidate.Backfill(ctx, s.Store, s.emb, projectID, 256, 1<<20); err != nil {
		return nil, err
	}
	return res, nil
}

// benchServices wires the store and its FTS5 baseline, as the console does.
func benchServices(st *store.Store) *evals.Services {
	return &evals.Services{Store: st}
}
