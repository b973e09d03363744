package store_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// TestTokenStoresOnlyHash: the table holds the secret's hash, never the
// secret (the token behaviour itself is storetest's TestTokens).
func TestTokenStoresOnlyHash(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	tok := &governance.APIToken{ProjectID: p.ID, Name: "agent", CreatedBy: "admin", Scopes: []governance.TokenScope{governance.ScopeRecall}}
	if err := s.CreateToken(ctx, tok, storetest.TokenHash("secret-1")); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := s.DB().QueryRowContext(ctx, `SELECT token_hash FROM api_tokens WHERE id = ?`, tok.ID).Scan(&stored); err != nil || stored != storetest.TokenHash("secret-1") {
		t.Fatalf("stored %q, %v", stored, err)
	}
}
