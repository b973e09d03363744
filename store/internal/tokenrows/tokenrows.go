// Package tokenrows is the part of API token storage both stores share
// that is not SQL: what a new token is checked for before it is written,
// how its scopes are laid out in their column, when its last use is worth
// writing, and the audit entries of its creation and revocation.
package tokenrows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TouchEvery limits how often a token's last use is written.
const TouchEvery = time.Minute

// ErrHash is a token hash that is not the hex SHA-256 of its secret.
var ErrHash = errors.New("token hash must be hex SHA-256")

// Check checks a new token and the hash of its secret (hex, from
// auth.HashToken) before it is written.
func Check(t *governance.APIToken, hash string) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if len(hash) != 64 {
		return ErrHash
	}
	return nil
}

// JoinScopes is the scopes column of a token.
func JoinScopes(scopes []governance.TokenScope) string {
	out := make([]string, len(scopes))
	for i, sc := range scopes {
		out[i] = string(sc)
	}
	return strings.Join(out, ",")
}

// Scopes reads a scopes column.
func Scopes(column string) []governance.TokenScope {
	var out []governance.TokenScope
	for _, sc := range strings.Split(column, ",") {
		if sc != "" {
			out = append(out, governance.TokenScope(sc))
		}
	}
	return out
}

// TouchDue reports whether a use of t at now is to be written.
func TouchDue(t *governance.APIToken, now time.Time) bool {
	return t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= TouchEvery
}

// Created is the audit entry of t's creation.
func Created(t *governance.APIToken) *governance.AuditEntry {
	return &governance.AuditEntry{
		Actor: t.CreatedBy, Action: "token.create", ObjectType: "api_token", ObjectID: fmt.Sprint(t.ID), ProjectID: t.ProjectID,
		Details: fmt.Sprintf(`{"scopes":%q}`, JoinScopes(t.Scopes)),
	}
}

// Revoked is the audit entry of the revocation of t by actor.
func Revoked(actor string, t *governance.APIToken) *governance.AuditEntry {
	return &governance.AuditEntry{
		Actor: actor, Action: "token.revoke", ObjectType: "api_token", ObjectID: fmt.Sprint(t.ID), ProjectID: t.ProjectID,
	}
}
