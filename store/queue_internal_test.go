package store

import "testing"

// TestOpName: a queue turn is named by the store method, whatever the
// receiver, generic instance or closure it ran in.
func TestOpName(t *testing.T) {
	for fn, want := range map[string]string{
		"github.com/mnemo-console/mnemo/store.(*Store).IngestEvents":                              "IngestEvents",
		"github.com/mnemo-console/mnemo/store.(*Store).forget.func2":                              "forget",
		"github.com/mnemo-console/mnemo/store.(*scrubber).run":                                    "scrubber.run",
		"github.com/mnemo-console/mnemo/store.(*scrubber).wake.gowrap1":                           "scrubber.wake",
		"github.com/mnemo-console/mnemo/store/internal/lifecycle.(*RuleActions[...]).ApproveRule": "ApproveRule",
		"github.com/mnemo-console/mnemo/store.recallRecorder.SaveTrace":                           "SaveTrace",
		"github.com/mnemo-console/mnemo/store.functionsAreNotClosures":                            "functionsAreNotClosures",
		"": "unknown",
	} {
		if got := opName(fn); got != want {
			t.Errorf("opName(%q) = %q, want %q", fn, got, want)
		}
	}
}
