package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/internal/testrace"
	"github.com/mnemo-console/mnemo/seed"
)

// TestSearchInTheIndexAlone: a search whose filter is its index query
// (project, subject, words) is counted and ranked in the word index alone;
// it returns what the same search joined to the events returns (here forced
// by a condition every event meets): the same total and the same hits in the
// same order, by relevance past and below the rank window's threshold
// (maxSearchCount matches), newest first, on later pages, and within a
// subject.
func TestSearchInTheIndexAlone(t *testing.T) {
	testrace.Skip(t, "1,500 events and their rank windows take minutes under -race; the search holds no shared state")
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "synthetic")
	other := MustCreateProject(t, s, "other")
	events := seed.SyntheticEvents(1500, 11)
	if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	// Another project's events hold the same words and must never count.
	if _, err := s.IngestEvents(ctx, other.ID, seed.SyntheticEvents(300, 12)); err != nil {
		t.Fatal(err)
	}
	var zero int64
	subject := events[0].SubjectID
	sawWindow := false
	for _, q := range []string{"deploy", "午睡", "invoice report", "zebraquokka",
		"please plan fixed noted thanks welcome skip tests 今天 天气 好的 帮我 初稿 是的"} {
		for _, f := range []governance.EventFilter{
			{ProjectID: &p.ID, Query: q, Limit: 20},
			{ProjectID: &p.ID, Query: q, Limit: 20, Offset: 20},
			{ProjectID: &p.ID, Query: q, Limit: 20, Order: governance.SearchNewest},
			{ProjectID: &p.ID, Query: q, Limit: 20, Order: governance.SearchNewest, Offset: 40},
			{ProjectID: &p.ID, SubjectID: &subject, Query: q, Limit: 10},
			{ProjectIDs: []int64{p.ID, other.ID}, Query: q, Limit: 20},
		} {
			name := fmt.Sprintf("%q order=%q offset=%d subject=%v projects=%v", q, f.Order, f.Offset, f.SubjectID != nil, f.ProjectIDs)
			hits, total, err := s.SearchEvents(ctx, f)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			joined := f
			joined.AfterSeq = &zero // a condition on the events: the joined search
			want, wantTotal, err := s.SearchEvents(ctx, joined)
			if err != nil {
				t.Fatalf("%s joined: %v", name, err)
			}
			if total != wantTotal || len(hits) != len(want) {
				t.Fatalf("%s: %d hits of %d; joined to the events %d of %d", name, len(hits), total, len(want), wantTotal)
			}
			for i := range hits {
				if hits[i].Event.Seq != want[i].Event.Seq || hits[i].Event.Text != want[i].Event.Text ||
					fmt.Sprint(hits[i].Fragments) != fmt.Sprint(want[i].Fragments) {
					t.Fatalf("%s: hit %d is event %d, joined to the events %d", name, i, hits[i].Event.Seq, want[i].Event.Seq)
				}
			}
			if total > 1000 && f.Order != governance.SearchNewest {
				sawWindow = true
			}
		}
	}
	if !sawWindow {
		t.Fatal("no query matched more than 1,000 events: the rank window was not compared")
	}
}
