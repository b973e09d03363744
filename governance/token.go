package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// TokenScope is one thing a project API token may do.
type TokenScope string

// Token scopes.
const (
	ScopeIngest TokenScope = "ingest" // send events
	ScopeRecall TokenScope = "recall" // ask for context packages, list rules
	ScopeForget TokenScope = "forget" // forget a rule or a subject
	ScopeExport TokenScope = "export" // download the project's export
)

// TokenScopes lists every scope in display order.
var TokenScopes = []TokenScope{ScopeIngest, ScopeRecall, ScopeForget, ScopeExport}

// MaxTokenNameBytes bounds a token's name.
const MaxTokenNameBytes = 100

// APIToken is a project API token. Only the SHA-256 of its secret is kept;
// the secret is shown once, when the token is created.
type APIToken struct {
	ID          int64
	ProjectID   int64
	ProjectSlug string
	Name        string
	Scopes      []TokenScope
	CreatedBy   string
	CreatedAt   time.Time
	LastUsedAt  *time.Time
	RevokedAt   *time.Time
}

// Has reports whether the token carries scope.
func (t *APIToken) Has(scope TokenScope) bool { return slices.Contains(t.Scopes, scope) }

// Revoked reports whether the token was revoked.
func (t *APIToken) Revoked() bool { return t.RevokedAt != nil }

// Actor names the token in audit rows and recall traces.
func (t *APIToken) Actor() string { return fmt.Sprintf("token:%d", t.ID) }

// Validate checks the name and scopes.
func (t *APIToken) Validate() error {
	t.Name = strings.TrimSpace(t.Name)
	switch {
	case t.Name == "":
		return Errorf(EINVALID, "A token needs a name.")
	case !utf8.ValidString(t.Name) || len(t.Name) > MaxTokenNameBytes:
		return Errorf(EINVALID, "A token name is at most %d bytes of text.", MaxTokenNameBytes)
	case t.ProjectID <= 0:
		return Errorf(EINVALID, "A token belongs to a project.")
	case len(t.Scopes) == 0:
		return Errorf(EINVALID, "Choose at least one scope.")
	}
	for _, sc := range t.Scopes {
		if !slices.Contains(TokenScopes, sc) {
			return Errorf(EINVALID, "Unknown scope %q.", string(sc))
		}
	}
	slices.SortFunc(t.Scopes, func(a, b TokenScope) int { return slices.Index(TokenScopes, a) - slices.Index(TokenScopes, b) })
	t.Scopes = slices.Compact(t.Scopes)
	return nil
}

// TokenFilter selects tokens; zero fields are ignored.
type TokenFilter struct {
	ProjectID      int64
	IncludeRevoked bool
}

// HashTokenSecret returns the hex SHA-256 of an API token secret; only this
// hash is stored. Tokens are random, so a fast hash is enough.
func HashTokenSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
