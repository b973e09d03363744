package governance_test

import (
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestValidateSlug(t *testing.T) {
	for _, slug := range []string{"travel-agent", "a", "eval-team", "0day", "x-", strings.Repeat("a", governance.MaxSlugLen)} {
		if err := governance.ValidateSlug(slug); err != nil {
			t.Errorf("%q: %v", slug, err)
		}
	}
	for _, slug := range []string{"", "-x", "Travel", "travel agent", "travel_agent", "a.b", "a/b", "旅行", "x\n",
		strings.Repeat("a", governance.MaxSlugLen+1)} {
		err := governance.ValidateSlug(slug)
		if governance.ErrorCode(err) != governance.EINVALID {
			t.Errorf("%q: got %v, want EINVALID", slug, err)
		}
	}
}
