package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

func TestTokens(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)
	notAdmins := outcomes{
		TravelReviewer: eforbidden, ExpenseReviewer: eforbidden, MemberLi: eforbidden,
		TokenForget: eforbidden, Anonymous: eunauthorized,
	}

	t.Run("Authorization", func(t *testing.T) {
		want := outcomes{Admin: ""}
		for k, v := range notAdmins {
			want[k] = v
		}
		f.check(t, want, func(actor governance.Actor) error {
			_, err := f.App.Tokens.List(ctx, actor)
			return err
		})
		f.check(t, notAdmins, func(actor governance.Actor) error {
			_, err := f.App.Tokens.Create(ctx, actor, &governance.APIToken{ProjectID: f.Travel.ID, Name: "x",
				Scopes: []governance.TokenScope{governance.ScopeRecall}})
			return err
		})
		f.check(t, want, func(actor governance.Actor) error {
			tok, err := f.App.Tokens.Get(ctx, actor, f.Tokens[TokenRecall].ID)
			if err == nil && tok.Name == "" {
				t.Errorf("Get returned an empty token")
			}
			return err
		})
		_, err := f.App.Tokens.Get(ctx, f.Actors[Admin], 999999)
		wantCode(t, "unknown token", err, enotfound)
		f.check(t, notAdmins, func(actor governance.Actor) error {
			_, err := f.App.Tokens.Revoke(ctx, actor, f.Tokens[TokenRecall].ID)
			return err
		})
		if _, err := f.App.Tokens.Verify(ctx, "secret-"+TokenRecall); err != nil {
			t.Fatalf("a refused revoke revoked the token: %v", err)
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		admin := f.Actors[Admin]
		_, err := f.App.Tokens.Create(ctx, admin, &governance.APIToken{ProjectID: f.Travel.ID, Name: "no scopes"})
		wantCode(t, "no scopes", err, einvalid)
		_, err = f.App.Tokens.Create(ctx, admin, &governance.APIToken{ProjectID: f.Travel.ID, Name: " ",
			Scopes: []governance.TokenScope{governance.ScopeRecall}})
		wantCode(t, "no name", err, einvalid)
		_, err = f.App.Tokens.Create(ctx, admin, &governance.APIToken{ProjectID: 999999, Name: "x",
			Scopes: []governance.TokenScope{governance.ScopeRecall}})
		wantCode(t, "unknown project", err, enotfound)
		// The token form's problems come back by field, and nothing is stored.
		before, err := f.App.Tokens.List(ctx, admin)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.App.Tokens.Create(ctx, admin, &governance.APIToken{Name: strings.Repeat("n", governance.MaxTokenNameBytes+1)})
		fe, ok := app.AsFieldErrors(err)
		if !ok || fe["project"].IsZero() || fe["name"].IsZero() || fe["scope"].IsZero() {
			t.Fatalf("error %v, want field errors on project, name and scope", err)
		}
		_, err = f.App.Tokens.Create(ctx, admin, &governance.APIToken{ProjectID: f.Travel.ID, Name: "x", Scopes: []governance.TokenScope{"root"}})
		if fe, ok := app.AsFieldErrors(err); !ok || len(fe) != 1 || fe["scope"].IsZero() {
			t.Fatalf("error %v, want a field error on scope", err)
		}
		after, err := f.App.Tokens.List(ctx, admin)
		if err != nil || len(after) != len(before) {
			t.Fatalf("%d tokens after refused creates, want %d (%v)", len(after), len(before), err)
		}
	})

	t.Run("OK", func(t *testing.T) {
		admin := f.Actors[Admin]
		tok := &governance.APIToken{ProjectID: f.Travel.ID, Name: "claude",
			Scopes: []governance.TokenScope{governance.ScopeRecall, governance.ScopeIngest}}
		secret, err := f.App.Tokens.Create(ctx, admin, tok)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(secret, "mnemo_") || tok.ID == 0 || tok.ProjectSlug != f.Travel.Slug || tok.CreatedBy != Admin {
			t.Fatalf("secret %q, token %+v", secret, tok)
		}
		if auth.HashToken(secret) != governance.HashTokenSecret(secret) {
			t.Fatal("auth and governance hash token secrets differently")
		}
		got, err := f.App.Tokens.Verify(ctx, secret)
		if err != nil || got.ID != tok.ID {
			t.Fatalf("verify = %+v, %v", got, err)
		}
		if err := f.App.Tokens.Touch(ctx, got); err != nil {
			t.Fatal(err)
		}
		list, err := f.App.Tokens.List(ctx, admin)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range list {
			if l.ID == tok.ID && l.LastUsedAt == nil {
				t.Fatal("touch did not record the use")
			}
		}
		_, err = f.App.Tokens.Verify(ctx, "mnemo_wrong")
		wantCode(t, "wrong secret", err, eunauthorized)
		_, err = f.App.Tokens.Verify(ctx, "")
		wantCode(t, "no secret", err, eunauthorized)

		revoked, err := f.App.Tokens.Revoke(ctx, admin, tok.ID)
		if err != nil || revoked.Name != "claude" {
			t.Fatalf("revoke = %+v, %v", revoked, err)
		}
		_, err = f.App.Tokens.Verify(ctx, secret)
		wantCode(t, "revoked", err, eunauthorized)
		_, err = f.App.Tokens.Revoke(ctx, admin, 999999)
		wantCode(t, "unknown token", err, enotfound)
	})
}
