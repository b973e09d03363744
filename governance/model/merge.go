package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

type mergeItem struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Statement string `json:"statement"`
}

// Partition asks the model which items mean the same thing and returns the
// groups only if they are a partition of the items' ids; otherwise it
// returns an EINVALID error and the caller falls back to another merger.
// The tokens used are returned even when the reply is rejected.
func (c *Client) Partition(ctx context.Context, items []governance.MergeItem) ([][]int64, int, error) {
	switch len(items) {
	case 0:
		return nil, 0, nil
	case 1:
		return [][]int64{{items[0].ID}}, 0, nil
	}
	lines := make([]mergeItem, len(items))
	for i, it := range items {
		lines[i] = mergeItem{ID: it.ID, Type: string(it.Type), Statement: it.Statement}
	}
	user := "Items:\n" + jsonLines(lines)

	content, tokens, cut, err := c.call(ctx, "merge", mergeSystemPrompt, user, "merge", mergeSchema)
	if err != nil {
		return nil, tokens, err
	}
	if cut {
		// A partition cut short names only some ids: it is no partition.
		return nil, tokens, c.rejectReply("merge", content, errors.New("reply cut off at the token limit"))
	}
	groups, err := mergeGroups(content)
	if err != nil {
		return nil, tokens, c.rejectReply("merge", content, err)
	}
	if err := governance.CheckPartition(items, groups); err != nil {
		return nil, tokens, fmt.Errorf("model: merge: %w", err)
	}
	return groups, tokens, nil
}

// mergeGroups reads the groups of a merge reply: {"groups": [[id, …], …]}
// wherever the object stands in the reply, ids as numbers or numeric
// strings; a bare list of groups is taken too.
func mergeGroups(content string) ([][]int64, error) {
	var lists []json.RawMessage
	if raw, ok := jsonObject(content); ok {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		g, ok := field(obj, "groups", "clusters", "partition")
		if !ok {
			return nil, errors.New("groups missing")
		}
		if err := json.Unmarshal(g, &lists); err != nil {
			return nil, fmt.Errorf("groups: %w", err)
		}
	} else if i := strings.IndexByte(content, '['); i >= 0 {
		if err := json.NewDecoder(strings.NewReader(content[i:])).Decode(&lists); err != nil {
			return nil, errors.New("no JSON object in the reply")
		}
	} else {
		return nil, errors.New("no JSON object in the reply")
	}
	groups := make([][]int64, 0, len(lists))
	for _, l := range lists {
		ids, err := eventIDs(l)
		if err != nil {
			return nil, fmt.Errorf("groups: %w", err)
		}
		groups = append(groups, ids)
	}
	return groups, nil
}
