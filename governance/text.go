package governance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Text is a sentence for people, kept as what makes it rather than as
// English: its message id, which is the sentence's English fmt format
// ("Rule %d is not in project %s."; a sentence without values is its own
// id), and the values. A page translates it with the values
// (locale.Localizer.Text); logs, the API and the command line in English
// read String. A value may be a Text itself, translated in its turn.
// Lines, when set, are sentences shown one a line instead (a list of
// problems); ID and Args are then empty.
//
// A Text survives JSON (a stored eval case's reason, a flash in the
// session cookie): integers come back as int64, fractions as float64,
// nested sentences as Text.
type Text struct {
	ID    string `json:"id,omitempty"`
	Args  []any  `json:"args,omitempty"`
	Lines []Text `json:"lines,omitempty"`
}

// Say is the sentence format fills with args.
func Say(format string, args ...any) Text {
	return Text{ID: format, Args: args}
}

// Lines are sentences shown one a line; empty ones are left out.
func Lines(ts ...Text) Text {
	var out []Text
	for _, t := range ts {
		if !t.IsZero() {
			out = append(out, t)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return Text{Lines: out}
}

// Joined is sentences as one, "; " between them: a format of values
// alone, which a page shows with each value translated.
func Joined(ts ...Text) Text {
	if len(ts) == 1 {
		return ts[0]
	}
	args := make([]any, len(ts))
	for i, t := range ts {
		args[i] = t
	}
	return Say(strings.TrimSuffix(strings.Repeat("%s; ", len(ts)), "; "), args...)
}

// IsZero reports whether t says nothing.
func (t Text) IsZero() bool { return t.ID == "" && len(t.Args) == 0 && len(t.Lines) == 0 }

// String is the English sentence.
func (t Text) String() string {
	if len(t.Lines) > 0 {
		s := make([]string, len(t.Lines))
		for i, l := range t.Lines {
			s[i] = l.String()
		}
		return strings.Join(s, "\n")
	}
	if len(t.Args) == 0 {
		return t.ID
	}
	return fmt.Sprintf(t.ID, t.Args...)
}

// ErrorText is err's user-safe message as a Text: a *Error's format and
// values, "Internal error." for any other error, zero for nil.
func ErrorText(err error) Text {
	if err == nil {
		return Text{}
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Format == "" {
			return Say(e.Message)
		}
		return Text{ID: e.Format, Args: e.Args}
	}
	return Say("Internal error.")
}

// Text is the error's message as a Text.
func (e *Error) Text() Text {
	if e.Format == "" {
		return Say(e.Message)
	}
	return Text{ID: e.Format, Args: e.Args}
}

// UnmarshalJSON reads a Text as MarshalJSON wrote it (encoding/json's
// default for the struct), turning its values back into int64, float64,
// string, bool or Text.
func (t *Text) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID    string            `json:"id"`
		Args  []json.RawMessage `json:"args"`
		Lines []Text            `json:"lines"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*t = Text{ID: raw.ID, Lines: raw.Lines}
	for _, a := range raw.Args {
		v, err := textArg(a)
		if err != nil {
			return err
		}
		t.Args = append(t.Args, v)
	}
	return nil
}

func textArg(b json.RawMessage) (any, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var t Text
		err := json.Unmarshal(b, &t)
		return t, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
		return n.Float64()
	}
	return v, nil
}

// ParseText reads a Text stored as JSON; anything else (a row written
// before sentences were stored so) is taken as an English sentence with
// no values, shown as it is.
func ParseText(stored string) Text {
	if strings.HasPrefix(stored, "{") {
		var t Text
		if json.Unmarshal([]byte(stored), &t) == nil {
			return t
		}
	}
	return Text{ID: stored}
}

// StoreText is t as the JSON ParseText reads; "" for a zero Text.
func StoreText(t Text) string {
	if t.IsZero() {
		return ""
	}
	b, err := json.Marshal(t)
	if err != nil {
		return t.String()
	}
	return string(b)
}
