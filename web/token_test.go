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
		res, doc := admin.PostForm("/admin/tokens", "/admin/tokens", url.Values{
			"project": {"travel-agent"}, "name": {"planner"}, "scope": {"recall", "ingest"}})
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
		res, _ := admin.PostForm("/admin/tokens", fmt.Sprintf("/admin/tokens/%d/revoke", tokens[0].ID), url.Values{})
		wantStatus(t, res, http.StatusSeeOther)
		_, doc := admin.Get("/admin/tokens")
		if doc.Find(testid("token-revoked")).Length() != 1 {
			t.Error("token not shown as revoked")
		}
		wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/rules", secret, "", nil, nil), http.StatusUnauthorized)
		audit, _, _ := f.Store.FindAudit(context.Background(), governance.AuditFilter{ObjectType: "api_token"})
		if len(audit) != 2 || audit[0].Actor != Admin {
			t.Errorf("audit = %+v", audit)
		}
	})
	t.Run("CSRF", func(t *testing.T) {
		res, _ := admin.PostRaw("/admin/tokens", url.Values{"project": {"travel-agent"}, "name": {"x"}, "scope": {"recall"}})
		wantStatus(t, res, http.StatusForbidden)
	})
}
