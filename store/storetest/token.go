package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// TokenHash is the hex SHA-256 of a token secret, as auth.HashToken makes it.
func TokenHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// TestTokens: a token is created under the hash of its secret, found,
// touched, revoked (twice is a no-op) and audited; bad tokens are
// EINVALID, an unknown project or token ENOTFOUND.
func TestTokens(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	p := MustCreateProject(t, s, "travel")

	t.Run("CreateFindRevoke", func(t *testing.T) {
		tok := &governance.APIToken{ProjectID: p.ID, Name: " agent ", CreatedBy: "admin",
			Scopes: []governance.TokenScope{governance.ScopeRecall, governance.ScopeIngest, governance.ScopeRecall}}
		if err := s.CreateToken(ctx, tok, TokenHash("secret-1")); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindTokenByHash(ctx, TokenHash("secret-1"))
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != tok.ID || got.Name != "agent" || got.ProjectSlug != "travel" || len(got.Scopes) != 2 ||
			!got.Has(governance.ScopeIngest) || got.Has(governance.ScopeForget) || got.Revoked() {
			t.Fatalf("token = %+v", got)
		}
		if err := s.TouchToken(ctx, got); err != nil || got.LastUsedAt == nil {
			t.Fatalf("touch: %v, %v", err, got.LastUsedAt)
		}
		if err := s.RevokeToken(ctx, tok.ID, "admin"); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeToken(ctx, tok.ID, "admin"); err != nil {
			t.Fatalf("second revoke: %v", err)
		}
		got, _ = s.FindTokenByHash(ctx, TokenHash("secret-1"))
		if !got.Revoked() {
			t.Fatal("token not revoked")
		}
		live, _ := s.FindTokens(ctx, governance.TokenFilter{ProjectID: p.ID})
		all, _ := s.FindTokens(ctx, governance.TokenFilter{ProjectID: p.ID, IncludeRevoked: true})
		if len(live) != 0 || len(all) != 1 {
			t.Fatalf("live %d, all %d", len(live), len(all))
		}
		audit, _, err := s.FindAudit(ctx, governance.AuditFilter{ObjectType: "api_token"})
		if err != nil || len(audit) != 2 || audit[0].Action != "token.revoke" || audit[1].Action != "token.create" {
			t.Fatalf("audit = %+v, %v", audit, err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, tok := range []*governance.APIToken{
			{ProjectID: p.ID, Name: "", Scopes: []governance.TokenScope{governance.ScopeRecall}},
			{ProjectID: p.ID, Name: "x"},
			{ProjectID: p.ID, Name: "x", Scopes: []governance.TokenScope{"admin"}},
		} {
			if err := s.CreateToken(ctx, tok, TokenHash("x")); governance.ErrorCode(err) != governance.EINVALID {
				t.Errorf("%+v: err = %v", tok, err)
			}
		}
		err := s.CreateToken(ctx, &governance.APIToken{ProjectID: 999, Name: "x", Scopes: []governance.TokenScope{governance.ScopeRecall}}, TokenHash("y"))
		if governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("unknown project: err = %v", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.FindTokenByHash(ctx, TokenHash("nope")); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("err = %v", err)
		}
	})
}
