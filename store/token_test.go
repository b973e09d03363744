package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func tokenHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func TestToken(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")

	t.Run("CreateFindRevoke", func(t *testing.T) {
		tok := &governance.APIToken{ProjectID: p.ID, Name: " agent ", CreatedBy: "admin",
			Scopes: []governance.TokenScope{governance.ScopeRecall, governance.ScopeIngest, governance.ScopeRecall}}
		if err := s.CreateToken(ctx, tok, tokenHash("secret-1")); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindTokenByHash(ctx, tokenHash("secret-1"))
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
		got, _ = s.FindTokenByHash(ctx, tokenHash("secret-1"))
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
		var stored string
		if err := s.DB().QueryRowContext(ctx, `SELECT token_hash FROM api_tokens WHERE id = ?`, tok.ID).Scan(&stored); err != nil || stored != tokenHash("secret-1") {
			t.Fatalf("stored %q, %v", stored, err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, tok := range []*governance.APIToken{
			{ProjectID: p.ID, Name: "", Scopes: []governance.TokenScope{governance.ScopeRecall}},
			{ProjectID: p.ID, Name: "x"},
			{ProjectID: p.ID, Name: "x", Scopes: []governance.TokenScope{"admin"}},
		} {
			if err := s.CreateToken(ctx, tok, tokenHash("x")); governance.ErrorCode(err) != governance.EINVALID {
				t.Errorf("%+v: err = %v", tok, err)
			}
		}
		err := s.CreateToken(ctx, &governance.APIToken{ProjectID: 999, Name: "x", Scopes: []governance.TokenScope{governance.ScopeRecall}}, tokenHash("y"))
		if governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("unknown project: err = %v", err)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.FindTokenByHash(ctx, tokenHash("nope")); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Errorf("err = %v", err)
		}
	})
}
