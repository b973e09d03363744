package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// markerMasker is the gate's masker that also masks one marker word: a
// read path that hands the word out did not go through the read seam.
type markerMasker struct{ word string }

func (m markerMasker) hide(s string) string { return strings.ReplaceAll(s, m.word, "[masked]") }
func (m markerMasker) Withhold(text string, authority bool) (string, bool) {
	out, withheld := gate.Masking.Withhold(text, authority)
	return m.hide(out), withheld
}
func (m markerMasker) Mask(text string) string       { return m.hide(gate.Masking.Mask(text)) }
func (m markerMasker) Neutralise(text string) string { return m.hide(gate.Masking.Neutralise(text)) }

// TestReads_ThroughMasker: recall (rules and raw events), search for an
// agent, the Hermes files, the agent files and MCP's export_memory hand
// stored text out through governance.ReadMasker only.
func TestReads_ThroughMasker(t *testing.T) {
	ctx := context.Background()
	w := newAgentWorld(t)
	w.mustRule(t, w.travel, "ann", "Ann prefers the aquarium in the morning")
	w.mustRule(t, w.travel, "", "Trips to the aquarium start on a weekday")
	// Recall once with the gate alone, so a remembered answer of the gate
	// is in place when the masker changes.
	if _, err := w.app.Recalls.Recall(ctx, w.ann, governance.RecallRequest{Task: "plan the aquarium visit", ProjectID: w.travel.ID, SubjectID: "ann", IncludeEvents: true}); err != nil {
		t.Fatal(err)
	}
	defer governance.SetReadMasker(markerMasker{"aquarium"})()
	leaks := func(where, text string) {
		t.Helper()
		if strings.Contains(text, "aquarium") {
			t.Errorf("%s bypasses the read masker: %q", where, text)
		}
	}

	pkg, err := w.app.Recalls.Recall(ctx, w.ann, governance.RecallRequest{Task: "plan the aquarium visit", ProjectID: w.travel.ID, SubjectID: "ann", IncludeEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Items) == 0 {
		t.Fatal("recall returned nothing")
	}
	for _, it := range pkg.Items {
		leaks("recall item "+it.ID, it.Text)
	}
	leaks("the recall context", pkg.Text)

	hits, _, err := w.app.Events.Search(ctx, w.token(w.travel, governance.ScopeRecall), app.SearchInput{Project: "travel", Query: "aquarium", Agent: true, Page: app.Page{Number: 1, Size: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("search found nothing")
	}
	for _, h := range hits {
		leaks("search hit "+h.Event.ID, h.Event.Text)
		for _, f := range h.Fragments {
			leaks("search fragment of "+h.Event.ID, f.Text)
		}
	}

	for _, name := range []string{governance.HermesMemoryName, governance.HermesUserName} {
		f, err := w.app.Exports.HermesFile(ctx, w.admin, "travel", name, "ann")
		if err != nil {
			t.Fatal(err)
		}
		leaks(name, f.Text)
	}
	files, _, err := w.app.Exports.AgentFiles(ctx, w.admin, "travel", "ann")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		leaks("agent file "+f.Path, f.Block)
	}
	text, _, err := w.app.Exports.Memory(ctx, w.admin, w.travel.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	leaks("export_memory", text)
}
