package app

import (
	"context"
	"crypto/rand"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// TokenStore keeps project API tokens (only the hash of each secret).
type TokenStore interface {
	CreateToken(ctx context.Context, t *governance.APIToken, hash string) error
	RevokeToken(ctx context.Context, id int64, actor string) error
	FindTokenByID(ctx context.Context, id int64) (*governance.APIToken, error)
	FindTokenByHash(ctx context.Context, hash string) (*governance.APIToken, error)
	FindTokens(ctx context.Context, f governance.TokenFilter) ([]*governance.APIToken, error)
	TouchToken(ctx context.Context, t *governance.APIToken) error
}

// TokenPrefix marks Mnemo API token secrets, so secret scanners can find
// them.
const TokenPrefix = "mnemo_"

// newTokenSecret returns a random token secret (130 bits).
func newTokenSecret() string { return TokenPrefix + strings.ToLower(rand.Text()) }

// Tokens is the use cases about project API tokens: administrators create,
// list and revoke them; the agent API verifies the one a request carries.
type Tokens struct {
	store TokenStore
}

// List returns every token, revoked ones included (administrators only).
func (ts Tokens) List(ctx context.Context, actor governance.Actor) ([]*governance.APIToken, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	return ts.store.FindTokens(ctx, governance.TokenFilter{IncludeRevoked: true})
}

// Create validates and stores t (project, name, scopes) for an
// administrator — bad input is FieldErrors on project, name and scope — and returns its secret: the only time it exists outside
// the agent that will use it (only its hash is kept). t gets its id,
// project slug, creator and creation time.
func (ts Tokens) Create(ctx context.Context, actor governance.Actor, t *governance.APIToken) (secret string, err error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return "", err
	}
	if err := tokenProblems(t).err(); err != nil {
		return "", err
	}
	t.CreatedBy = actor.Name()
	secret = newTokenSecret()
	if err := ts.store.CreateToken(ctx, t, governance.HashTokenSecret(secret)); err != nil {
		return "", err
	}
	return secret, nil
}

// Get returns token id (administrators only), e.g. for the page that asks
// to confirm its revocation.
func (ts Tokens) Get(ctx context.Context, actor governance.Actor, id int64) (*governance.APIToken, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	return ts.store.FindTokenByID(ctx, id)
}

// Revoke revokes token id for good (it stops working at once) and returns
// it as it was; revoking twice is a no-op.
func (ts Tokens) Revoke(ctx context.Context, actor governance.Actor, id int64) (*governance.APIToken, error) {
	if err := governance.Can(actor, governance.ActAdminister, governance.Object{}); err != nil {
		return nil, err
	}
	t, err := ts.store.FindTokenByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := ts.store.RevokeToken(ctx, id, actor.Name()); err != nil {
		return nil, err
	}
	return t, nil
}

// Verify finds the live token whose secret a request carries: EUNAUTHORIZED
// for an unknown or revoked one. The token becomes the request's actor; the
// caller records its use with Touch.
func (ts Tokens) Verify(ctx context.Context, secret string) (*governance.APIToken, error) {
	if secret == "" {
		return nil, governance.Errorf(governance.EUNAUTHORIZED, "The API token is not valid.")
	}
	t, err := ts.store.FindTokenByHash(ctx, governance.HashTokenSecret(secret))
	switch {
	case governance.ErrorCode(err) == governance.ENOTFOUND:
		return nil, governance.Errorf(governance.EUNAUTHORIZED, "The API token is not valid.")
	case err != nil:
		return nil, err
	case t.Revoked():
		return nil, governance.Errorf(governance.EUNAUTHORIZED, "The API token was revoked.")
	}
	return t, nil
}

// Touch records that t was just used (at most once a minute is written).
// A failure here need not fail the request.
func (ts Tokens) Touch(ctx context.Context, t *governance.APIToken) error {
	return ts.store.TouchToken(ctx, t)
}

// tokenProblems validates t (trimming its name, ordering its scopes) and
// returns what is wrong with it by form field.
func tokenProblems(t *governance.APIToken) FieldErrors {
	errs := FieldErrors{}
	t.Name = strings.TrimSpace(t.Name)
	if t.ProjectID <= 0 {
		errs["project"] = governance.Say("Choose a project.")
	}
	switch {
	case t.Name == "":
		errs["name"] = governance.Say("Give the token a name, e.g. the agent that will use it.")
	case len(t.Name) > governance.MaxTokenNameBytes:
		errs["name"] = governance.Say("At most %d bytes.", governance.MaxTokenNameBytes)
	}
	if len(t.Scopes) == 0 {
		errs["scope"] = governance.Say("Choose at least one scope.")
	} else if len(errs) == 0 {
		if err := t.Validate(); err != nil {
			errs["scope"] = governance.ErrorText(err)
		}
	}
	return errs
}
