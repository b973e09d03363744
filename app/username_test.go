package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
)

// TestUsernamesAreNotImpersonations: an account may not be named like one
// of the console's own actors (heartbeat, a token), nor mix scripts to
// imitate a name (аdmin with a Cyrillic а), nor read like an existing
// account; names in one script, and Latin beside Han, kana or Hangul, are
// fine.
func TestUsernamesAreNotImpersonations(t *testing.T) {
	for _, name := range []string{"heartbeat", "HEARTBEAT", "hеartbeat", "cli", "eval-runner", "token:5", "account:root",
		"аdmin", "pаypal", "ᅟ", "\u3164", "\u0301\u0302", "a\ufffdb"} {
		if err := app.ValidUsername(name); governance.ErrorCode(err) != governance.EINVALID {
			t.Errorf("username %q: %v, want refused", name, err)
		}
	}
	for _, name := range []string{"rita", "li.wei", "张伟", "田中たなか", "kim_민준", "ivan-иван"[:4], "Иван", "Σωκράτης", "o'brien"} {
		if err := app.ValidUsername(name); err != nil {
			t.Errorf("username %q refused: %v", name, err)
		}
	}
	if err := app.ValidUsername("ivan-иван"); err == nil || !strings.Contains(governance.ErrorMessage(err), "Latin and Cyrillic") {
		t.Errorf("a Latin and Cyrillic name: %v", err)
	}

	f := newAdminFixture(t)
	ctx := context.Background()
	if _, _, err := f.app.Admin.CreateAccount(ctx, f.admin, app.NewAccount{Username: "cope"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, existing string }{{"соре", "cope"}, {"СОРЕ", "cope"}} { // all Cyrillic
		if _, _, err := f.app.Admin.CreateAccount(ctx, f.admin, app.NewAccount{Username: tc.name}); governance.ErrorCode(err) != governance.EINVALID ||
			!strings.Contains(governance.ErrorMessage(err), "reads like the existing account "+tc.existing) {
			t.Errorf("account %q beside %s: %v", tc.name, tc.existing, err)
		}
	}
}

// TestBlankIdentifiersRefused: an id that shows nothing (a Hangul filler,
// combining marks alone, a braille blank) or holds U+FFFD (a lone
// surrogate escape decodes to it, so two ids would collide) is refused.
func TestBlankIdentifiersRefused(t *testing.T) {
	for _, id := range []string{"\u3164", "\u0301", "\u0301\u0308", "\u2800", "\uffa0", "x\ufffd", "\ufffd"} {
		if p := governance.CheckIdentifier(id); p == "" {
			t.Errorf("id %q accepted", id)
		}
	}
	for _, id := range []string{"e1", "family-li", "é", "e\u0301", "会话-1", "한국"} {
		if p := governance.CheckIdentifier(id); p != "" {
			t.Errorf("id %q refused: %s", id, p)
		}
	}
}
