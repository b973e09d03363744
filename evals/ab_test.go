package evals_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance/model"
	"github.com/sashabaranov/go-openai"
)

const (
	withMemoryAnswer = `{"days":[
 {"day":1,"blocks":[{"time":"09:00-13:00","activity":"上海迪士尼乐园，全天只在园区"},{"time":"14:00-16:00","activity":"回酒店午睡"},{"time":"16:30-20:00","activity":"迪士尼烟花"}]},
 {"day":2,"blocks":[{"time":"09:30-12:00","activity":"外滩、南京路（同一片区）"},{"time":"14:00-16:00","activity":"酒店午睡"}]}],
 "route_check":{"attached":true,"result":"passed","detail":"每天景点在同一片区"}}`
	withoutMemoryAnswer = `{"days":[
 {"day":1,"blocks":[{"time":"09:00-12:00","activity":"上海迪士尼乐园"},{"time":"13:00-17:00","activity":"外滩和东方明珠"}]},
 {"day":2,"blocks":[{"time":"09:00-17:00","activity":"野生动物园和豫园"}]}],
 "route_check":{"attached":false}}`
)

// fakeOpenAI is an OpenAI-compatible endpoint with scripted answers: the
// with-memory answer keeps the nap window and attaches the route check,
// the without-memory answer does neither; the judge says satisfied when the
// answer gives Disneyland its own day.
type fakeOpenAI struct {
	mu        sync.Mutex
	requests  []openai.ChatCompletionRequest
	judgeText string // when set, the judge replies with this text
	// judge is the product's judge (governance/model) over this endpoint.
	judge *model.Client
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	judgeText := f.judgeText
	f.mu.Unlock()
	system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	var content string
	switch {
	case strings.Contains(system, "You check whether"):
		switch {
		case judgeText != "":
			content = judgeText
		case strings.Contains(user, "全天只在园区"):
			content = `{"result":"satisfied","evidence":"上海迪士尼乐园，全天只在园区"}`
		default:
			content = `{"result":"unsatisfied","evidence":"外滩和东方明珠"}`
		}
	case strings.Contains(system, "<recalled_memory>"):
		content = withMemoryAnswer
	default:
		content = withoutMemoryAnswer
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
		ID: "x", Object: "chat.completion", Model: req.Model,
		Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: "assistant", Content: content}, FinishReason: "stop"}},
		Usage:   openai.Usage{PromptTokens: 100, CompletionTokens: 50, TotalTokens: 150},
	})
}

