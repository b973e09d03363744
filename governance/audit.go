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
