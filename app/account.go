package app

import (
	"context"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// AccountStore reads an account for sign-in and changes what an account
// may change about itself.
type AccountStore interface {
	FindAccountByUsername(ctx context.Context, username string) (*governance.Account, error)
	FindAccountByID(ctx context.Context, id int64) (*governance.Account, error)
	EndSessions(ctx context.Context, accountID int64) error
	SetAccountLanguage(ctx context.Context, accountID int64, lang string) error
}

// Account is the use cases of one account about itself: finding it to sign
// in, signing out everywhere, choosing the console's language. (Managing
// other accounts is administration.)
type Account struct {
	store AccountStore
}

// ForSignIn finds the account named username (case-insensitive) for the
// sign-in form, which checks the password: ENOTFOUND when there is none.
// Nobody is signed in yet, so there is no actor.
func (as Account) ForSignIn(ctx context.Context, username string) (*governance.Account, error) {
	if username == "" {
		return nil, governance.Errorf(governance.EINVALID, "Enter your username.")
	}
	return as.store.FindAccountByUsername(ctx, username)
}

// FindAccountByID loads the account a verified session cookie names (the
// sign-in middleware's lookup: the cookie is the credential, so there is no
// actor yet).
func (as Account) FindAccountByID(ctx context.Context, id int64) (*governance.Account, error) {
	return as.store.FindAccountByID(ctx, id)
}

// signedIn is actor's account, or EUNAUTHORIZED.
func signedIn(actor governance.Actor) (*governance.Account, error) {
	if actor.Account == nil {
		return nil, governance.Errorf(governance.EUNAUTHORIZED, "Sign in first.")
	}
	return actor.Account, nil
}

// EndSessions signs actor's account out everywhere: every cookie issued
// before stops working.
func (as Account) EndSessions(ctx context.Context, actor governance.Actor) error {
	a, err := signedIn(actor)
	if err != nil {
		return err
	}
	return as.store.EndSessions(ctx, a.ID)
}

// SetLanguage saves the console language actor's account chose: a
// supported language code, or "" to follow the browser.
func (as Account) SetLanguage(ctx context.Context, actor governance.Actor, lang string) error {
	a, err := signedIn(actor)
	if err != nil {
		return err
	}
	if lang != "" && !locale.Supported(lang) {
		return governance.Errorf(governance.EINVALID, "Unknown language.")
	}
	return as.store.SetAccountLanguage(ctx, a.ID, lang)
}
