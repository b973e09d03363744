package model

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestPromptsVersioned fails when a prompt or schema changes without a new
// PromptVersion: candidates name the prompts that proposed them, so the
// same name must always mean the same prompts. After a change, bump
// PromptVersion and put the new hash here.
func TestPromptsVersioned(t *testing.T) {
	const version, hash = "3", "2af2030f52f2884a"
	sum := sha256.Sum256([]byte(extractSystemPrompt + extractSchema + mergeSystemPrompt + mergeSchema))
	if got := hex.EncodeToString(sum[:])[:16]; PromptVersion != version || got != hash {
		t.Fatalf("prompts hash %s, version %s: the prompts changed; bump PromptVersion and record the new hash", got, PromptVersion)
	}
}
