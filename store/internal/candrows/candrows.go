// Package candrows is the part of a reviewer's decision on a held or
// blocked candidate both stores share that is not SQL: the check before
// anything is written, the note the released candidates keep and the
// audit rows of a release and a rejection. What a released candidate
// becomes is lifecycle.ReleasedRule; each store keeps its SQL.
package candrows

import (
	"encoding/json"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
)

// ReleaseNote is the status reason of a released candidate.
const ReleaseNote = "Released into review by a reviewer."

// Undecided refuses a candidate that no longer waits for a reviewer.
func Undecided(c *governance.Candidate) error {
	switch c.Status {
	case governance.CandidateHeld, governance.CandidateBlocked:
		return nil
	}
	return governance.Errorf(governance.ECONFLICT, "This candidate no longer waits for a reviewer: only held or blocked candidates can be released or rejected.")
}

// Audit is the audit row of action on c, with details (ReleaseDetails,
// RejectDetails: names, numbers and strings) as its JSON.
func Audit(actor, action string, c *governance.Candidate, reason string, details map[string]any) *governance.AuditEntry {
	b, _ := json.Marshal(details)
	return &governance.AuditEntry{
		Actor: actor, Action: action, ObjectType: "candidate", ObjectID: strconv.FormatInt(c.ID, 10),
		ProjectID: c.ProjectID, Reason: reason, Details: string(b),
	}
}

// ReleaseDetails are the details of c's release as rule ruleID: the
// status it had and, when the write gate found anything, the categories
// of its findings.
func ReleaseDetails(c *governance.Candidate, ruleID int64) map[string]any {
	details := map[string]any{"rule_id": ruleID, "was": c.Status}
	if len(c.Findings) > 0 {
		var cats []string
		for _, f := range c.Findings {
			cats = append(cats, f.Category)
		}
		details["findings"] = cats
	}
	return details
}

// RejectDetails are the details of c's rejection.
func RejectDetails(c *governance.Candidate) map[string]any {
	return map[string]any{"was": c.Status}
}
