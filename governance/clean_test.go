package governance_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestEventValidateHygiene: ids, session ids and subject ids are printable
// (no NUL, C0/C1 controls, ANSI escapes, bidi or other format characters);
// text may hold tabs and line breaks but no other control character.
func TestEventValidateHygiene(t *testing.T) {
	base := func() *governance.Event {
		return &governance.Event{ID: "e1", SessionID: "s1", SubjectID: "u1", Turn: 1, Role: governance.RoleUser,
			Text: "hello\tworld\r\nline two", OccurredAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	ok := base()
	ok.Normalize()
	if p := ok.Validate(); len(p) > 0 {
		t.Fatalf("clean event rejected: %v", p)
	}
	bad := map[string]string{
		"nul":      "a\x00b",
		"escape":   "a\x1b[31mred",
		"del":      "a\x7fb",
		"c1":       "a\u0085b",
		"bidi":     "a\u202eb",
		"isolate":  "a\u2066b",
		"zwsp":     "a\u200bb",
		"newline":  "a\nb",
		"tag":      "a\U000E0041b",
		"spaceEnd": "a ",
		"invalid":  "a\xffb",
	}
	for name, v := range bad {
		for _, field := range []string{"id", "session_id", "subject_id"} {
			e := base()
			switch field {
			case "id":
				e.ID = v
			case "session_id":
				e.SessionID = v
			case "subject_id":
				e.SubjectID = v
			}
			e.Normalize()
			problems := strings.Join(e.Validate(), "; ")
			if !strings.Contains(problems, field+" ") {
				t.Errorf("%s %s = %q accepted (problems %q)", field, name, v, problems)
			}
		}
	}
	for _, v := range []string{"a\x00b", "a\x1b[2Jb", "a\u0085b", "a\x7fb", "a\xffb"} {
		e := base()
		e.Text = v
		e.Normalize()
		if problems := strings.Join(e.Validate(), "; "); !strings.Contains(problems, "text ") {
			t.Errorf("text %q accepted", v)
		}
	}
}

func TestCheckSlug(t *testing.T) {
	for _, ok := range []string{"travel-agent", "eval-3", "bench", "a_b.c"} {
		if p := governance.CheckSlug(ok); p != "" {
			t.Errorf("slug %q rejected: %s", ok, p)
		}
	}
	for _, bad := range []string{"", "Travel Agent", "a/b", "a\u202eb", "旅行", strings.Repeat("a", 65), "-x"} {
		if governance.CheckSlug(bad) == "" {
			t.Errorf("slug %q accepted", bad)
		}
	}
}
