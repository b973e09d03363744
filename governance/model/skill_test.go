package model_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/mnemo-console/mnemo/governance/model/modeltest"
)

// TestSkillPromptVersioned: the skill drafter's prompt and schema are the
// ones its version names.
func TestSkillPromptVersioned(t *testing.T) {
	const version, hash = "1", "ebf6e86a46a23247"
	var all string
	for _, f := range []string{"prompts/skill.txt", "prompts/skill.schema.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all += string(b)
	}
	sum := sha256.Sum256([]byte(all))
	if got := hex.EncodeToString(sum[:])[:16]; model.SkillPromptVersion != version || got != hash {
		t.Fatalf("skill prompt hash %s, version %s: the prompt changed; bump SkillPromptVersion and record the new hash", got, model.SkillPromptVersion)
	}
}

// TestDraftSkillText: a wording in whatever form real servers give it
// (a code fence, prose around it, a server without response_format) is
// read; a field missing, a title of two lines, an over-long description, a
// refusal or a cut-off reply is an error, never a wording.
func TestDraftSkillText(t *testing.T) {
	ctx := context.Background()
	in := governance.SkillDraftInput{Name: "go-test-procedure", Steps: []string{"`go vet ./...`"}, Check: "`go test ./...`", Asks: []string{"Please ship the fix."}}
	good := `{"title":"Ship a Go fix","description":"Vet and test a Go change before it ships.","when_to_use":"For Go code."}`
	for name, tc := range map[string]struct {
		kind  modeltest.ServerKind
		reply modeltest.Reply
		ok    bool
	}{
		"schema":       {modeltest.SchemaServer, modeltest.Reply{Content: good}, true},
		"fenced":       {modeltest.LaxServer, modeltest.Reply{Content: "Here it is:\n```json\n" + good + "\n```\nHope it helps."}, true},
		"plain server": {modeltest.PlainServer, modeltest.Reply{Content: good}, true},
		"missing":      {modeltest.SchemaServer, modeltest.Reply{Content: `{"title":"Ship","description":"Vet and test."}`}, false},
		"two lines":    {modeltest.SchemaServer, modeltest.Reply{Content: `{"title":"Ship\nnow","description":"Vet.","when_to_use":""}`}, false},
		"too long":     {modeltest.SchemaServer, modeltest.Reply{Content: `{"title":"Ship","description":"` + strings.Repeat("vet ", 300) + `","when_to_use":""}`}, false},
		"refusal":      {modeltest.SchemaServer, modeltest.Reply{Refusal: "I can't help with that."}, false},
		"cut off":      {modeltest.SchemaServer, modeltest.Reply{Content: `{"title":"Ship a Go`, FinishReason: "length"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			chat := modeltest.NewChat(t, tc.kind, tc.reply)
			c := model.New(model.Config{BaseURL: chat.URL(), APIKey: "test", Model: "fake", MaxRetries: 1, Backoff: time.Millisecond}, nil)
			text, err := c.DraftSkillText(ctx, in)
			if tc.ok != (err == nil) {
				t.Fatalf("wording %+v, error %v", text, err)
			}
			if tc.ok && (text.Title != "Ship a Go fix" || text.Drafter != "model/fake@skill1") {
				t.Fatalf("wording = %+v", text)
			}
		})
	}
}
