package app_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestSources(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	dir := t.TempDir()
	t.Run("Admin", func(t *testing.T) {
		src := &governance.FollowSource{ProjectID: w.travel.ID, Dir: dir + "/", Format: "codex"}
		wantErrCode(t, w.app.Sources.Ensure(ctx, w.admin, src), "")
		if src.ID == 0 || src.Dir != dir {
			t.Fatalf("source = %+v, want an id and the cleaned directory", src)
		}
		list, err := w.app.Sources.List(ctx, w.admin)
		wantErrCode(t, err, "")
		if len(list) != 1 || list[0].Project != "travel" || list[0].Format != "codex" {
			t.Fatalf("sources = %+v", list)
		}
	})
	t.Run("NotAdmin", func(t *testing.T) {
		for _, actor := range []governance.Actor{w.reviewer, w.ann, w.token(w.travel, governance.ScopeIngest), {}} {
			_, err := w.app.Sources.List(ctx, actor)
			if code := governance.ErrorCode(err); code != governance.EFORBIDDEN && code != governance.EUNAUTHORIZED {
				t.Fatalf("%s lists sources: %v", actor.Name(), err)
			}
			err = w.app.Sources.Ensure(ctx, actor, &governance.FollowSource{ProjectID: w.travel.ID, Dir: dir, Format: "codex"})
			if code := governance.ErrorCode(err); code != governance.EFORBIDDEN && code != governance.EUNAUTHORIZED {
				t.Fatalf("%s follows a directory: %v", actor.Name(), err)
			}
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		for _, src := range []*governance.FollowSource{
			{ProjectID: w.travel.ID, Dir: "relative/dir", Format: "codex"},
			{ProjectID: w.travel.ID, Dir: dir, Format: "hermes"},
			{ProjectID: w.travel.ID, Dir: dir, Format: "word"},
		} {
			wantErrCode(t, w.app.Sources.Ensure(ctx, w.admin, src), governance.EINVALID)
		}
		wantErrCode(t, w.app.Sources.Ensure(ctx, w.admin, &governance.FollowSource{ProjectID: 999, Dir: dir, Format: "codex"}), governance.ENOTFOUND)
		list, _ := w.app.Sources.List(ctx, w.admin)
		if len(list) != 1 {
			t.Fatalf("sources = %d after invalid requests, want 1", len(list))
		}
	})
}
