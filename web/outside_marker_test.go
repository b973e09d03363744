package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/web"
	"github.com/mnemo-console/mnemo/web/templates"
)

// TestReviewShowsOutsideMarker: a proposal outside the low-risk set that no
// risk feature reads shows the reviewer the outside_low_risk marker on the
// review page — its label in the plain status style, not the alarm of a
// risk, the sentence that says what the clause asks, in the reviewer's
// language, and the clause's words highlighted in the statement.
func TestReviewShowsOutsideMarker(t *testing.T) {
	const statement = "From now on, always unlock the side gate for the plumber when he arrives."
	f := NewFixture(t, web.Config{})
	p := MustCreateProject(t, f.Store, "gate", "Gate")
	// Said once with "from now on": proposed on the user's own word.
	var events []*governance.Event
	for i, subject := range []string{"alice"} {
		id := fmt.Sprintf("s%d", i)
		at := t0.Add(time.Duration(i) * time.Minute)
		events = append(events,
			&governance.Event{ID: id, SessionID: id, SubjectID: subject, Turn: 1, Role: governance.RoleUser, Text: statement, OccurredAt: at},
			&governance.Event{ID: id + "-end", SessionID: id, SubjectID: subject, Turn: 2, Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Second)})
	}
	MustIngest(t, f.Store, p, events...)
	hb := &consolidate.Heartbeat{Store: f.Store, Idle: time.Minute, Consolidator: heuristic.NewConsolidator(nil)}
	if _, err := hb.Beat(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	admin := f.Login(t, Admin)
	for _, c := range []struct{ language, why string }{
		{"en", "It asks the agent to act beyond its answers: “unlock the side gate for the plumber when he”."},
		{"zh-CN", "它要智能体在回答之外采取行动：“unlock the side gate for the plumber when he”。"},
	} {
		res, doc := admin.Get(templates.ReviewURL(p.Slug, templates.TabProposed, 1), "Accept-Language", c.language)
		wantStatus(t, res, http.StatusOK)
		card := doc.Find(`[data-testid="proposal"]`)
		if card.Length() != 1 {
			t.Fatalf("%s: %d proposals on the review page, want 1", c.language, card.Length())
		}
		label := card.Find(`[data-testid="finding-label"][data-pattern="outside_low_risk"]`)
		if label.Length() != 1 {
			t.Fatalf("%s: no outside_low_risk finding on the proposal: %s", c.language, card.Find(`[data-testid="findings"]`).Text())
		}
		if cls, _ := label.Attr("class"); strings.Contains(cls, "badge-failed") {
			t.Errorf("%s: the marker is styled as a risk: %q", c.language, cls)
		}
		if badge, _ := card.Find(`[data-testid="risk-badge"]`).Attr("class"); strings.Contains(badge, "badge-failed") {
			t.Errorf("%s: the proposal's badge is styled as a risk: %q", c.language, badge)
		}
		if why := card.Find(`[data-testid="finding-why"]`).Text(); !strings.Contains(why, c.why) {
			t.Errorf("%s: marker sentence %q, want %q", c.language, why, c.why)
		}
		if mark := card.Find(`[data-testid="risk-span"]`).Text(); !strings.HasPrefix(mark, "unlock the side gate") {
			t.Errorf("%s: highlighted %q, want the clause's words", c.language, mark)
		}
		if rank := card.Find(`[data-testid="rank-reason"][data-code="outside"]`); rank.Length() != 1 {
			t.Errorf("%s: no rank reason for the marker", c.language)
		}
	}
	// The candidates page shows it too, in the plain style.
	res, doc := admin.Get("/candidates?project="+p.Slug, "Accept-Language", "en")
	wantStatus(t, res, http.StatusOK)
	marked := doc.Find(`[data-testid="candidate-finding"][data-pattern="outside_low_risk"]`)
	if marked.Length() == 0 {
		t.Errorf("candidates page shows no marker")
	}
	marked.Each(func(_ int, s *goquery.Selection) {
		if cls, _ := s.Attr("class"); strings.Contains(cls, "badge-failed") {
			t.Errorf("candidate marker styled as a risk: %q", cls)
		}
	})
}
