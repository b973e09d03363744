package governance

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxImportLineBytes bounds one JSON Lines record.
const MaxImportLineBytes = MaxEventTextBytes + 8<<10

// ParseEventsJSONL reads JSON Lines events. Blank lines are ignored. Every bad
// line is reported (by its 1-based number) in one *ImportError; then no event
// is returned, so a rejected file writes nothing.
func ParseEventsJSONL(r io.Reader) ([]*Event, error) {
	br := bufio.NewReader(r)
	var (
		events []*Event
		lines  []int
		bad    []LineError
	)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			if e, problems := parseEventLine(line); len(problems) > 0 {
				bad = append(bad, LineError{Line: n, Problems: problems})
			} else {
				events = append(events, e)
				lines = append(lines, n)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read line %d: %w", n, err)
		}
	}
	for line, first := range duplicateIDs(events, func(i int) int { return lines[i] }) {
		bad = append(bad, LineError{Line: line, Problems: []string{fmt.Sprintf("id duplicates line %d", first)}})
	}
	if len(bad) > 0 {
		sortLineErrors(bad)
		return nil, &ImportError{Lines: bad}
	}
	return events, nil
}

// readLine reads one line; lines longer than MaxImportLineBytes are returned
// truncated with the overflow marked so the caller reports them.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(buf)+len(chunk) <= MaxImportLineBytes+1 {
			buf = append(buf, chunk...)
		}
		if err != nil {
			return buf, err
		}
		if !isPrefix {
			return buf, nil
		}
	}
}

func parseEventLine(line []byte) (*Event, []string) {
	if len(line) > MaxImportLineBytes {
		return nil, []string{fmt.Sprintf("line is longer than %d bytes", MaxImportLineBytes)}
	}
	if !utf8.Valid(line) {
		return nil, []string{"line is not valid UTF-8"}
	}
	var e Event
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, []string{"invalid JSON: " + jsonProblem(err)}
	}
	if dec.More() {
		return nil, []string{"more than one JSON value on the line"}
	}
	e.Normalize()
	if problems := e.Validate(); len(problems) > 0 {
		return nil, problems
	}
	return &e, nil
}

func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s must be %s", te.Field, te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// ValidateBatch normalises and validates a batch of events (from an API call
// or an import); item numbers are 1-based. Duplicate ids inside the batch are
// errors. It returns nil or an *ImportError listing every bad item.
func ValidateBatch(events []*Event) error {
	var bad []LineError
	for i, e := range events {
		if e == nil {
			bad = append(bad, LineError{Line: i + 1, Problems: []string{"event is null"}})
			continue
		}
		e.Normalize()
		if problems := e.Validate(); len(problems) > 0 {
			bad = append(bad, LineError{Line: i + 1, Problems: problems})
		}
	}
	for item, first := range duplicateIDs(events, func(i int) int { return i + 1 }) {
		bad = append(bad, LineError{Line: item, Problems: []string{fmt.Sprintf("id duplicates item %d", first)}})
	}
	if len(bad) == 0 {
		return nil
	}
	sortLineErrors(bad)
	return &ImportError{Lines: bad}
}

// duplicateIDs maps the number of each repeated event to the number of its first occurrence.
func duplicateIDs(events []*Event, number func(int) int) map[int]int {
	first := make(map[string]int, len(events))
	dup := map[int]int{}
	for i, e := range events {
		if e == nil || e.ID == "" {
			continue
		}
		if j, ok := first[e.ID]; ok {
			dup[number(i)] = number(j)
			continue
		}
		first[e.ID] = i
	}
	return dup
}

func sortLineErrors(l []LineError) {
	slices.SortStableFunc(l, func(a, b LineError) int { return cmp.Compare(a.Line, b.Line) })
}
