package recall_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
)

// TestTerms: the terms recall's full-text queries look for. Events take
// every phrase term (words, character pairs, a lone character); episodes
// the character pairs first, then the words, never a lone character.
// Repeats, over-long terms and terms past the limit are left out.
func TestTerms(t *testing.T) {
	req := governance.RecallRequest{Task: "Committing 午睡 rules, committed 好 午睡 " + strings.Repeat("x", recall.MaxTermBytes+1),
		TaskType: "coding"}
	for _, tc := range []struct {
		limit int
		chars bool
		want  string
	}{
		{10, true, "[commit 午睡 rule 好 code]"},
		{10, false, "[午睡 commit rule code]"},
		{2, false, "[午睡 commit]"},
	} {
		if got := fmt.Sprint(recall.Terms(req, tc.limit, tc.chars)); got != tc.want {
			t.Errorf("Terms(limit %d, chars %v) = %s, want %s", tc.limit, tc.chars, got, tc.want)
		}
	}
}
