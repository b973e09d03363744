package app_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

func TestSources(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	dir := t.TempDir()
	t.Run("Admin", func(t *testing.T) {
		src, err := w.app.Sources.Ensure(ctx, w.admin, app.SourceInput{Project: "travel", Dir: dir + "/", Format: "codex", SubjectID: "ann"})
		wantErrCode(t, err, "")
		if src.ID == 0 || src.Dir != dir || src.ProjectID != w.travel.ID {
			t.Fatalf("source = %+v, want an id, the travel project and the cleaned directory", src)
		}
		list, err := w.app.Sources.List(ctx, w.admin)
		wantErrCode(t, err, "")
		if len(list) != 1 || list[0].Project != "travel" || list[0].Format != "codex" || list[0].SubjectID != "ann" {
			t.Fatalf("sources = %+v", list)
		}
	})
	t.Run("NotAdmin", func(t *testing.T) {
		for _, actor := range []governance.Actor{w.reviewer, w.ann, w.token(w.travel, governance.ScopeIngest), {}} {
			_, err := w.app.Sources.List(ctx, actor)
			if code := governance.ErrorCode(err); code != governance.EFORBIDDEN && code != governance.EUNAUTHORIZED {
				t.Fatalf("%q lists sources: %v", actor.Name(), err)
			}
			_, err = w.app.Sources.Ensure(ctx, actor, app.SourceInput{Project: "travel", Dir: dir, Format: "codex"})
			if code := governance.ErrorCode(err); code != governance.EFORBIDDEN && code != governance.EUNAUTHORIZED {
				t.Fatalf("%q follows a directory: %v", actor.Name(), err)
			}
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		for _, tc := range []struct {
			in    app.SourceInput
			field string
		}{
			{app.SourceInput{Project: "travel", Dir: "relative/dir", Format: "codex"}, "dir"},
			{app.SourceInput{Project: "travel", Dir: filepath.Join(dir, "missing"), Format: "codex"}, "dir"},
			{app.SourceInput{Project: "travel", Dir: dir, Format: "word"}, "format"},
			{app.SourceInput{Project: "nope", Dir: dir, Format: "codex"}, "project"},
			{app.SourceInput{Dir: dir}, "project"},
		} {
			_, err := w.app.Sources.Ensure(ctx, w.admin, tc.in)
			wantErrCode(t, err, governance.EINVALID)
			fe, ok := app.AsFieldErrors(err)
			if !ok || len(fe) != 1 || fe[tc.field].IsZero() {
				t.Fatalf("%+v: errors %v, want one on %s", tc.in, err, tc.field)
			}
		}
		list, _ := w.app.Sources.List(ctx, w.admin)
		if len(list) != 1 {
			t.Fatalf("sources = %d after invalid requests, want 1", len(list))
		}
	})
}
