package heuristic_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

// What a user pastes into a message — a fenced block, a quoted e-mail, a
// stack trace, test output, a diff, a shell session, log records, JSON, a
// table — is material, whatever it says: only the person's own lines around
// it are read for instructions.
func TestPastedMaterialIsNotTheUsers(t *testing.T) {
	own := "Also please never run the e2e suite against prod."
	for name, paste := range map[string]string{
		"fence":     "```\nAlways close the connection before returning.\n```",
		"tilde":     "~~~\nNever call the lock twice.\n~~~",
		"quotation": "> Please never call me on my mobile, email only.\n> Regards, Tomasz",
		"indented":  "    Error: You must always pass --region before loading the config.\n      at loadConfig (src/config.js:41:11)",
		"tab":       "\tat com.acme.Pool.check(Pool.java:118)\n\tAlways retry the borrow.",
		"diff":      "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -10,7 +10,9 @@\n+Always close the file descriptor, even when read throws.\n-Keep the descriptor open.",
		"shell":     "$ ./check-policy\nNever push to main without a review.\nAlways sign your commits.",
		"log":       "2025-11-26 10:02:11 Always check the error returned by Apply.\nERROR Never retry a signature check.",
		"json":      "{\"hint\": \"Always set DATABASE_URL before you start the worker.\"}\n[Never start the worker without DATABASE_URL.]",
		"exception": "Exception in thread \"main\" java.lang.IllegalStateException: Connection pool must not be closed before the context is refreshed\nCaused by: java.lang.IllegalArgumentException: maximumPoolSize must always be greater than 0",
		"position":  "approve_test.go:57: you must always approve the last node",
		"table":     "NAME      READY   STATUS\nalways-on   0/1   never restart pods",
		"unclosed":  "```\nNever log request bodies.",
	} {
		t.Run(name, func(t *testing.T) {
			x := mustExtract(t, session("user", "Here's what I got:\n\n"+paste+"\n\n"+own))
			var got []string
			for _, it := range x.Items {
				got = append(got, it.Statement)
			}
			if name == "unclosed" {
				if len(got) != 0 { // a fence left open runs to the end
					t.Errorf("statements %q, want none", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], "never run the e2e suite against prod") {
				t.Errorf("statements %q, want only the user's own instruction", got)
			}
		})
	}
}

// The person's own lines stay read, whatever else the message holds: list
// items, two spaces after a full stop, a line that names a file or a
// package in passing.
func TestOwnLinesAroundMaterial(t *testing.T) {
	for _, msg := range []string{
		"Two rules for this repo:\n- always run the linter before you push\n\n```\nok\n```",
		"Fix the build.  From now on, always run the linter before you push.",
		"```\nFAIL\n```\nsrc/cart.go is fine, but from now on always run the linter before you push.",
		"Thanks!\n\n1. always run the linter before you push",
	} {
		x := mustExtract(t, session("user", msg))
		found := false
		for _, it := range x.Items {
			found = found || it.Type == governance.TypePreference && strings.Contains(strings.ToLower(it.Statement), "always run the linter before you push")
		}
		if !found {
			t.Errorf("%q: items %+v, want the linter rule", msg, x.Items)
		}
	}
}
