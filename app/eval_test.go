package app_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
)

const scratchSuite = `name: app-scratch
project: travel
subject: family-chen
fixtures:
  sessions:
    - id: bj
      events:
        - text: 孩子每天下午两点到四点要午睡。
cases:
  - id: nap
    kind: recall
    task: 带女儿去上海玩两天。
    include: [{regex: "午睡"}]
`

const liveSuite = `name: app-live
project: expense-agent
fixtures: {use_live_project: true}
cases:
  - {id: c, kind: recall, task: 报销, include: ["200"]}
`

func upload(name, body string) app.UploadFunc {
	return func() (string, []byte, error) {
		if body == "" {
			return "", nil, nil
		}
		return name, []byte(body), nil
	}
}

// uploadFile is upload for a file the use case streams.
func uploadFile(name, body string) app.FileFunc {
	return func() (string, func() (io.ReadCloser, error), error) {
		if body == "" {
			return "", nil, nil
		}
		return name, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }, nil
	}
}

func problemsOf(err error) []string {
	var sp *app.SuiteProblems
	if errors.As(err, &sp) {
		return sp.Problems
	}
	return nil
}

func TestEvals(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	nonReviewers := outcomes{MemberLi: eforbidden, MemberWang: eforbidden, TokenForget: eforbidden, Anonymous: eforbidden}
	admin, rita, eve := f.Actors[Admin], f.Actors[TravelReviewer], f.Actors[ExpenseReviewer]

	scratch, err := f.App.Evals.Upload(ctx, rita, upload("app-scratch.yaml", scratchSuite))
	if err != nil {
		t.Fatal(err)
	}
	live, err := f.App.Evals.Upload(ctx, admin, upload("app-live.yaml", liveSuite))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Authorization", func(t *testing.T) {
		read := false
		f.check(t, nonReviewers, func(actor governance.Actor) error {
			_, err := f.App.Evals.Upload(ctx, actor, func() (string, []byte, error) {
				read = true
				return "x.yaml", []byte(scratchSuite), nil
			})
			return err
		})
		if read {
			t.Fatal("an upload was read before its sender was authorized")
		}
		f.check(t, nonReviewers, func(actor governance.Actor) error { return f.App.Evals.Allowed(actor) })
		f.check(t, nonReviewers, func(actor governance.Actor) error {
			_, err := f.App.Evals.Index(ctx, actor, 20)
			return err
		})
		f.check(t, nonReviewers, func(actor governance.Actor) error {
			_, err := f.App.Evals.Enqueue(ctx, actor, scratch.ID)
			return err
		})
		// A suite over a live project: its reviewers and admins only.
		f.check(t, outcomes{Admin: "", ExpenseReviewer: "", TravelReviewer: eforbidden, MemberLi: eforbidden},
			func(actor governance.Actor) error {
				_, err := f.App.Evals.Suite(ctx, actor, live.ID, 10)
				return err
			})
		ix, err := f.App.Evals.Index(ctx, rita, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ix.Suites {
			if s.ID == live.ID {
				t.Fatal("the travel reviewer lists a suite over the expense project")
			}
		}
		_, err = f.App.Evals.Upload(ctx, rita, upload("app-live.yaml", liveSuite))
		if p := problemsOf(err); len(p) != 1 || !strings.Contains(p[0], "live projects you do not review: expense-agent") {
			t.Fatalf("upload of a live suite by another project's reviewer: %v", err)
		}
	})

	t.Run("UploadProblems", func(t *testing.T) {
		_, err := f.App.Evals.Upload(ctx, rita, upload("", ""))
		if p := problemsOf(err); len(p) != 1 {
			t.Fatalf("empty upload: %v", err)
		}
		_, err = f.App.Evals.Upload(ctx, rita, upload("broken.yaml", strings.Replace(scratchSuite, "include:", "includ:", 1)))
		if p := problemsOf(err); len(p) == 0 || !strings.Contains(p[0], "broken.yaml") {
			t.Fatalf("invalid upload: %v", err)
		}
		_, err = f.App.Evals.UploadBenchmark(ctx, rita, uploadFile("app-scratch.yaml", scratchSuite))
		if p := problemsOf(err); len(p) != 1 || !strings.Contains(p[0], "not a benchmark") {
			t.Fatalf("a suite as a benchmark: %v", err)
		}
	})

	t.Run("Runs", func(t *testing.T) {
		first, err := f.App.Evals.Enqueue(ctx, rita, scratch.ID)
		if err != nil {
			t.Fatal(err)
		}
		second, err := f.App.Evals.Enqueue(ctx, rita, scratch.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.App.Evals.Enqueue(ctx, rita, live.ID)
		wantCode(t, "live suite", err, eforbidden)

		d, err := f.App.Evals.Run(ctx, rita, first.ID)
		if err != nil || d.Run.ID != first.ID || d.Report == nil || d.Run.Status != evals.RunQueued {
			t.Fatalf("run = %+v, %v", d, err)
		}
		f.check(t, outcomes{MemberLi: eforbidden, ExpenseReviewer: "", Admin: ""}, func(actor governance.Actor) error {
			_, err := f.App.Evals.Run(ctx, actor, first.ID)
			return err
		})
		_, err = f.App.Evals.Run(ctx, rita, 999999)
		wantCode(t, "unknown run", err, enotfound)

		h, err := f.App.Evals.Suite(ctx, rita, scratch.ID, 10)
		if err != nil || len(h.Runs) != 2 {
			t.Fatalf("history = %+v, %v", h, err)
		}
		ix, err := f.App.Evals.Index(ctx, rita, 20)
		if err != nil || ix.Last[scratch.ID] == nil || ix.Last[scratch.ID].ID != second.ID || len(ix.Recent) != 2 {
			t.Fatalf("index = %+v, %v", ix, err)
		}

		cmp, err := f.App.Evals.Compare(ctx, rita, first.ID, second.ID)
		if err != nil || cmp.A.ID != first.ID || cmp.B.ID != second.ID || cmp.Change == nil {
			t.Fatalf("compare = %+v, %v", cmp, err)
		}
		_, err = f.App.Evals.Compare(ctx, rita, 0, second.ID)
		wantCode(t, "no run to compare", err, einvalid)
		_, err = f.App.Evals.Compare(ctx, f.Actors[MemberLi], 0, 0)
		wantCode(t, "member compares", err, eforbidden)

		_, err = f.App.Evals.Cancel(ctx, f.Actors[MemberLi], first.ID)
		wantCode(t, "member cancels", err, eforbidden)
		if _, err := f.App.Evals.Cancel(ctx, rita, first.ID); err != nil {
			t.Fatal(err)
		}
		d, err = f.App.Evals.Run(ctx, rita, first.ID)
		if err != nil || d.Run.Status != evals.RunCancelled {
			t.Fatalf("after cancel: %+v, %v", d.Run, err)
		}
	})

	t.Run("Benchmarks", func(t *testing.T) {
		f.check(t, nonReviewers, func(actor governance.Actor) error {
			_, err := f.App.Evals.Benchmarks(ctx, actor)
			return err
		})
		data, err := os.ReadFile("../evals/testdata/locomo-sample.json")
		if err != nil {
			t.Fatal(err)
		}
		f.check(t, nonReviewers, func(actor governance.Actor) error {
			_, err := f.App.Evals.UploadBenchmark(ctx, actor, uploadFile("locomo.json", string(data)))
			return err
		})
		run, err := f.App.Evals.UploadBenchmark(ctx, eve, uploadFile("locomo.json", string(data)))
		if err != nil {
			t.Fatal(err)
		}
		list, err := f.App.Evals.Benchmarks(ctx, eve)
		if err != nil || len(list) != 1 || list[0].Last == nil || list[0].Last.ID != run.ID || list[0].LastDone != nil {
			t.Fatalf("benchmarks = %+v, %v", list, err)
		}
	})
}
