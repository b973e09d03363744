package forgetplan

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Tombstones: what a subject forget leaves in place of identifiers
// (docs/forget.md, "What a forget leaves"). A tombstone is a prefix and 32 hex
// digits of an HMAC-SHA256 of the identifier: the same identifier under
// the same key gives the same tombstone (sessions stay grouped, a
// re-imported event is recognised), and without the key nothing confirms a
// guess. Event ids are made with a key kept per project (forget_keys);
// session and subject ids, and the reference an audit row names a
// subject by, with the subject's key (subject_keys), which the subject's
// forget deletes.

// Tombstone prefixes.
const (
	EventTombstone   = "forgotten:"
	SessionTombstone = "forgotten-session:"
	SubjectTombstone = "forgotten-subject:"
	SubjectRefPrefix = "subject:"
)

// Tombstone is the tombstone of s under key, with its prefix.
func Tombstone(key []byte, prefix, s string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return prefix + hex.EncodeToString(m.Sum(nil)[:16])
}

// NewKey returns a fresh random key.
func NewKey() ([]byte, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("store: new key: %w", err)
	}
	return k, nil
}

// SubjectRef is how an audit row names a subject: a keyed hash under the
// subject's key, which the subject's forget deletes, so the reference can
// no longer be confirmed.
func SubjectRef(key []byte, subjectID string) string {
	return Tombstone(key, SubjectRefPrefix, subjectID)
}

// SubjectOfRef finds which of a project's subjects an audit row's keyed
// reference names: the subject whose key (keys: subject id → key, as
// subject_keys holds them) gives ref. A restore uses it to replay a
// subject forget onto a backup that still holds the subject's key; false
// when none does (the key was made after the backup, or is gone).
func SubjectOfRef(ref string, keys map[string][]byte) (string, bool) {
	for subject, key := range keys {
		if hmac.Equal([]byte(SubjectRef(key, subject)), []byte(ref)) {
			return subject, true
		}
	}
	return "", false
}
