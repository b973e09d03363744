package app

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// reservedNames are the actors the console writes in audit rows and
// traces itself; an account may not be named like one (or like a token,
// "token:<id>", or an account reference, "account:<name>": no username
// holds a colon).
var reservedNames = []string{"cli", "heartbeat", "eval-runner", "restore", "system", "self", "console", "anonymous", "mnemo"}

// scriptMixes are the scripts a name may combine beside Common and
// Inherited characters (digits, punctuation, marks): one script alone,
// or Latin with the scripts written beside it in Chinese, Japanese and
// Korean (Unicode TS #39's highly restrictive profile). Any other mix
// (Latin with Cyrillic, Greek with Latin) is how a name imitates another.
var scriptMixes = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// ValidUsername checks a new account's name: present, at most
// MaxUsernameLen characters, no space, control or colon, not a name of
// the console's own actors (compared as they read, so a look-alike is
// refused too), and written in one script (or Latin with Han, kana or
// Hangul).
func ValidUsername(name string) error {
	if name == "" {
		return governance.Errorf(governance.EINVALID, "Enter a username.")
	}
	if utf8.RuneCountInString(name) > MaxUsernameLen {
		return governance.Errorf(governance.EINVALID, "The username is too long (at most 64 characters).")
	}
	for _, r := range name {
		if unicode.IsSpace(r) || governance.IsControl(r) || !unicode.IsPrint(r) {
			return governance.Errorf(governance.EINVALID, "A username has no spaces or control characters.")
		}
	}
	if strings.ContainsRune(name, ':') {
		return governance.Errorf(governance.EINVALID, "A username has no colon (names such as token:5 are the console's).")
	}
	if p := governance.CheckIdentifier(name); p != "" {
		return governance.Errorf(governance.EINVALID, "A username needs a visible letter or digit.")
	}
	skel := gate.Skeleton(name)
	for _, r := range reservedNames {
		if skel == r {
			return governance.Errorf(governance.EINVALID, "%s is the name of one of the console's own actors; choose another.", name)
		}
	}
	if scripts := nameScripts(name); len(scripts) > 1 && !allowedMix(scripts) {
		return governance.Errorf(governance.EINVALID, "A username is written in one script (Latin may go with Han, kana or Hangul); %s mixes %s.", name, strings.Join(scripts, " and "))
	}
	return nil
}

// nameScripts lists the scripts of name's letters, in order of first use
// (Common and Inherited characters belong to every script).
func nameScripts(name string) []string {
	var out []string
	for _, r := range name {
		if unicode.In(r, unicode.Common, unicode.Inherited) {
			continue
		}
		for script, table := range unicode.Scripts {
			if unicode.Is(table, r) {
				if !contains(out, script) {
					out = append(out, script)
				}
				break
			}
		}
	}
	return out
}

func allowedMix(scripts []string) bool {
	for _, mix := range scriptMixes {
		ok := true
		for _, s := range scripts {
			ok = ok && contains(mix, s)
		}
		if ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// distinctUsername refuses a name that reads like an existing account's
// ("cope" and "соре" in Cyrillic): people and audit rows tell accounts
// apart by their names.
func (ad Admin) distinctUsername(ctx context.Context, name string) error {
	accounts, err := ad.store.FindAccounts(ctx)
	if err != nil {
		return err
	}
	skel := gate.Skeleton(name)
	for _, a := range accounts {
		// The same name in another case is the store's conflict.
		if !strings.EqualFold(a.Username, name) && gate.Skeleton(a.Username) == skel {
			return governance.Errorf(governance.EINVALID, "%s reads like the existing account %s; choose another.", name, a.Username)
		}
	}
	return nil
}
