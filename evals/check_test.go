package evals_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
)

func mustChecks(tb testing.TB, js string) []*evals.Check {
	tb.Helper()
	checks, err := evals.ParseChecks(js)
	if err != nil {
		tb.Fatal(err)
	}
	return checks
}

const itinerary = `{
  "days": [
    {"day": 1, "blocks": [
      {"time": "09:00-12:00", "activity": "上海迪士尼乐园"},
      {"start": "14:00", "end": "16:00", "activity": "回酒店午睡"},
      {"time": "16:30-19:00", "activity": "迪士尼晚间巡游"}]},
    {"day": 2, "blocks": [
      {"time": "9:30–11:30", "activity": "外滩"},
      {"time": "13:30-16:00", "activity": "nap at the hotel"}]}
  ],
  "route_check": {"attached": true, "result": "passed"}
}`

func TestChecks(t *testing.T) {
	out := evals.ParseOutput(itinerary)
	if !out.IsJSON {
		t.Fatal("itinerary not read as JSON")
	}
	for _, tc := range []struct {
		name   string
		checks string
		output string
		want   bool
		ev     string
	}{
		{"Contains", `[{"type":"contains","value":"DISNEY"}]`, "Shanghai Disney day", true, "found"},
		{"ContainsMissing", `[{"type":"contains","value":"route check"}]`, "Shanghai Disney day", false, "does not occur"},
		{"NotContains", `[{"type":"not_contains","value":"Hotel X"}]`, "book the Metro Hotel", true, ""},
		{"NotContainsHit", `[{"type":"not_contains","value":"hotel x"}]`, "book Hotel X now", false, "occurs"},
		{"Regex", `[{"type":"regex","value":"路线检查.{0,6}(通过|passed)"}]`, "附：路线检查结论：通过", true, "matched"},
		{"TimeWindowJSONPerDay", `[{"type":"time_window","start":"14:00","end":"16:00","path":"days.*"}]`, itinerary, true, "all 2 elements"},
		{"TimeWindowText", `[{"type":"time_window","start":"14:00","end":"16:00"}]`,
			"Day 1\n- 9:00-12:00 Disneyland\n- 2pm-4pm nap back at the hotel\n- 17:00 dinner", true, "rest block"},
		{"TimeWindowChinese", `[{"type":"time_window","start":"14:00","end":"16:00"}]`,
			"第一天：上午迪士尼；下午14点到16点回酒店午休；晚上看烟花", true, "rest block"},
		{"TimeWindowNotRest", `[{"type":"time_window","start":"14:00","end":"16:00"}]`,
			"14:00-16:00 飞越地平线 + 加勒比海盗", false, "0 rest block(s) covering 14:00–16:00"},
		{"TimeWindowTooShort", `[{"type":"time_window","start":"14:00","end":"16:00"}]`,
			"14:30-16:00 nap", false, "ranges found: 14:30–16:00"},
		{"TimeWindowCount", `[{"type":"time_window","start":"14:00","end":"16:00","count":2}]`,
			"Day 1: 14:00-16:00 nap\nDay 2: 14:00-16:00 rest", true, ""},
		{"TimeWindowCountShort", `[{"type":"time_window","start":"14:00","end":"16:00","count":2}]`,
			"Day 1: 14:00-16:00 nap\nDay 2: 14:00-16:00 museum", false, "1 rest block(s)"},
		{"TimeWindowFree", `[{"type":"time_window","start":"14:00","end":"16:00","mode":"free"}]`,
			"10:00-12:00 museum\n16:00-18:00 park", true, "nothing but rest"},
		{"TimeWindowFreeBroken", `[{"type":"time_window","start":"14:00","end":"16:00","mode":"free"}]`,
			"10:00-12:00 museum\n15:00 boat tour", false, "15:00–15:00 overlaps"},
		{"TimeWindowJSONOneDayMissing", `[{"type":"time_window","start":"14:00","end":"16:00","path":"days.*"}]`,
			`{"days":[{"blocks":[{"time":"14:00-16:00","activity":"午睡"}]},{"blocks":[{"time":"14:00-16:00","activity":"科技馆"}]}]}`,
			false, "days.*: element 1"},
		{"JSONPathEquals", `[{"type":"json_path_equals","path":"route_check.attached","equals":true}]`, itinerary, true, "is true"},
		{"JSONPathIndex", `[{"type":"json_path_equals","path":"days[1].day","equals":2}]`, itinerary, true, ""},
		{"JSONPathWildcard", `[{"type":"json_path_equals","path":"days.*.day","equals":1}]`, itinerary, false, "element 1"},
		{"JSONPathMissing", `[{"type":"json_path_equals","path":"route_check.missing","equals":true}]`, itinerary, false, "matches nothing"},
		{"JSONPathNotJSON", `[{"type":"json_path_equals","path":"a","equals":1}]`, "plain text", false, "not JSON"},
		{"JSONInFence", `[{"type":"json_path_equals","path":"ok","equals":"yes"}]`, "Here you go:\n```json\n{\"ok\": \"yes\"}\n```", true, ""},
		{"ContainsAtPath", `[{"type":"contains","path":"route_check.result","value":"passed"}]`, itinerary, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checks := mustChecks(t, tc.checks)
			got := checks[0].Run(evals.ParseOutput(tc.output))
			if got.Passed != tc.want {
				t.Fatalf("passed = %v, want %v (%s)", got.Passed, tc.want, got.Evidence)
			}
			if !strings.Contains(got.Evidence, tc.ev) {
				t.Fatalf("evidence %q does not contain %q", got.Evidence, tc.ev)
			}
		})
	}
	t.Run("ErrInvalid", func(t *testing.T) {
		for js, want := range map[string]string{
			`[{"type":"regex","value":"("}]`:                                    "check 1: value: is not a valid regular expression",
			`[{"type":"json_path_equals","equals":1}]`:                          "check 1: path: is required",
			`[{"type":"contains","value":"x","extra":1}]`:                       `unknown field "extra"`,
			`[{"type":"time_window","start":"2pm","end":"1pm"}]`:                "start before end",
			`[{"type":"contains","value":"x","path":"a..b"}]`:                   "empty segment",
			`{"type":"contains"}`:                                               "not a JSON array",
			`[{"type":"time_window","start":"14:00","end":"16:00","mode":"x"}]`: `mode: "x"`,
		} {
			if _, err := evals.ParseChecks(js); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", js, err, want)
			}
		}
	})
}
