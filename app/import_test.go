package app_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

const importLines = `{"id":"i1","session_id":"s-imp","subject_id":"ann","turn":1,"role":"user","text":"Pack sunscreen","occurred_at":"2026-06-20T09:00:00Z"}
{"id":"i2","session_id":"s-imp","subject_id":"ann","turn":2,"role":"assistant","text":"Packed","occurred_at":"2026-06-20T09:01:00Z"}
`

func TestImportsTranscript(t *testing.T) {
	ctx := context.Background()
	opts := transcript.Options{Format: transcript.FormatMnemo, Name: "upload.jsonl"}
	for _, tc := range []struct {
		name      string
		actor     func(w *agentWorld) governance.Actor
		want      string
		wantAudit string
	}{
		{"TokenWithIngest", func(w *agentWorld) governance.Actor { return w.token(w.travel, governance.ScopeIngest) }, "", ""},
		{"TokenWithoutIngest", func(w *agentWorld) governance.Actor { return w.token(w.travel, governance.ScopeRecall) }, governance.EFORBIDDEN, ""},
		{"TokenOfAnotherProject", func(w *agentWorld) governance.Actor { return w.token(w.code, governance.ScopeIngest) }, governance.ENOTFOUND, ""},
		{"Admin", func(w *agentWorld) governance.Actor { return w.admin }, "", "account:root"},
		{"CLI", func(w *agentWorld) governance.Actor {
			return governance.AccountActor(&governance.Account{Username: "cli", IsAdmin: true})
		}, "", "cli"},
		{"Reviewer", func(w *agentWorld) governance.Actor { return w.reviewer }, governance.EFORBIDDEN, ""},
		{"Member", func(w *agentWorld) governance.Actor { return w.ann }, governance.EFORBIDDEN, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newAgentWorld(t)
			res, err := w.app.Imports.Transcript(ctx, tc.actor(w), w.travel.ID, strings.NewReader(importLines), opts)
			wantErrCode(t, err, tc.want)
			wantEvents := 3
			if err == nil {
				wantEvents = 5
				if res.Inserted != 2 {
					t.Fatalf("inserted %d, want 2", res.Inserted)
				}
			}
			if got := w.eventCount(t, w.travel); got != wantEvents {
				t.Fatalf("events = %d, want %d", got, wantEvents)
			}
			audit, _, err := w.st.FindAudit(ctx, governance.AuditFilter{Action: "events.import", Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantAudit == "" && len(audit) != 0:
				t.Fatalf("audit rows %+v, want none", audit)
			case tc.wantAudit != "" && (len(audit) != 1 || audit[0].Actor != tc.wantAudit):
				t.Fatalf("audit rows %+v, want one by %q", audit, tc.wantAudit)
			}
		})
	}

	t.Run("RejectedFileWritesNothing", func(t *testing.T) {
		w := newAgentWorld(t)
		bad := importLines + "{not json}\n"
		res, err := w.app.Imports.Transcript(ctx, w.admin, w.travel.ID, strings.NewReader(bad), opts)
		wantImportError(t, err)
		if res == nil || res.MalformedCount != 1 || res.Malformed[0].Line != 3 {
			t.Fatalf("result = %+v, want line 3 reported", res)
		}
		if got := w.eventCount(t, w.travel); got != 3 {
			t.Fatalf("events = %d after a rejected file, want 3", got)
		}
	})
}

func TestImportsMemory(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	token := w.token(w.travel, governance.ScopeIngest)
	lines := `{"kind":"user_preference","text":"Ann likes window seats","subject_id":"ann"}
{"kind":"fact","text":"The hotel is near the Bund"}
`
	t.Run("OK", func(t *testing.T) {
		res, err := w.app.Imports.Memory(ctx, token, w.travel.ID, lines)
		wantErrCode(t, err, "")
		if res.Inserted != 2 || !strings.HasPrefix(res.Session, "memory-import-") {
			t.Fatalf("result = %+v, want 2 memories", res)
		}
		again, err := w.app.Imports.Memory(ctx, token, w.travel.ID, lines)
		wantErrCode(t, err, "")
		if again.Inserted != 0 || again.Skipped != 2 {
			t.Fatalf("second import = %+v, want everything skipped", again)
		}
	})
	t.Run("RejectedWritesNothing", func(t *testing.T) {
		before := w.eventCount(t, w.travel)
		_, err := w.app.Imports.Memory(ctx, token, w.travel.ID, `{"kind":"fact","text":"fine"}`+"\n"+`{"kind":"wish","text":"x"}`)
		ie := wantImportError(t, err)
		if ie.Lines[0].Line != 2 {
			t.Fatalf("rejected lines = %+v, want line 2", ie.Lines)
		}
		if got := w.eventCount(t, w.travel); got != before {
			t.Fatalf("events = %d, want %d", got, before)
		}
	})
	t.Run("Authorization", func(t *testing.T) {
		_, err := w.app.Imports.Memory(ctx, w.token(w.travel, governance.ScopeRecall), w.travel.ID, lines)
		wantErrCode(t, err, governance.EFORBIDDEN)
		_, err = w.app.Imports.Memory(ctx, w.token(w.code, governance.ScopeIngest), w.travel.ID, lines)
		wantErrCode(t, err, governance.ENOTFOUND)
		_, err = w.app.Imports.Memory(ctx, w.reviewer, w.travel.ID, lines)
		wantErrCode(t, err, governance.EFORBIDDEN)
	})
}

