package model_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func mergeItems() []governance.MergeItem {
	return []governance.MergeItem{
		{ID: 1, Type: governance.TypePreference, Statement: "The user wants aisle seats."},
		{ID: 2, Type: governance.TypePreference, Statement: "用户喜欢靠过道的座位。"},
		{ID: 3, Type: governance.TypePreference, Statement: "The user wants window seats."},
	}
}

func TestPartition(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		f := newFakeLLM(t, reply(`{"groups": [[1, 2], [3]]}`, 90))
		groups, tokens, err := f.client(nil).Partition(ctx, mergeItems())
		if err != nil {
			t.Fatal(err)
		}
		if want := [][]int64{{1, 2}, {3}}; !reflect.DeepEqual(groups, want) || tokens != 90 {
			t.Errorf("got %v %d, want %v 90", groups, tokens, want)
		}
		req := f.requests()[0]
		if rf := req.ResponseFormat; rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "merge" || !rf.JSONSchema.Strict {
			t.Fatalf("response_format: got %+v", rf)
		}
		if want := `{"id":2,"type":"user_preference","statement":"用户喜欢靠过道的座位。"}`; !strings.Contains(req.Messages[1].Content, want) {
			t.Errorf("user message lacks %s:\n%s", want, req.Messages[1].Content)
		}
	})

	t.Run("NotAPartition", func(t *testing.T) {
		for _, content := range []string{
			`{"groups": [[1, 2], [2, 3]]}`, // 2 twice
			`{"groups": [[1, 2]]}`,         // 3 left out
			`{"groups": [[1, 2], [3, 7]]}`, // 7 unknown
			`{"groups": [[1, 2, 3], []]}`,  // empty group
			`{"groups": null}`,
		} {
			f := newFakeLLM(t, reply(content, 90))
			groups, _, err := f.client(nil).Partition(ctx, mergeItems())
			if groups != nil {
				t.Errorf("%s: got groups %v, want none", content, groups)
			}
			requireInvalid(t, err)
		}
	})

	t.Run("NoCallForOneItem", func(t *testing.T) {
		f := newFakeLLM(t, reply(`{}`, 1))
		groups, _, err := f.client(nil).Partition(ctx, mergeItems()[:1])
		if err != nil || !reflect.DeepEqual(groups, [][]int64{{1}}) || len(f.requests()) != 0 {
			t.Fatalf("got %v %v after %d requests", groups, err, len(f.requests()))
		}
	})
}
