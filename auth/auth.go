// Package auth owns console sign-in: argon2id password hashing, the
// gorilla/sessions cookie that carries the signed-in account id and flash
// messages, the middleware that puts the current account into the request
// context, login rate limiting, and API token hashing.
package auth

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
)

// userKey is the context key of the signed-in account.
type userKey struct{}

// WithUser returns a copy of ctx carrying the signed-in account.
func WithUser(ctx context.Context, a *governance.Account) context.Context {
	return context.WithValue(ctx, userKey{}, a)
}

// UserFrom returns the signed-in account, or nil for an anonymous request.
func UserFrom(ctx context.Context) *governance.Account {
	a, _ := ctx.Value(userKey{}).(*governance.Account)
	return a
}