func newFakeOpenAI(t *testing.T) (*fakeOpenAI, *openai.Client) {
	t.Helper()
	f := &fakeOpenAI{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL + "/v1"
	f.judge = model.New(model.Config{BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: "fake"}, nil)
	return f, openai.NewClientWithConfig(cfg)
}

const abSuite = `
name: ab
project: travel
subject: fam
fixtures:
  sessions:
    - events:
        - text: "nap: always keep 14:00-16:00 free for the nap"
        - text: "route: from now on attach the route check to every itinerary"
        - text: "far: always give a far-away big attraction like disneyland its own day"
        - text: "hotel: always book near the metro for the trip"
cases:
  - id: shanghai
    kind: ab
    task: plan the two-day shanghai trip to disneyland; keep the nap, attach the route check, trip must work
    output_schema:
      type: object
      required: [days, route_check]
      properties:
        days: {type: array}
        route_check: {type: object}
    rules:
      - match: {regex: "14:00"}
        name: nap window
        checks: [{type: time_window, start: "14:00", end: "16:00", path: "days.*"}]
      - match: route check
        name: route check attached
        checks: [{type: json_path_equals, path: route_check.attached, equals: true}]
      - match: far-away
        name: far attraction own day
    guards:
      - {type: not_contains, value: Hotel X}
    min_with: 1
    min_uplift: 0.5
`

// newABMemory is a fake whose hotel rule (the fourth fixture rule) carries a
// stored check; the other rules get the case's checks or the judge.
func newABMemory() *fakeMemory {
	mem := newFakeMemory()
	mem.checks[5] = `[{"type":"not_contains","value":"Hotel X"}]`
	return mem
}

func TestAB(t *testing.T) {
	ctx := context.Background()
	t.Run("Uplift", func(t *testing.T) {
		fake, client := newFakeOpenAI(t)
		mem := newABMemory()
		s := MustParseSuite(t, abSuite)
		rep, err := evals.RunSuite(ctx, evals.Deps{Memory: mem, Model: client, ModelName: "fake", Judge: fake.judge, Price: evals.Price{InputPerMTok: 1, OutputPerMTok: 2}}, s)
		if err != nil {
			t.Fatal(err)
		}
		c := wantStatus(t, rep, "shanghai", evals.StatusPassed)
		d := c.Detail.AB
		if d.With.Score != 1 || d.Without.Score != 0.25 || d.Uplift != 0.75 {
			t.Fatalf("with %.2f without %.2f uplift %.2f", d.With.Score, d.Without.Score, d.Uplift)
		}
		verdicts := map[string][2]string{}
		methods := map[string]string{}
		for _, r := range d.Rules {
			verdicts[r.Name] = [2]string{r.With.Verdict, r.Without.Verdict}
			methods[r.Name] = r.Method
		}
		for name, want := range map[string][2]string{
			"nap window":             {evals.Satisfied, evals.Unsatisfied},
			"route check attached":   {evals.Satisfied, evals.Unsatisfied},
			"far attraction own day": {evals.Satisfied, evals.Unsatisfied},
		} {
			if verdicts[name] != want {
				t.Errorf("%s = %v, want %v", name, verdicts[name], want)
			}
		}
		if methods["far attraction own day"] != "judge" || methods["nap window"] != "code" || len(d.Rules) != 4 {
			t.Fatalf("rules = %+v", d.Rules)
		}
		if len(d.Guards) != 1 || !d.Guards[0].Passed {
			t.Fatalf("guards = %+v", d.Guards)
		}
		// 2 answers + 2 judge calls, 150 tokens each; the judge's tokens
		// count as prompt tokens.
		if c.Tokens != 600 || math.Abs(c.Cost-0.0007) > 1e-12 || rep.Metrics.Tokens != 600 {
			t.Fatalf("tokens = %d, cost = %v", c.Tokens, c.Cost)
		}
		m := rep.Metrics
		if m.Uplift == nil || *m.Uplift != 0.75 || len(m.Compliance) != 4 || m.Compliance[0].Uplift != 1 {
			t.Fatalf("metrics = %+v", m)
		}
		fake.mu.Lock()
		defer fake.mu.Unlock()
		var schema bool
		for _, r := range fake.requests {
			if r.ResponseFormat != nil && r.ResponseFormat.JSONSchema != nil && r.ResponseFormat.JSONSchema.Name == "answer" {
				schema = true
			}
		}
		if !schema {
			t.Fatal("the answer was not requested in the suite's output schema")
		}
		if out := rep.String(); !strings.Contains(out, "uplift +0.75") {
			t.Fatalf("text report:\n%s", out)
		}
	})

	t.Run("ErrJudgeParse", func(t *testing.T) {
		fake, client := newFakeOpenAI(t)
		fake.judgeText = "Sure! The itinerary keeps Disneyland on its own day."
		rep, err := evals.RunSuite(ctx, evals.Deps{Memory: newABMemory(), Model: client, ModelName: "fake", Judge: fake.judge}, MustParseSuite(t, abSuite))
		if err != nil {
			t.Fatal(err)
		}
		c := wantStatus(t, rep, "shanghai", evals.StatusError, `judging "far attraction own day" on the answer with memory`,
			"did not match the expected format")
		if strings.Contains(c.Reason, "Sure! The itinerary") {
			t.Errorf("the reason carries the model's raw reply: %s", c.Reason)
		}
		for _, r := range c.Detail.AB.Rules {
			if r.Name == "far attraction own day" && (r.With.Verdict != evals.VerdictErr || r.With.Error == "") {
				t.Fatalf("judge error not recorded: %+v", r.With)
			}
		}
		if !rep.Failed() || rep.Metrics.Errors != 1 {
			t.Fatalf("report: failed=%v metrics=%+v", rep.Failed(), rep.Metrics)
		}
	})

	t.Run("BelowBarMustFail", func(t *testing.T) {
		fake, client := newFakeOpenAI(t)
		s := MustParseSuite(t, strings.Replace(abSuite, "min_uplift: 0.5", "min_uplift: 0.9", 1))
		rep, err := evals.RunSuite(ctx, evals.Deps{Memory: newABMemory(), Model: client, ModelName: "fake", Judge: fake.judge}, s)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, rep, "shanghai", evals.StatusFailed, "uplift +0.75 is below +0.90")
	})

	t.Run("JudgeFunc", func(t *testing.T) {
		_, client := newFakeOpenAI(t)
		calls := 0
		// The judge quotes the output with memory and paraphrases the other.
		judge := evals.JudgeFunc(func(ctx context.Context, rule, output string) (model.Verdict, int, error) {
			calls++
			if strings.Contains(output, "全天只在园区") {
				return model.Verdict{Result: model.ResultPartial, Evidence: "上海迪士尼乐园，全天 只在园区"}, 10, nil
			}
			return model.Verdict{Result: model.ResultPartial, Evidence: "the child rests"}, 10, nil
		})
		rep, err := evals.RunSuite(ctx, evals.Deps{Memory: newABMemory(), Model: client, ModelName: "fake", Judge: judge}, MustParseSuite(t, abSuite))
		if err != nil {
			t.Fatal(err)
		}
		c := caseResult(t, rep, "shanghai")
		if calls != 2 || c.Tokens != 320 {
			t.Fatalf("judge calls = %d, tokens = %d", calls, c.Tokens)
		}
		for _, r := range c.Detail.AB.Rules {
			if r.Name != "far attraction own day" {
				continue
			}
			if r.With.Verdict != evals.Partial || r.With.Quoted == nil || !*r.With.Quoted {
				t.Errorf("with memory: got %+v, want partial with its evidence quoted", r.With)
			}
			if r.Without.Quoted == nil || *r.Without.Quoted {
				t.Errorf("without memory: got %+v, want evidence flagged as not quoted", r.Without)
			}
		}
	})
}
