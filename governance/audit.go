package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// AuditFilter selects audit rows; zero fields are ignored.
type AuditFilter struct {
	Actor      string
	Action     string
	ObjectType string
	ObjectID   string
	ProjectIDs []int64 // restrict to these projects (nil: all)
	Since      string  // RFC 3339 lower bound
	Until      string  // RFC 3339 upper bound
	// HideEval leaves out what eval runs did in their scratch projects
	// (rows of projects that are eval scratch or no longer exist, and the
	// runner's own rows), so people's actions stand out.
	HideEval bool
	Offset   int
	Limit    int
}

// AuditVerification is the result of walking the audit chain.
type AuditVerification struct {
	OK    bool
	Rows  int
	BadID int64
	// Problem says what is wrong with row BadID.
	Problem string

	prev string // the hash of the last row checked
}

// NewAuditVerification starts a walk of the audit chain.
func NewAuditVerification() *AuditVerification { return &AuditVerification{OK: true} }

// Check folds the next row of the chain (in id order) into the walk:
// reason is the reason as the hash covers it (see AuditHash). The first
// broken row is kept; the rows after it are only counted.
func (v *AuditVerification) Check(e *AuditEntry, reason string) {
	v.Rows++
	if !v.OK {
		return
	}
	switch {
	case e.PrevHash != v.prev:
		v.OK, v.BadID, v.Problem = false, e.ID, "its link to the previous row does not match"
	case AuditHash(e, reason) != e.Hash:
		v.OK, v.BadID, v.Problem = false, e.ID, "its content does not match its hash"
	}
	v.prev = e.Hash
}

// AuditHash is SHA-256 over the previous row's hash and every field of
// audit row e, each field length-prefixed, the time in RFC 3339 UTC.
// reason is the reason as the chain covers it: its text, or the SHA-256 of
// a reason kept apart (so a forget can blank that text and the chain still
// verifies). Every store backend computes the same hash.
func AuditHash(e *AuditEntry, reason string) string {
	h := sha256.New()
	for _, f := range []string{
		e.PrevHash, e.At.UTC().Format(time.RFC3339), e.Actor, e.Action, e.ObjectType, e.ObjectID,
		strconv.FormatInt(e.ProjectID, 10), reason, e.PolicyVersion, e.Details,
	} {
		fmt.Fprintf(h, "%d:%s|", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AuditActions lists every action an audit row records; each has a label
// in both catalogs (audit_action.<action>), and a test fails on an action
// the code writes that is not here.
var AuditActions = []string{
	"account.create", "account.disable", "account.enable", "account.passwd", "account.role",
	"audit.rechain",
	"candidate.forget", "candidate.reject", "candidate.release",
	"eval.run_cancel", "eval.run_finish", "eval.run_queue", "eval.suite_save",
	"events.import", "heartbeat.run",
	"membership.remove", "membership.set",
	"project.create", "project.delete", "project.export", "project.import", "project.policy", "project.rename", "project.update",
	"rule.activate", "rule.approve", "rule.checks_set", "rule.demote", "rule.edit", "rule.evidence", "rule.expiry_clear",
	"rule.expiry_set", "rule.forget", "rule.hold", "rule.merge", "rule.merged_into", "rule.pause", "rule.propose", "rule.reject",
	"rule.replacement", "rule.restore", "rule.split", "rule.supersede", "rule.to_candidates", "rule.unpause",
	"subject.forget", "token.create", "token.revoke",
}
