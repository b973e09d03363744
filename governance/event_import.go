package governance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxImportLineBytes is the default bound of one JSON Lines record: the
// longest text plus room for the other fields.
const MaxImportLineBytes = MaxEventTextBytes + 8<<10

// ParseEventsJSONL reads JSON Lines events with the default line limit; see
// ParseEventsJSONLLimit.
func ParseEventsJSONL(r io.Reader) ([]*Event, error) {
	return ParseEventsJSONLLimit(r, MaxImportLineBytes)
}

// ParseEventsJSONLLimit reads JSON Lines events. Blank lines are ignored. A
// line longer than maxLine bytes is an error naming it (never cut to size).
// Every bad line is counted, and the first MaxReportedErrors are named (by
// 1-based number) in one *ImportError; then no event is returned, so a
// rejected file writes nothing.
func ParseEventsJSONLLimit(r io.Reader, maxLine int) ([]*Event, error) {
	if maxLine <= 0 {
		maxLine = MaxImportLineBytes
	}
	lr := NewLineReader(r, maxLine)
	var (
		events []*Event
		first  = map[string]int{} // event id → line of its first use
		bad    LineErrors
	)
	for {
		line, n, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var tl *LineTooLongError
		switch {
		case errors.As(err, &tl):
			bad.Add(n, fmt.Sprintf("line is longer than %d bytes", maxLine))
			continue
		case err != nil:
			return nil, fmt.Errorf("read line %d: %w", n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, problems := parseEventLine(line)
		if len(problems) > 0 {
			bad.Add(n, problems...)
			continue
		}
		if j, dup := first[e.ID]; dup {
			bad.Add(n, fmt.Sprintf("id duplicates line %d", j))
			continue
		}
		first[e.ID] = n
		if bad.Len() == 0 {
			// Once a line is bad nothing will be returned: stop keeping
			// events, so a huge bad file costs no more memory.
			events = append(events, e)
		}
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	return events, nil
}

// LineTooLongError reports a line over a LineReader's limit.
type LineTooLongError struct {
	Line  int
	Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.Line, e.Limit)
}

// LineReader splits a stream into lines ("\n", with an optional "\r"
// before it) of at most a given length. A longer line is read to its end and
// reported as a *LineTooLongError, so the caller can name it; it is never
// cut.
type LineReader struct {
	br  *bufio.Reader
	max int
	n   int
	buf []byte
}

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line without its end, and its 1-based number. At
// the end of the stream it returns io.EOF. The line is valid until the next
// call.
func (lr *LineReader) Next() ([]byte, int, error) {
	lr.buf = lr.buf[:0]
	size := 0
	read := false
	for {
		chunk, isPrefix, err := lr.br.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) && read {
				break
			}
			if errors.Is(err, io.EOF) {
				return nil, lr.n + 1, io.EOF
			}
			lr.n++
			return nil, lr.n, err
		}
		read = true
		size += len(chunk)
		if size <= lr.max {
			lr.buf = append(lr.buf, chunk...)
		}
		if !isPrefix {
			break
		}
	}
	lr.n++
	if size > lr.max {
		return nil, lr.n, &LineTooLongError{Line: lr.n, Limit: lr.max}
	}
	return lr.buf, lr.n, nil
}

func parseEventLine(line []byte) (*Event, []string) {
	if !utf8.Valid(line) {
		return nil, []string{"line is not valid UTF-8"}
	}
	var e Event
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		var pe *time.ParseError
		if errors.As(err, &pe) {
			return nil, []string{fmt.Sprintf("the time %q is not a date and time like 2026-05-20T06:02:45Z", pe.Value)}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, []string{"invalid JSON: the line ends before the record does"}
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, []string{fmt.Sprintf("invalid JSON at character %d", se.Offset)}
		}
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
	var bad LineErrors
	for i, e := range events {
		if e == nil {
			bad.Add(i+1, "event is null")
			continue
		}
		e.Normalize()
		if problems := e.Validate(); len(problems) > 0 {
			bad.Add(i+1, problems...)
		}
	}
	for item, first := range duplicateIDs(events, func(i int) int { return i + 1 }) {
		bad.Add(item, fmt.Sprintf("id duplicates item %d", first))
	}
	return bad.Err()
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
