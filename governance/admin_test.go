package governance_test

import (
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// TestPolicyDisabledAccount: a disabled account may do nothing, whatever
// its roles, as if nobody were signed in.
func TestPolicyDisabledAccount(t *testing.T) {
	at := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	p := &governance.Project{ID: 7, Slug: "travel-agent"}
	for _, a := range []*governance.Account{
		{Username: "root", IsAdmin: true, DisabledAt: &at},
		{Username: "rita", DisabledAt: &at, Memberships: []governance.Membership{{ProjectID: 7, Role: governance.ProjectReviewer}}},
		{Username: "mia", DisabledAt: &at, Memberships: []governance.Membership{{ProjectID: 7, Role: governance.ProjectMember, SubjectID: "family-li"}}},
	} {
		for _, action := range governance.Actions {
			for _, o := range []governance.Object{{}, governance.InProject(p), governance.InProject(p).About("family-li")} {
				err := governance.Can(governance.AccountActor(a), action, o)
				if governance.ErrorCode(err) != governance.EUNAUTHORIZED {
					t.Errorf("disabled %s, %s on %+v: %v, want EUNAUTHORIZED", a.Username, action, o, err)
				}
			}
		}
		enabled := *a
		enabled.DisabledAt = nil
		if err := governance.Can(governance.AccountActor(&enabled), governance.ActSee, governance.InProject(p).About("family-li")); err != nil {
			t.Errorf("enabled %s may not see its project: %v", a.Username, err)
		}
	}
}
