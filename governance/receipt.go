package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// RecallReceipt is a content-addressed record of what shaped a context
// package: each included item's id, version and the SHA-256 of its stored
// text, and the recall policy's version, hashed together. It holds hashes,
// never text, so it is kept with the trace and checked later.
type RecallReceipt struct {
	// Hash is "sha256:<hex>" over PolicyVersion and Items (ReceiptHash).
	Hash          string        `json:"hash"`
	PolicyVersion string        `json:"policy_version"`
	Items         []ReceiptItem `json:"items"`
}

// ReceiptItem is one included item as a receipt records it.
type ReceiptItem struct {
	ID string `json:"id"`
	// Version is a rule's version (0 for episodes and events).
	Version  int    `json:"version,omitempty"`
	TextHash string `json:"text_sha256"`
}

// TextHash is the hex SHA-256 of a memory's stored text.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// RecallPolicyVersion names the recall policy a package was built under:
// a short hash of the weights, so a change of any number is a new version.
func RecallPolicyVersion(w RecallWeights) string {
	b, _ := json.Marshal(w)
	sum := sha256.Sum256(b)
	return "recall-" + hex.EncodeToString(sum[:6])
}

// NewReceipt seals items (in package order) under policy.
func NewReceipt(policy string, items []ReceiptItem) *RecallReceipt {
	if items == nil {
		items = []ReceiptItem{}
	}
	r := &RecallReceipt{PolicyVersion: policy, Items: items}
	r.Hash = ReceiptHash(policy, items)
	return r
}

// ReceiptHash is the hash of a receipt: SHA-256 over the policy version
// and one line "id version text_sha256" per item, in order.
func ReceiptHash(policy string, items []ReceiptItem) string {
	var b strings.Builder
	b.WriteString("mnemo-receipt-v1\npolicy " + policy + "\n")
	for _, it := range items {
		fmt.Fprintf(&b, "%s %d %s\n", it.ID, it.Version, it.TextHash)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Intact reports whether the receipt's hash matches its contents.
func (r *RecallReceipt) Intact() bool {
	return r != nil && r.Hash == ReceiptHash(r.PolicyVersion, r.Items)
}

// ReceiptState says what became of a receipt's item.
type ReceiptState string

const (
	ReceiptUnchanged ReceiptState = "unchanged"
	ReceiptEdited    ReceiptState = "edited"
	ReceiptForgotten ReceiptState = "forgotten"
)

// ReceiptStates lists every state.
var ReceiptStates = []ReceiptState{ReceiptUnchanged, ReceiptEdited, ReceiptForgotten}

// ReceiptCheck is one item of a receipt checked against memory now. A
// forgotten item carries only its id and state.
type ReceiptCheck struct {
	ID    string       `json:"id"`
	Kind  RecallKind   `json:"kind,omitempty"`
	State ReceiptState `json:"state"`
	// Version and CurrentVersion are a rule's version then and now.
	Version        int `json:"version,omitempty"`
	CurrentVersion int `json:"current_version,omitempty"`
}

// CheckReceipt compares each item of r with the item as it is now
// (current, by id; an item missing from it is forgotten).
func CheckReceipt(r *RecallReceipt, current map[string]ReceiptItem) []ReceiptCheck {
	if r == nil {
		return nil
	}
	out := make([]ReceiptCheck, 0, len(r.Items))
	for _, it := range r.Items {
		kind, _, _ := ParseRecallID(it.ID)
		now, ok := current[it.ID]
		switch {
		case !ok:
			out = append(out, ReceiptCheck{ID: it.ID, State: ReceiptForgotten})
		case now.TextHash == it.TextHash && now.Version == it.Version:
			out = append(out, ReceiptCheck{ID: it.ID, Kind: kind, State: ReceiptUnchanged, Version: it.Version, CurrentVersion: now.Version})
		default:
			out = append(out, ReceiptCheck{ID: it.ID, Kind: kind, State: ReceiptEdited, Version: it.Version, CurrentVersion: now.Version})
		}
	}
	return out
}

// ReceiptItemOf is the receipt entry of an item whose stored text is text.
func ReceiptItemOf(id string, version int, text string) ReceiptItem {
	return ReceiptItem{ID: id, Version: version, TextHash: TextHash(text)}
}
