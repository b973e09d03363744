package readability_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance/readability"
)

func TestReadable(t *testing.T) {
	for _, s := range []string{
		"Never commit without signing",
		"Always run the linter before committing",
		"Always run `go test -race` before pushing",
		"Give a far-away major attraction a day of its own and group each day's sights by area, to avoid cross-district travel",
		"When the refund API fails because the amount must be an integer, send refund amounts as integer cents.",
		"When crm_update fails because the phone number has no country code, add the country code (+86) to phone numbers.",
		"Apply pending migrations before running the tests",
		"Keep docs/import.md up to date when an importer changes",
		"We're on Go 1.26",
		"每天下午 14:00–16:00 留给孩子午睡，不安排活动",
		"提交报销前先核对凭证要求：超过免票额度的报销必须附发票扫描件",
		"Complete the commit, always verify and run hooks",
		"Run `go test ./...` before pushing",
		"Stop suggesting jQuery",
		"Always use `errors.Is` instead of comparing errors with ==",
		"we always travel light",
		"check the route before answering",
	} {
		if p := readability.Check(s); p != readability.OK {
			t.Errorf("Check(%q) = %q, want readable", s, p)
		}
	}
}

func TestUnreadable(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want readability.Problem
	}{
		{`Change C:\Users\someone\work\commit-msg.txt before running powershell.exe -Command Get-Content`, readability.Path},
		{`Change app.plugin.ts, other.plugin.ts before running {"session_id":83395,"chars":""}`, readability.JSON},
		{"Run this yourself.** Copy and paste into a terminal: before running sc_auth pair -u $(whoami)", readability.Command},
		{"Paste into a terminal before running the tool", readability.OK},
		{"Edit /home/dev/project/config.yaml before running the build", readability.Path},
		{"Fix ~/notes.txt first", readability.Path},
		{"npm ci && npm run build before the tests", readability.Command},
		{"[Bash] go test ./...", readability.Command},
		{"$ make test", readability.Command},
		{"Run git commit -S -m before pushing", readability.Command},
		{"Fix the panic at store/tx.go:142 before running the tests", readability.Trace},
		{`Traceback (most recent call last): File "app.py", line 3`, readability.Trace},
		{"and then re-run the migration for the orders table", readability.Fragment},
		{"Use the new helper (see the", readability.Fragment},
		{"Update the config so that the", readability.Fragment},
		{"Handle the missing field…", readability.Fragment},
		{"ORD-20231 TCK-9981 0x7f3a", readability.Symbols},
		{"Use pnpm", readability.Symbols},
		{"Set FOO_BAR=1 and BAZ_QUX=2 in ci.yml", readability.Symbols},
		{strings.Repeat("Always check the budget first. ", 12), readability.Long},
	} {
		if got := readability.Check(tc.s); got != tc.want {
			t.Errorf("Check(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