func TestImportsProjectExport(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	var buf strings.Builder
	if _, err := w.app.Exports.JSONL(ctx, w.admin, "travel", nil, func(string) io.Writer { return &buf }); err != nil {
		t.Fatal(err)
	}
	_, _, err := w.app.Imports.ProjectExport(ctx, w.reviewer, strings.NewReader(buf.String()), "travel-copy")
	wantErrCode(t, err, governance.EFORBIDDEN)
	p, stats, err := w.app.Imports.ProjectExport(ctx, w.admin, strings.NewReader(buf.String()), "travel-copy")
	wantErrCode(t, err, "")
	if p.Slug != "travel-copy" || stats.Events != 3 {
		t.Fatalf("restored %+v with %+v, want travel-copy with 3 events", p, stats)
	}
	_, _, err = w.app.Imports.ProjectExport(ctx, w.admin, strings.NewReader(buf.String()), "Bad Slug")
	wantErrCode(t, err, governance.EINVALID)
}

func TestImportsUpload(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	upload := func(project, format, body string) app.UploadInput {
		return app.UploadInput{Project: project, Format: format, File: strings.NewReader(body), Name: "up.jsonl", Size: int64(len(body))}
	}
	t.Run("Authorization", func(t *testing.T) {
		for _, tc := range []actorCase{
			{"Reviewer", w.reviewer, governance.EFORBIDDEN},
			{"Member", w.ann, governance.EFORBIDDEN},
			{"Token", w.token(w.travel, governance.ScopeIngest), governance.EFORBIDDEN},
			{"Anonymous", governance.Actor{}, governance.EUNAUTHORIZED},
		} {
			_, _, err := w.app.Imports.Upload(ctx, tc.actor, upload(w.travel.Slug, "", importLines))
			if governance.ErrorCode(err) != tc.code {
				t.Fatalf("%s: error %v, want code %q", tc.name, err, tc.code)
			}
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		before := w.eventCount(t, w.travel)
		for _, tc := range []struct {
			name   string
			in     app.UploadInput
			fields []string
		}{
			{"NothingChosen", app.UploadInput{}, []string{"project", "file"}},
			{"UnknownProject", upload("nope", "", importLines), []string{"project"}},
			{"UnknownFormat", upload(w.travel.Slug, "word", importLines), []string{"format"}},
			{"EmptyFile", upload(w.travel.Slug, "", ""), []string{"file"}},
			{"NoEvents", upload(w.travel.Slug, "mnemo", "\n\n"), []string{"file"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, _, err := w.app.Imports.Upload(ctx, w.admin, tc.in)
				fe, ok := app.AsFieldErrors(err)
				if !ok || len(fe) != len(tc.fields) || governance.ErrorCode(err) != governance.EINVALID {
					t.Fatalf("error %v, want field errors on %v", err, tc.fields)
				}
				for _, f := range tc.fields {
					if fe[f].IsZero() {
						t.Fatalf("field errors %v, want one on %s", fe, f)
					}
				}
			})
		}
		_, _, err := w.app.Imports.Upload(ctx, w.admin, upload(w.travel.Slug, "mnemo", importLines+"not json\n"))
		wantImportError(t, err)
		if got := w.eventCount(t, w.travel); got != before {
			t.Fatalf("events = %d after refused uploads, want %d", got, before)
		}
	})
	t.Run("HappyPath", func(t *testing.T) {
		res, p, err := w.app.Imports.Upload(ctx, w.admin, upload(" "+w.travel.Slug, "auto", importLines))
		if err != nil || res.Inserted != 2 || p.ID != w.travel.ID {
			t.Fatalf("upload: %+v into %v, %v", res, p, err)
		}
	})
}
