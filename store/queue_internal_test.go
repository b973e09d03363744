package store

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueueOpsAreConstants: every turn of a queue is named where it is
// taken, by a string constant or a parameter passed one (never a value
// computed from an argument), so the metrics' op label is a bounded set.
func TestQueueOpsAreConstants(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// The functions that take a turn for their op argument, and where.
	named := map[string]int{"lockWriter": 1, "begin": 1, "beginTx": 1, "exec": 1, "heavyRead": 1, "acquire": 3,
		"withQueueOp": 1, "forget": 1, "forgetRules": 1, "ingest": 1, "importStream": 1, "rechainLegacySubject": 1,
		"truncateWAL": 1, "checkpointAfterForget": 1}
	calls := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			i, ok := named[sel.Sel.Name]
			if !ok || len(call.Args) <= i {
				return true
			}
			calls++
			switch a := call.Args[i].(type) {
			case *ast.BasicLit:
				if a.Kind == token.STRING {
					return true
				}
			case *ast.Ident:
				if a.Name == "op" { // the caller's own op parameter
					return true
				}
			}
			t.Errorf("%s: %s names its queue turn by %T, not a string constant", fset.Position(call.Pos()), sel.Sel.Name, call.Args[i])
			return true
		})
	}
	if calls < 50 {
		t.Errorf("found %d calls that name a queue turn: the list of functions is out of date", calls)
	}
}

// TestWithQueueOp: the outermost name wins.
func TestWithQueueOp(t *testing.T) {
	ctx := withQueueOp(withQueueOp(context.Background(), "Recall"), "LoadRecallInput")
	if got, _ := ctx.Value(queueOpKey{}).(string); got != "Recall" {
		t.Fatalf("op = %q, want Recall", got)
	}
}
