package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// Reading replies as real servers send them: the schema's fields under the
// names models commonly give them, values in the types they commonly use,
// unknown fields ignored, and a reply cut off at the token limit read up to
// its last complete item.

// field returns the first of names present in obj (case-insensitive).
func field(obj map[string]json.RawMessage, names ...string) (json.RawMessage, bool) {
	for _, n := range names {
		if v, ok := obj[n]; ok && string(v) != "null" {
			return v, true
		}
	}
	for k, v := range obj {
		for _, n := range names {
			if strings.EqualFold(k, n) && string(v) != "null" {
				return v, true
			}
		}
	}
	return nil, false
}

// Field names of an extraction reply and of its items.
var (
	summaryNames   = []string{"episode_summary", "summary", "episode"}
	itemsNames     = []string{"memory_items", "items", "memories", "memory"}
	typeNames      = []string{"type", "kind", "memory_type", "category"}
	statementNames = []string{"statement", "text", "memory", "content"}
	idsNames       = []string{"supported_event_ids", "supporting_event_ids", "event_ids", "evidence", "supported_events", "ids", "events"}
	durableNames   = []string{"durable", "is_durable", "standing", "persistent"}
)

// memoryType reads a type as models write it ("user_preference",
// "preference", "User preference", "lesson learned").
func memoryType(s string) governance.MemoryType {
	k := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case "user_preference", "preference", "user_pref", "pref":
		return governance.TypePreference
	case "fact", "user_fact", "project_fact":
		return governance.TypeFact
	case "lesson", "lesson_learned", "learned_lesson":
		return governance.TypeLesson
	}
	return governance.MemoryType(s)
}

// eventIDs reads a list of event ids: numbers, numeric strings, or
// objects with an "id".
func eventIDs(raw json.RawMessage) ([]int64, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		// A single id where a list was asked for.
		list = []json.RawMessage{raw}
	}
	out := make([]int64, 0, len(list))
	for _, v := range list {
		var n json.Number
		var s string
		var obj map[string]json.RawMessage
		switch {
		case json.Unmarshal(v, &n) == nil:
		case json.Unmarshal(v, &s) == nil:
			n = json.Number(strings.TrimPrefix(strings.TrimSpace(s), "#"))
		case json.Unmarshal(v, &obj) == nil:
			id, ok := field(obj, "id", "event_id", "seq")
			if !ok || json.Unmarshal(id, &n) != nil {
				return nil, errors.New("an event id is not a number")
			}
		default:
			return nil, errors.New("an event id is not a number")
		}
		id, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("event id %q is not a number", clip(string(n), 20))
		}
		out = append(out, id)
	}
	return out, nil
}

// boolish reads true, "true", "yes", 1.
func boolish(raw json.RawMessage) bool {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "y", "1":
			return true
		}
		return false
	}
	var n float64
	return json.Unmarshal(raw, &n) == nil && n != 0
}

// extractionReply is what an extraction reply holds once read.
type extractionReply struct {
	summary    *string
	items      []json.RawMessage
	itemsFound bool
}

// readExtraction reads an extraction reply. With cut (the reply stopped at
// the token limit) the object is walked token by token and every item
// completed before the cut is kept.
func readExtraction(content string, cut bool) (extractionReply, error) {
	var r extractionReply
	if !cut {
		raw, ok := jsonObject(content)
		if !ok {
			return r, errors.New("no JSON object in the reply")
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return r, err
		}
		if v, ok := field(obj, summaryNames...); ok {
			var s string
			if json.Unmarshal(v, &s) == nil {
				r.summary = &s
			}
		}
		if v, ok := field(obj, itemsNames...); ok {
			if err := json.Unmarshal(v, &r.items); err != nil {
				return r, fmt.Errorf("memory_items: %w", err)
			}
			r.itemsFound = true
		}
		return r, nil
	}
	i := strings.IndexByte(content, '{')
	if i < 0 {
		return r, errors.New("no JSON object in the reply")
	}
	dec := json.NewDecoder(strings.NewReader(content[i:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return r, errors.New("no JSON object in the reply")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		switch {
		case containsFold(summaryNames, key):
			var s string
			if dec.Decode(&s) != nil {
				return r, nil
			}
			r.summary = &s
		case containsFold(itemsNames, key):
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return r, nil
			}
			r.itemsFound = true
			for dec.More() {
				var raw json.RawMessage
				if dec.Decode(&raw) != nil {
					return r, nil
				}
				r.items = append(r.items, raw)
			}
			if _, err := dec.Token(); err != nil {
				return r, nil
			}
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return r, nil
			}
		}
	}
	return r, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// replyItem is one memory item once read.
type replyItem struct {
	Type              string
	Statement         string
	SupportedEventIDs []int64
	Durable           bool
}

// readItem reads one memory item; an item that is no object, or whose ids
// are not numbers, is an error (the caller drops it).
func readItem(raw json.RawMessage) (replyItem, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return replyItem{}, errors.New("not an object")
	}
	var it replyItem
	if v, ok := field(obj, typeNames...); ok {
		_ = json.Unmarshal(v, &it.Type)
	}
	if v, ok := field(obj, statementNames...); ok {
		_ = json.Unmarshal(v, &it.Statement)
	}
	if v, ok := field(obj, idsNames...); ok {
		ids, err := eventIDs(v)
		if err != nil {
			return replyItem{}, err
		}
		it.SupportedEventIDs = ids
	}
	if v, ok := field(obj, durableNames...); ok {
		it.Durable = boolish(v)
	}
	return it, nil
}
