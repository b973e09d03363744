package model_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance/model"
)

func TestJudge(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		f := newFakeLLM(t, reply(`{"result": "partial", "evidence": " It books an aisle seat but for the wrong date. "}`, 55))
		v, tokens, err := f.client(nil).Judge(ctx, "Always book aisle seats.", "I booked seat 14C (aisle) for the 3rd.")
		if err != nil {
			t.Fatal(err)
		}
		want := model.Verdict{Result: model.ResultPartial, Evidence: "It books an aisle seat but for the wrong date."}
		if v != want || tokens != 55 {
			t.Errorf("got %+v %d, want %+v 55", v, tokens, want)
		}
		var in struct{ Rule, Output string }
		if err := json.Unmarshal([]byte(f.requests()[0].Messages[1].Content), &in); err != nil || in.Rule != "Always book aisle seats." {
			t.Errorf("user message: got %q (%v)", f.requests()[0].Messages[1].Content, err)
		}
	})

	t.Run("Invalid", func(t *testing.T) {
		for _, content := range []string{
			`The output looks fine to me.`,
			`{"result": "mostly", "evidence": "close enough"}`,
			`{"result": "satisfied"}`,
			`{"result": "satisfied", "evidence": "  "}`,
			`{"evidence": "x"}`,
		} {
			f := newFakeLLM(t, reply(content, 20))
			v, _, err := f.client(nil).Judge(ctx, "rule", "output")
			requireInvalid(t, err)
			if v != (model.Verdict{}) {
				t.Errorf("%s: got verdict %+v, want none", content, v)
			}
			if strings.Contains(err.Error(), "looks fine") {
				t.Errorf("error carries the raw reply: %v", err)
			}
		}
	})
}
