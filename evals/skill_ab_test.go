package evals_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/sashabaranov/go-openai"
)

const skillABSuite = `
name: skills
cases:
  - id: skills-help
    kind: skill_ab
    skills:
      - name: release-notes
        description: Write the release notes of a version from its merged changes and tickets.
        body: |
          1. Group the changes under the headings Added, Fixed and Removed.
          2. End with a line "Tickets:" listing the ticket ids.
          The deploy key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c; never print it.
      - name: incident-report
        description: Write the incident report after an outage or a failed deploy.
        body: Open with a one-line impact summary, then a timeline with every time in UTC.
    tasks:
      - task: write the release notes for version 2.4
        expect: [release-notes]
        checks:
          - {type: contains, value: "Fixed"}
          - {type: contains, value: "Tickets:"}
      - task: write the incident report for yesterday's outage
        expect: [incident-report]
      - task: what is the capital of France
        checks:
          - {type: not_contains, value: "Tickets:"}
    min_with: 1
    min_uplift: 0.5
`

// skillModel answers as a model that follows what it is given: release
// notes with headings and tickets once it holds the release-notes skill,
// times in UTC once it holds the incident one, plain text otherwise; its
// judge is satisfied by an answer that gives its times in UTC.
type skillModel struct {
	mu      sync.Mutex
	systems []string
}

func (m *skillModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	m.mu.Lock()
	m.systems = append(m.systems, system)
	m.mu.Unlock()
	var content string
	switch {
	case strings.Contains(system, "You check whether"):
		var asked struct{ Rule, Output string }
		json.Unmarshal([]byte(strings.SplitN(user, "\n", 2)[0]), &asked)
		content = `{"result":"unsatisfied","evidence":"no times"}`
		if strings.Contains(asked.Rule, "incident") && strings.Contains(asked.Output, "UTC") {
			content = `{"result":"satisfied","evidence":"09:12 UTC"}`
		}
	case strings.Contains(system, `<skill name="release-notes">`):
		content = `{"text":"Added: dark mode. Fixed: login loop. Removed: v1 API. Tickets: T-12, T-19"}`
	case strings.Contains(system, `<skill name="incident-report">`):
		content = `{"text":"Impact: checkout down 40 minutes. Timeline: 09:12 UTC alert, 09:52 UTC fixed."}`
	case strings.Contains(user, "France"):
		content = `{"text":"Paris."}`
	default:
		content = `{"text":"Here is what changed and what happened, in short."}`
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
		ID: "x", Object: "chat.completion", Model: req.Model,
		Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: content}, FinishReason: "stop"}},
		Usage:   openai.Usage{PromptTokens: 80, CompletionTokens: 20, TotalTokens: 100},
	})
}

// TestSkillAB: each task is answered with the skills selection offers and
// without; checks (or the judge, reading the expected skill's
// instructions) score both; the skills' instructions reach the model with
// their credentials masked; the bars decide; without a model the case is
// skipped.
func TestSkillAB(t *testing.T) {
	ctx := context.Background()
	m := &skillModel{}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL + "/v1"
	client := openai.NewClientWithConfig(cfg)
	judge := model.New(model.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: "fake"}, nil)
	deps := evals.Deps{Memory: newFakeMemory(), Model: client, ModelName: "fake", Judge: judge}

	rep, err := evals.RunSuite(ctx, deps, MustParseSuite(t, skillABSuite))
	if err != nil {
		t.Fatal(err)
	}
	c := wantStatus(t, rep, "skills-help", evals.StatusPassed)
	d := c.Detail.SkillAB
	if d.With != 1 || d.Without != 0.333 || d.Uplift != 0.667 {
		t.Fatalf("with %.3f without %.3f uplift %.3f", d.With, d.Without, d.Uplift)
	}
	methods := []string{d.Tasks[0].Method, d.Tasks[1].Method, d.Tasks[2].Method}
	if strings.Join(methods, ",") != "code,judge,code" {
		t.Errorf("methods = %v", methods)
	}
	if got := d.Tasks[0].Offered; len(got) == 0 || got[0] != "release-notes" {
		t.Errorf("offered for the release notes: %v", got)
	}
	if got := d.Tasks[2].Offered; len(got) != 0 {
		t.Errorf("offered for a task no skill fits: %v", got)
	}
	// 6 answers and 2 judge calls of 100 tokens.
	if c.Tokens != 800 {
		t.Errorf("tokens = %d", c.Tokens)
	}
	m.mu.Lock()
	for _, s := range m.systems {
		if strings.Contains(s, "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c") {
			t.Error("a skill's credential reached the model")
		}
	}
	m.mu.Unlock()

	t.Run("BarsDecide", func(t *testing.T) {
		s := MustParseSuite(t, strings.Replace(skillABSuite, "min_uplift: 0.5", "min_uplift: 0.9", 1))
		rep, err := evals.RunSuite(ctx, deps, s)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, rep, "skills-help", evals.StatusFailed, "uplift +0.67 is below +0.90")
	})
	t.Run("SkippedWithoutModel", func(t *testing.T) {
		rep, err := evals.RunSuite(ctx, evals.Deps{Memory: newFakeMemory()}, MustParseSuite(t, skillABSuite))
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, rep, "skills-help", evals.StatusSkipped)
	})
	t.Run("Invalid", func(t *testing.T) {
		bad := `
name: bad
cases:
  - id: no-body
    kind: skill_ab
    skills:
      - {name: release-notes, description: Write release notes.}
    tasks:
      - task: anything at all
  - id: body-in-selection
    kind: skill_selection
    skills:
      - {name: release-notes, description: Write release notes., body: steps}
    tasks:
      - task: write notes
        expect: [release-notes]
`
		_, err := evals.ParseSuite("bad.yaml", []byte(bad))
		if err == nil {
			t.Fatal("an invalid suite parsed")
		}
		for _, want := range []string{"skills[0].body: a skill_ab case needs each skill's instructions",
			"tasks[0]: needs checks, or the skills it expects", "skills[0].body: applies to skill_ab cases only"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
}
