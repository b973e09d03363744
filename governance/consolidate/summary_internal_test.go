package consolidate

import (
	"testing"

	"github.com/mnemo-console/mnemo/governance/gate"
)

// TestKindPhrases: an episode summary names what every risk feature of the
// gate touches, in both languages, instead of "something outside the
// low-risk set".
func TestKindPhrases(t *testing.T) {
	for _, name := range gate.RiskFeatures() {
		k, ok := kindPhrases[name]
		if !ok || k[0] == "" || k[1] == "" {
			t.Errorf("risk feature %q has no kind phrase in both languages", name)
		}
	}
}
