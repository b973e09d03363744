package governance

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	Problem Text
	// Head is the chain's head: its number of rows and the hash of its
	// last row, for an outside witness to keep and give back (Expect).
	Head AuditHead
	// KeyedFrom is the id of the key epoch row (AuditKeyAction) from which
	// rows are sealed with the audit key (0: none).
	KeyedFrom int64

	key    []byte
	expect *AuditHead
	keyed  bool
	prev   string // the hash of the last row checked
}

// AuditKeyAction is the action of the row from which an audit chain is
// keyed: it and every row after it are sealed with an HMAC under the
// audit key (AuditMAC), the rows before it, written before the console
// had a key, with SHA-256 (AuditHash). Without the key no one can
// recompute the keyed rows of an edited chain.
const AuditKeyAction = "audit.key"

// AuditHead is where an audit chain ends: its number of rows and the hash
// of its last row. Kept outside the database (the console logs it at
// every change), it shows a chain that was cut or rewritten since.
type AuditHead struct {
	Rows int    `json:"rows"`
	Hash string `json:"hash"`
}

// String is the head as "rows:hash", the form --expect-head takes.
func (h AuditHead) String() string { return strconv.Itoa(h.Rows) + ":" + h.Hash }

// ParseAuditHead reads a head in String's form.
func ParseAuditHead(s string) (AuditHead, error) {
	n, hash, ok := strings.Cut(strings.TrimSpace(s), ":")
	rows, err := strconv.Atoi(n)
	if !ok || err != nil || rows < 0 || len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return AuditHead{}, Errorf(EINVALID, "An audit head is the number of rows, a colon and the 64 hex digits of the last row's hash.")
	}
	return AuditHead{Rows: rows, Hash: hash}, nil
}

// NewAuditVerification starts a walk of the audit chain with the audit
// key (nil: the chain is checked as far as its key epoch, which then
// fails). expect, when not nil, is a head kept from before: the walk
// fails unless its row is in the chain with that hash.
func NewAuditVerification(key []byte, expect *AuditHead) *AuditVerification {
	return &AuditVerification{OK: true, key: key, expect: expect}
}

// Check folds the next row of the chain (in id order) into the walk:
// reason is the reason as the hash covers it (see AuditHash). The first
// broken row is kept; the rows after it are only counted.
func (v *AuditVerification) Check(e *AuditEntry, reason string) {
	v.Rows++
	v.Head = AuditHead{Rows: v.Rows, Hash: e.Hash}
	if !v.OK {
		return
	}
	if !v.keyed && e.Action == AuditKeyAction {
		v.keyed, v.KeyedFrom = true, e.ID
	}
	switch {
	case e.PrevHash != v.prev:
		v.OK, v.BadID, v.Problem = false, e.ID, Say("its link to the previous row does not match")
	case v.keyed && v.key == nil:
		v.OK, v.BadID, v.Problem = false, e.ID, Say("it is sealed with the audit key, which was not given")
	case v.keyed && !hmac.Equal([]byte(AuditMAC(v.key, e, reason)), []byte(e.Hash)):
		v.OK, v.BadID, v.Problem = false, e.ID, Say("its content does not match its keyed hash (an edited row, or another audit key)")
	case !v.keyed && AuditHash(e, reason) != e.Hash:
		v.OK, v.BadID, v.Problem = false, e.ID, Say("its content does not match its hash")
	case v.expect != nil && v.Rows == v.expect.Rows && e.Hash != v.expect.Hash:
		v.OK, v.BadID, v.Problem = false, e.ID, Say("it is not the row of the expected head: the chain was rewritten since")
	}
	v.prev = e.Hash
}

// BrokenReason marks the walk broken at row id: the reason text kept
// apart from the row no longer matches the hash the row covers.
func (v *AuditVerification) BrokenReason(id int64) {
	if v.OK {
		v.OK, v.BadID, v.Problem = false, id, Say("its reason text does not match the hash the row covers")
	}
}

// Done ends the walk: a chain shorter than the expected head was cut.
func (v *AuditVerification) Done() {
	if v.OK && v.expect != nil && v.Rows < v.expect.Rows {
		v.OK, v.Problem = false, Say("the chain has %d rows, the expected head %d: rows were removed from its end", v.Rows, v.expect.Rows)
	}
}

// AuditHash is SHA-256 over the previous row's hash and every field of
// audit row e, each field length-prefixed, the time in RFC 3339 UTC.
// reason is the reason as the chain covers it: its text, or the SHA-256 of
// a reason kept apart (so a forget can blank that text and the chain still
// verifies). Every store backend computes the same hash.
func AuditHash(e *AuditEntry, reason string) string {
	h := sha256.New()
	auditFields(h, e, reason)
	return hex.EncodeToString(h.Sum(nil))
}

// AuditMAC is AuditHash keyed: HMAC-SHA256 under key over the same fields.
func AuditMAC(key []byte, e *AuditEntry, reason string) string {
	h := hmac.New(sha256.New, key)
	auditFields(h, e, reason)
	return hex.EncodeToString(h.Sum(nil))
}

func auditFields(h io.Writer, e *AuditEntry, reason string) {
	for _, f := range []string{
		e.PrevHash, e.At.UTC().Format(time.RFC3339), e.Actor, e.Action, e.ObjectType, e.ObjectID,
		strconv.FormatInt(e.ProjectID, 10), reason, e.PolicyVersion, e.Details,
	} {
		fmt.Fprintf(h, "%d:%s|", len(f), f)
	}
}

// AuditActions lists every action an audit row records; each has a label
// in both catalogs (audit_action.<action>), and a test fails on an action
// the code writes that is not here.
var AuditActions = []string{
	"account.create", "account.disable", "account.enable", "account.passwd", "account.role",
	"agentfiles.download", "agentfiles.sync",
	AuditKeyAction, "audit.rechain",
	"candidate.forget", "candidate.reject", "candidate.release",
	"eval.run_cancel", "eval.run_finish", "eval.run_queue", "eval.suite_save",
	"events.import", "heartbeat.run", "hermes.export",
	"membership.remove", "membership.set", "memory.export",
	"outcome.report", "outcome.review_accept", "outcome.review_close", "outcome.review_discard", "outcome.review_evidence",
	"outcome.review_open",
	"project.create", "project.delete", "project.export", "project.import", "project.outcome_policy", "project.policy", "project.rename", "project.update",
	"rule.activate", "rule.approve", "rule.checks_set", "rule.demote", "rule.edit", "rule.evidence", "rule.expiry_clear",
	"rule.expiry_set", "rule.forget", "rule.hold", "rule.merge", "rule.merged_into", "rule.pause", "rule.propose", "rule.reject",
	"rule.replacement", "rule.restore", "rule.split", "rule.supersede", "rule.to_candidates", UndoAuditAction, "rule.unpause",
	"skill.approve", "skill.archive", "skill.drafted", "skill.edit", "skill.edited", "skill.imported", "skill.masked", "skill.pin",
	"skill.proposed", "skill.reject", "skill.restore", "skill.stale", "skill.unpin",
	"source.follow", "source.stop", "subject.forget", "token.create", "token.revoke",
}
