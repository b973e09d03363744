package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// MustCreateScratchProject creates a project flagged as an eval scratch
// project, as the eval runner does.
func MustCreateScratchProject(tb testing.TB, s *store.Store, slug string) *governance.Project {
	tb.Helper()
	p := &governance.Project{Slug: slug, Name: slug, Scratch: true}
	if err := s.CreateProject(context.Background(), p); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestDeleteScratchProject(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		s := MustOpenStore(t)
		p := MustCreateScratchProject(t, s, "eval-run-1")
		if got, err := s.FindProjectByID(ctx, p.ID); err != nil || !got.Scratch {
			t.Fatalf("scratch flag not stored: %+v, %v", got, err)
		}
		if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{ev("e1", "s1", 1, governance.RoleUser, "以后都住王府井附近")}); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteScratchProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FindProjectByID(ctx, p.ID); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("find after delete err = %v", err)
		}
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{Query: "王府井"})
		if err != nil || len(hits) != 0 {
			t.Fatalf("hits = %v, %v", hits, err)
		}
	})
	t.Run("ByPrefix", func(t *testing.T) {
		s := MustOpenStore(t)
		for _, slug := range []string{"eval-r1-a", "eval-r1-b", "eval-r12-a"} {
			MustCreateScratchProject(t, s, slug)
		}
		// Projects that were not created as scratch, whatever their slug.
		MustCreateProject(t, s, "eval-r1-team")
		MustCreateProject(t, s, "travel-agent")
		if err := s.DeleteScratchProjects(ctx, "eval-r1-"); err != nil {
			t.Fatal(err)
		}
		projects, err := s.FindProjects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range projects {
			got = append(got, p.Slug)
		}
		if want := "eval-r1-team,eval-r12-a,travel-agent"; strings.Join(got, ",") != want {
			t.Fatalf("projects = %v, want %s", got, want)
		}
		if err := s.DeleteScratchProjects(ctx, ""); governance.ErrorCode(err) != governance.EINVALID {
			t.Fatalf("empty prefix: err = %v", err)
		}
		if err := s.DeleteScratchProjects(ctx, "travel"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FindProjectBySlug(ctx, "travel-agent"); err != nil {
			t.Fatalf("a live project was deleted by prefix: %v", err)
		}
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		s := MustOpenStore(t)
		for _, slug := range []string{"travel-agent", "eval-team"} {
			p := MustCreateProject(t, s, slug)
			if err := s.DeleteScratchProject(ctx, p.ID); governance.ErrorCode(err) != governance.EFORBIDDEN {
				t.Fatalf("%s: err = %v", slug, err)
			}
		}
	})
}

// Ids are never handed out twice: after a scratch project (the newest
// project, rules, candidates and episodes) is deleted, new rows get new
// ids, so the audit rows of the scratch run never name a later object.
func TestIDsNotReusedAfterScratch(t *testing.T) {
	ctx := context.Background()
	d := MustLoadDemo(t)
	say := func(p *governance.Project, session, text string) {
		t.Helper()
		at := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
		if _, err := d.Store.IngestEvents(ctx, p.ID, []*governance.Event{
			{ID: session + "-1", SessionID: session, SubjectID: "family-chen", Turn: 1, Role: governance.RoleUser, Text: text, OccurredAt: at},
			{ID: session + "-end", SessionID: session, SubjectID: "family-chen", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Beat.Beat(ctx, "test"); err != nil {
			t.Fatal(err)
		}
	}
	top := func(table string) int64 {
		t.Helper()
		var id int64
		if err := d.Store.DB().QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM `+table).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	tables := []string{"projects", "rules", "candidates", "episodes"}
	scratch := MustCreateScratchProject(t, d.Store, "eval-run-9")
	say(scratch, "scratch-1", "以后订酒店都要选带浴缸的房间，孩子喜欢泡澡。")
	used := map[string]int64{}
	for _, tb := range tables {
		used[tb] = top(tb)
	}
	if rules, _, _ := d.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &scratch.ID}); len(rules) == 0 || rules[0].ID != used["rules"] {
		t.Fatalf("the scratch run made no rule at the top of the ids: %v", rules)
	}
	if err := d.Store.DeleteScratchProject(ctx, scratch.ID); err != nil {
		t.Fatal(err)
	}
	next := MustCreateProject(t, d.Store, "next-agent")
	say(next, "next-1", "以后订酒店都要选带浴缸的房间，孩子喜欢泡澡。")
	if next.ID <= used["projects"] {
		t.Errorf("new project id %d reuses the scratch project's %d", next.ID, used["projects"])
	}
	rules, _, err := d.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &next.ID})
	if err != nil || len(rules) == 0 {
		t.Fatalf("rules = %v, %v", rules, err)
	}
	if rules[0].ID <= used["rules"] {
		t.Errorf("new rule id %d reuses an id up to %d", rules[0].ID, used["rules"])
	}
	cands, _, _ := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: next.ID})
	eps, _, _ := d.Store.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: next.ID})
	if len(cands) == 0 || cands[0].ID <= used["candidates"] || len(eps) == 0 || eps[0].ID <= used["episodes"] {
		t.Errorf("new candidate/episode ids reuse scratch ids: %v %v (used %v)", cands, eps, used)
	}
}
