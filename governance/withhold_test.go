package governance_test

import (
	"errors"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestWithholdForgotten(t *testing.T) {
	gone := governance.Fingerprint("午睡时间 13:00–15:00 不安排行程")
	suppressed := func(fps []string) (map[string]bool, error) {
		out := map[string]bool{}
		for _, fp := range fps {
			out[fp] = fp == gone
		}
		return out, nil
	}
	got, err := governance.WithholdForgotten(`{"task":"plan a day","items":[{"text":"午睡时间 13:00–15:00 不安排行程","rule_id":3}]}`, suppressed)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"items":[{"rule_id":3,"text":"[forgotten]"}],"task":"plan a day"}`; got != want {
		t.Fatalf("detail = %s, want %s", got, want)
	}
	if got, _ := governance.WithholdForgotten("not json", suppressed); got != "not json" {
		t.Fatalf("non-JSON detail = %q, want it unchanged", got)
	}
	const clean = `{"task":"plan a day"}`
	if got, _ := governance.WithholdForgotten(clean, suppressed); got != clean {
		t.Fatalf("clean detail = %s, want it byte for byte", got)
	}
	if _, err := governance.WithholdForgotten(clean, func([]string) (map[string]bool, error) { return nil, errors.New("down") }); err == nil {
		t.Fatal("a failed lookup must fail the write")
	}
}
