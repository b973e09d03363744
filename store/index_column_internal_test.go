package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
)

// TestTermsColumnFilter: a search restricts its words to the index's
// terms column only when a word could also be a scope column's term
// ("s", hex pairs, "0": a subject's rows, or the project-wide ones as
// "s0"). A text holding such a word is found alone — not every row of the
// subject it names — and every other search, written without the filter,
// finds the same rows with the same bm25 scores as with it.
func TestTermsColumnFilter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := MustCreateProjectID(t, s, "filter")
	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	var events []*governance.Event
	for i, e := range []struct{ subject, text string }{
		{"ab", "the ab subject talks about the hotel"},       // scope s61620
		{"ab", "more about the museum tickets"},              // scope s61620
		{"", "project-wide note on the deploy checklist"},    // scope s0
		{"", "another project-wide line"},                    // scope s0
		{"cd", "a code named S61620 and a value s0 in text"}, // the scope-shaped words, in text
	} {
		events = append(events, &governance.Event{ID: fmt.Sprintf("c%d", i), SessionID: "s-" + e.subject, SubjectID: e.subject,
			Turn: 1, Role: governance.RoleUser, Text: e.text, OccurredAt: at})
	}
	events = append(events, seed.SyntheticEvents(600, 5)...)
	if _, err := s.IngestEvents(ctx, p, events); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{"s61620": {"c4"}, "S0": {"c4"}, "s0 hotel": {"c0", "c4"}} {
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p, Query: q, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Event.ID)
		}
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Errorf("%q: hits %v; want %v, the lines holding the words", q, ids, want)
		}
	}
	if got := inTerms("(x)", []string{"s61620"}); got != "terms: (x)" {
		t.Errorf("a scope-shaped term: %q", got)
	}
	// Without the filter: the same rows, the same scores, the same order.
	for _, q := range []string{"deploy", "午睡", "invoice report", "环球影城", "please plan fixed noted thanks 今天 天气"} {
		m := parseSearch(q).match([]int64{p}, nil)
		if m[:len("terms: ")] == "terms: " {
			t.Fatalf("%q: %s keeps the column filter", q, m)
		}
		type row struct {
			seq   int64
			score float64
		}
		read := func(match string) []row {
			var out []row
			err := queryAll(ctx, s.read, `SELECT rowid, rank FROM events_words WHERE events_words MATCH ? ORDER BY rank, rowid DESC`,
				[]any{match}, func(r scanner) error {
					var x row
					err := r.Scan(&x.seq, &x.score)
					out = append(out, x)
					return err
				})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		without, with := read(m), read("terms: "+m)
		if len(with) == 0 || !slices.Equal(without, with) {
			t.Errorf("%q: %d rows without the filter, %d with it, or their scores differ", q, len(without), len(with))
		}
	}
}
