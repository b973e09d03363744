package outcome_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
)

// TestDropSubjectCases: a subject's cases leave a regression suite, with
// their tasks; the other subjects' cases and the suite stay valid; a
// subject named inside another case's text is not mistaken for it.
func TestDropSubjectCases(t *testing.T) {
	body := ""
	for _, c := range []governance.RegressionCase{
		{ID: "outcome-1", ReviewID: 1, SubjectID: "family-chen", Task: "带女儿去上海", Exclude: 7},
		{ID: "outcome-2", ReviewID: 2, SubjectID: "family-li", Task: `family-chen's "nap"`, Exclude: 8},
		{ID: "outcome-3", ReviewID: 3, SubjectID: "family-chen", Task: "下午午睡", Exclude: 9},
	} {
		var err error
		if body, err = evals.AddRegressionCase(body, "travel", c); err != nil {
			t.Fatal(err)
		}
	}
	kept, tasks := outcome.DropSubjectCases(body, "family-chen")
	if strings.Join(tasks, "|") != "带女儿去上海|下午午睡" {
		t.Errorf("dropped tasks %q", tasks)
	}
	s, err := evals.ParseSuite("r.yaml", []byte(kept))
	if err != nil || len(s.Cases) != 1 || s.Cases[0].ID != "outcome-2" {
		t.Fatalf("after the drop: %v\n%s", err, kept)
	}
	if again, tasks := outcome.DropSubjectCases(kept, "family-chen"); again != kept || tasks != nil {
		t.Error("a second drop changed the body")
	}
}

// TestVariants: a text as written and escaped once and twice in JSON.
func TestVariants(t *testing.T) {
	got := outcome.Variants(`say "hi"`)
	want := []string{`say "hi"`, `say \"hi\"`, `say \\\"hi\\\"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Variants = %q, want %q", got, want)
	}
	if outcome.Variants(governance.RedactedText) != nil || len(outcome.Variants("午睡")) != 1 {
		t.Error("Variants of a redacted or plain text")
	}
}

// TestBatcher: concurrent requests are written together, each exactly
// once, and each caller gets its own item's error.
func TestBatcher(t *testing.T) {
	var b outcome.Batcher[int]
	var mu sync.Mutex
	written := map[int]int{}
	batches := 0
	write := func(items []int) ([]error, error) {
		mu.Lock()
		defer mu.Unlock()
		batches++
		errs := make([]error, len(items))
		for i, x := range items {
			written[x]++
			if x%7 == 0 {
				errs[i] = fmt.Errorf("item %d refused", x)
			}
		}
		time.Sleep(time.Millisecond) // a commit
		return errs, nil
	}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			err := b.Do(i, write)
			if (err != nil) != (i%7 == 0) || err != nil && err.Error() != fmt.Sprintf("item %d refused", i) {
				t.Errorf("item %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	for i := range 200 {
		if written[i] != 1 {
			t.Errorf("item %d written %d times", i, written[i])
		}
	}
	if batches >= 200 {
		t.Errorf("%d batches for 200 concurrent items: nothing was grouped", batches)
	}
	if err := b.Do(1000, func([]int) ([]error, error) { return nil, fmt.Errorf("disk full") }); err == nil || err.Error() != "disk full" {
		t.Errorf("a failed batch gives %v", err)
	}
}
