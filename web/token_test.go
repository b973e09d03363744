package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

func TestTokenAdmin(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)

	t.Run("OnlyAdmins", func(t *testing.T) {
		res, _ := f.Login(t, TravelReviewer).Get("/admin/tokens")
		wantStatus(t, res, http.StatusForbidden)
	})
	var secret string
	t.Run("CreateShownOnce", func(t *testing.T) {
		// POST/Redirect/GET: the POST answers 303 and never carries the secret.
		res, doc := admin.PostForm("/admin/tokens", "/admin/tokens", url.Values{
			"project": {"travel-agent"}, "name": {"planner"}, "scope": {"recall", "ingest"}})
		wantStatus(t, res, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != "/admin/tokens" {
			t.Fatalf("Location = %q", loc)
		}
		if doc.Find(testid("token-secret")).Length() != 0 {
			t.Fatal("the POST response shows the secret")
		}
		// The GET it redirects to shows it once, not cached.
		res, doc = admin.Get("/admin/tokens")
		wantStatus(t, res, http.StatusOK)
		secret = strings.TrimSpace(doc.Find(testid("token-secret")).Text())
		if !strings.HasPrefix(secret, "mnemo_") || len(secret) < 30 {
			t.Fatalf("secret = %q", secret)
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control = %q", res.Header.Get("Cache-Control"))
		}
		if got := texts(doc.Find(testid("token-row-scopes"))); len(got) != 1 || got[0] != "ingest, recall" {
			t.Errorf("scopes = %v", got)
		}
		// A refresh no longer shows it.
		_, doc = admin.Get("/admin/tokens")
		if doc.Find(testid("token-secret")).Length() != 0 || strings.Contains(doc.Text(), secret) {
			t.Error("the secret is shown again")
		}
		var stored string
		if err := f.Store.DB().QueryRowContext(context.Background(), `SELECT token_hash FROM api_tokens`).Scan(&stored); err != nil || strings.Contains(stored, secret) {
			t.Errorf("stored %q, %v", stored, err)
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", secret, "", nil, nil), http.StatusOK)
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		res, doc := admin.PostForm("/admin/tokens", "/admin/tokens", url.Values{"project": {"nope"}, "name": {""}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		for _, id := range []string{"error-project", "error-name", "error-scope"} {
			if doc.Find(testid(id)).Length() != 1 {
				t.Errorf("no %s", id)
			}
		}
	})
	t.Run("Revoke", func(t *testing.T) {
		tokens, err := f.Store.FindTokens(context.Background(), governance.TokenFilter{})
		if err != nil || len(tokens) != 1 {
			t.Fatalf("tokens = %v, %v", tokens, err)
		}
		revoke := fmt.Sprintf("/admin/tokens/%d/revoke", tokens[0].ID)
		// The list links to a confirmation page; it revokes nothing.
		_, doc := admin.Get("/admin/tokens")
		if href, _ := doc.Find(testid("token-revoke")).Attr("href"); href != revoke {
			t.Fatalf("revoke link = %q", href)
		}
		res, doc := admin.Get(revoke)
		wantStatus(t, res, http.StatusOK)
		if doc.Find(testid("token-revoke-form")+` input[name="confirm"][value="yes"]`).Length() != 1 {
			t.Fatal("no confirmation form")
		}
		// A POST without the confirmation revokes nothing.
		res, _ = admin.PostForm("/admin/tokens", revoke, url.Values{})
		wantStatus(t, res, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != revoke {
			t.Fatalf("unconfirmed revoke went to %q", loc)
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", secret, "", nil, nil), http.StatusOK)
		res, _ = admin.PostForm(revoke, revoke, url.Values{"confirm": {"yes"}})
		wantStatus(t, res, http.StatusSeeOther)
		_, doc = admin.Get("/admin/tokens")
		if doc.Find(testid("token-revoked")).Length() != 1 {
			t.Error("token not shown as revoked")
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", secret, "", nil, nil), http.StatusUnauthorized)
		audit, _, _ := f.Store.FindAudit(context.Background(), governance.AuditFilter{ObjectType: "api_token"})
		if len(audit) != 2 || audit[0].Actor != Admin {
			t.Errorf("audit = %+v", audit)
		}
	})
	t.Run("Chinese", func(t *testing.T) {
		_, doc := admin.Get("/admin/tokens", "Accept-Language", "zh-CN")
		if got := doc.Find("h1").Text(); got != "API 令牌" {
			t.Errorf("h1 = %q", got)
		}
		if got := doc.Find(testid("token-scopes") + " .scope-help").First().Text(); got != "发送事件" {
			t.Errorf("scope help = %q", got)
		}
		// A field error with a value, said in Chinese with it.
		values := url.Values{"project": {"travel-agent"}, "name": {strings.Repeat("n", governance.MaxTokenNameBytes+1)},
			"scope": {"recall"}, "csrf": {admin.CSRF("/admin/tokens")}}
		res, body := admin.Do(http.MethodPost, "/admin/tokens", strings.NewReader(values.Encode()), http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"}, "Accept-Language": {"zh-CN"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if got, want := parse(t, body).Find(testid("error-name")).Text(), fmt.Sprintf("最多 %d 字节。", governance.MaxTokenNameBytes); got != want {
			t.Errorf("name error = %q, want %q", got, want)
		}
	})
	t.Run("CSRF", func(t *testing.T) {
		res, _ := admin.PostRaw("/admin/tokens", url.Values{"project": {"travel-agent"}, "name": {"x"}, "scope": {"recall"}})
		wantStatus(t, res, http.StatusForbidden)
	})
}
