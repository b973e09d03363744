package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// TestAPIInvalidUTF8 : encoding/json silently replaces invalid UTF-8 inside a
// string with U+FFFD, so two different ids could collide. The body is
// checked before decoding and the item is named.
func TestAPIInvalidUTF8(t *testing.T) {
	f := NewFixture(t, web.Config{})
	ingest := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeIngest)
	recall := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	before := eventCount(t, f.Store, f.Travel.ID)

	item := func(id string) string {
		return `{"id":"` + id + `","session_id":"u8","turn":1,"role":"user","text":"hi","occurred_at":"2026-07-01T10:00:00Z"}`
	}
	body := "[" + item("ok-1") + "," + item("x\xff") + "," + item("x\xfe") + "]"
	var e apiErr
	res := apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", ingest, "application/json", []byte(body), &e)
	if res.StatusCode != http.StatusBadRequest || len(e.Items) != 2 || e.Items[0].Line != 2 || e.Items[1].Line != 3 ||
		!strings.Contains(strings.Join(e.Items[0].Problems, ";"), "UTF-8") {
		t.Fatalf("status %d, body %+v; want items 2 and 3 named as invalid UTF-8", res.StatusCode, e)
	}
	if n := eventCount(t, f.Store, f.Travel.ID); n != before {
		t.Fatalf("%d events written by a rejected batch", n-before)
	}

	e = apiErr{}
	res = apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/recall", recall, "application/json",
		[]byte("{\"task\":\"trip \xff to Beijing\",\"subject_id\":\"family-li\"}"), &e)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(e.Message, "UTF-8") {
		t.Fatalf("recall with invalid UTF-8: status %d, %+v", res.StatusCode, e)
	}

	e = apiErr{}
	body = "[" + strings.Replace(item("ansi"), `"u8"`, `"s\u001b[31m"`, 1) + "]"
	res = apiCall(t, f.Server.URL, http.MethodPost, "/api/v1/events", ingest, "application/json", []byte(body), &e)
	if res.StatusCode != http.StatusBadRequest || len(e.Items) != 1 || !strings.Contains(strings.Join(e.Items[0].Problems, ";"), "session_id") {
		t.Fatalf("ANSI escape in session_id: status %d, %+v", res.StatusCode, e)
	}
}

// TestFormHygiene: a form value with invalid UTF-8 or a control character
// is refused with the field named, before any handler acts on it.
func TestFormHygiene(t *testing.T) {
	f := NewFixture(t, web.Config{})
	c := f.Login(t, TravelReviewer)
	for _, task := range []string{"trip\xffto Beijing", "trip\x00to Beijing", "trip\x1b[2J"} {
		res, doc := c.PostForm("/recall", "/recall", url.Values{"project": {"travel-agent"}, "subject": {"family-li"}, "task": {task}})
		if res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("task %q: status %d, want 400 or 422", task, res.StatusCode)
		}
		if !strings.Contains(doc.Text(), "task") {
			t.Fatalf("task %q: the field is not named: %.300s", task, doc.Text())
		}
	}
}
