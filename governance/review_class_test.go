package governance

import "testing"

// A class is structural: the next proposal like a rejected one is of its
// class whatever its words and whatever channel proposed it, and one of
// another subject, kind or risk is not.
func TestReviewClass(t *testing.T) {
	lesson := func(text string) ReviewClass { return ClassOf(TypeLesson, ReasonToolFailure, text, nil) }
	same := [][2]string{
		{"When go test fails because the schema is missing, apply the pending migrations first",
			"When go test fails because a table does not exist, run the migrations before the tests"},
		{"Never commit without signing", "Always commit with signing turned on"},
		{"Write the trip report to the shared drive", "Write the trip reports to the team wiki"},
		{"提交前运行检查工具", "提交前运行检查，然后再推送"},
	}
	for _, p := range same {
		if a, b := lesson(p[0]), lesson(p[1]); a.Key() != b.Key() {
			t.Errorf("%q and %q: classes %q and %q, want one", p[0], p[1], a.Key(), b.Key())
		}
	}
	differ := [][2]string{
		{"When go test fails because the schema is missing, apply the pending migrations first",
			"When npm test fails because dotenv is missing, add dotenv to the dependencies"},
		{"Never commit without signing", "Never push directly to main"},
		{"Write the trip report to the shared drive", "Book aisle seats"},
	}
	for _, p := range differ {
		if a, b := lesson(p[0]), lesson(p[1]); a.Key() == b.Key() {
			t.Errorf("%q and %q share class %q", p[0], p[1], a.Key())
		}
	}
	text := "Never commit without signing"
	base := ClassOf(TypePreference, ReasonExplicit, text, nil)
	for name, other := range map[string]ReviewClass{
		"kind": ClassOf(TypeFact, ReasonExplicit, text, nil),
		"risk": ClassOf(TypePreference, ReasonExplicit, text, []Finding{{Category: GateAuthority}}),
	} {
		if other.Key() == base.Key() {
			t.Errorf("another %s, same class %q", name, base.Key())
		}
	}
	if other := ClassOf(TypePreference, ReasonRepeated, text, nil); other.Key() != base.Key() {
		t.Errorf("the same proposal on another channel is class %q, want %q", other.Key(), base.Key())
	}
	rc := StandingClasses([]*RejectedClass{{ID: 1, Class: base, Reason: ClassOneOff}})
	if rc.Match(ClassOf(TypePreference, ReasonExplicit, "Commits: never without signing", nil)) == nil {
		t.Error("a standing rejection does not match its class")
	}
	if rc.Match(ClassOf(TypePreference, ReasonExplicit, "Never push directly to main", nil)) != nil {
		t.Error("a standing rejection matches another class")
	}
}
