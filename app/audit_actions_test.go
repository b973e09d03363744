package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

// TestFilesLeavingAreAudited: following a directory, downloading an agent
// or Hermes file, syncing the agent files and exporting memory through
// the agent API each leave an audit row naming who did it, the project and
// the files, and a subject only by its keyed reference.
func TestFilesLeavingAreAudited(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	w.mustRule(t, w.travel, "ann", "Ann wants an aisle seat")
	if _, err := w.app.Sources.Ensure(ctx, w.admin, app.SourceInput{Project: "travel", Dir: t.TempDir(), SubjectID: "ann"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Exports.AgentFile(ctx, w.reviewer, "travel", governance.AgentFileDownloadName("AGENTS.md"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.app.Exports.HermesFile(ctx, w.ann, "travel", governance.HermesUserName, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.app.Exports.AgentFiles(ctx, w.reviewer, "travel", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.app.Exports.Memory(ctx, w.token(w.travel, governance.ScopeExport), w.travel.ID, "ann"); err != nil {
		t.Fatal(err)
	}
	rows, _, err := w.st.FindAudit(ctx, governance.AuditFilter{ProjectIDs: []int64{w.travel.ID}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*governance.AuditEntry{}
	for _, r := range rows {
		got[r.Action+" by "+r.Actor] = r
		if strings.Contains(r.Details, `"ann"`) {
			t.Errorf("row %s names the subject in plain text: %s", r.Action, r.Details)
		}
	}
	for _, want := range []string{"source.follow by root", "agentfiles.download by rita", "agentfiles.download by ann",
		"agentfiles.sync by rita", "memory.export by token:41"} {
		if got[want] == nil {
			t.Errorf("no %q row; rows: %v", want, keysOf(got))
		}
	}
	if r := got["memory.export by token:41"]; r != nil && !strings.Contains(r.Details, `"subject":"subject:`) {
		t.Errorf("memory.export does not name its subject by reference: %s", r.Details)
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
