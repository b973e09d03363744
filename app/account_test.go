package app_test

import (
	"context"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestAccount(t *testing.T) {
	ctx := context.Background()
	f := NewFixture(t)

	t.Run("ForSignIn", func(t *testing.T) {
		a, err := f.App.Account.ForSignIn(ctx, "MIA")
		if err != nil || a.Username != MemberLi {
			t.Fatalf("account = %+v, %v", a, err)
		}
		_, err = f.App.Account.ForSignIn(ctx, "nobody")
		wantCode(t, "unknown", err, enotfound)
		_, err = f.App.Account.ForSignIn(ctx, "")
		wantCode(t, "empty", err, einvalid)
	})

	t.Run("EndSessions", func(t *testing.T) {
		f.check(t, outcomes{Anonymous: eunauthorized, TokenForget: eunauthorized}, func(actor governance.Actor) error {
			return f.App.Account.EndSessions(ctx, actor)
		})
		mia := f.Actors[MemberLi].Account
		if err := f.App.Account.EndSessions(ctx, f.Actors[MemberLi]); err != nil {
			t.Fatal(err)
		}
		got, err := f.Store.FindAccountByID(ctx, mia.ID)
		if err != nil || got.SessionGen == mia.SessionGen {
			t.Fatalf("session generation %d → %+v, %v", mia.SessionGen, got, err)
		}
	})

	t.Run("SetLanguage", func(t *testing.T) {
		f.check(t, outcomes{Anonymous: eunauthorized, TokenForget: eunauthorized, MemberLi: einvalid},
			func(actor governance.Actor) error { return f.App.Account.SetLanguage(ctx, actor, "xx-YY") })
		for _, lang := range []string{"zh-CN", ""} {
			if err := f.App.Account.SetLanguage(ctx, f.Actors[MemberLi], lang); err != nil {
				t.Fatal(err)
			}
			got, err := f.Store.FindAccountByUsername(ctx, MemberLi)
			if err != nil || got.Language != lang {
				t.Fatalf("language = %q, %v; want %q", got.Language, err, lang)
			}
		}
	})
}
