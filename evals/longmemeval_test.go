package evals_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
)

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
