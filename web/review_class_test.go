package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
)

// The proposed tab is in rank order with the rank's reasons as chips; a
// reviewer rejects a proposal's class with a reason, the page lists the
// class with a Lift button, and lifting it empties the list. Both
// languages, CSRF on both forms.
func TestReviewRankAndClasses(t *testing.T) {
	f := NewGovFixture(t)
	rita := f.Login(t, GovReviewer)
	_, doc := rita.Get(travelQueue)
	var scores []float64
	doc.Find(testid("rank")).Each(func(_ int, s *goquery.Selection) {
		v, _ := strconv.ParseFloat(s.AttrOr("data-score", ""), 64)
		scores = append(scores, v)
	})
	if len(scores) < 2 {
		t.Fatalf("ranks shown = %d", len(scores))
	}
	for i := 1; i < len(scores); i++ {
		if scores[i] > scores[i-1] {
			t.Fatalf("proposals not in rank order: %v", scores)
		}
	}
	if n := doc.Find(testid("rank-reason")).Length(); n < len(scores) {
		t.Fatalf("rank reasons shown = %d", n)
	}
	if strings.Contains(doc.Find(testid("rank-reason")).Text(), "review.rank") {
		t.Fatal("a rank reason shows its catalog key")
	}

	nap := f.Rule(t, "午睡")
	form := url.Values{"back": {travelQueue}, "id": {strconv.FormatInt(nap.ID, 10)}, "class_reason": {string(governance.ClassOneOff)}}
	res, _ := rita.PostForm(travelQueue, travelQueue+"/classes", form)
	wantRedirect(t, res, travelQueue)
	if r := f.Reload(t, nap.ID); r.Status != governance.RuleRejected {
		t.Fatalf("the class's proposal is %s", r.Status)
	}
	_, doc = rita.Get(travelQueue)
	item := doc.Find(testid("rejected-class"))
	if item.Length() != 1 || !strings.Contains(item.Find(testid("rejected-class-reason")).Text(), "one-off") {
		t.Fatalf("rejected classes = %q", item.Text())
	}
	if _, ok := item.Find(`input[name="csrf"]`).Attr("value"); !ok {
		t.Fatal("the lift form has no CSRF token")
	}
	id := item.AttrOr("data-class", "")
	res, _ = rita.PostForm(travelQueue, travelQueue+"/classes/"+id+"/lift", url.Values{"back": {travelQueue}})
	wantRedirect(t, res, travelQueue)
	_, doc = rita.Get(travelQueue)
	if doc.Find(testid("rejected-class")).Length() != 0 {
		t.Fatal("a lifted class is still listed")
	}
	res, _ = rita.PostForm(travelQueue, travelQueue+"/classes/"+id+"/lift", url.Values{"back": {travelQueue}})
	if res.StatusCode == http.StatusSeeOther || res.StatusCode == http.StatusOK {
		t.Fatalf("lifting twice = %d", res.StatusCode)
	}
}
