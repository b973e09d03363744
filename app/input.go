package app

import (
	"errors"
	"sort"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// FieldErrors are what is wrong with a use case's input, by input field
// ("text", "reason", "ids", ...), each message safe to show. As an error it
// is EINVALID (Unwrap gives the *governance.Error), so the error map treats
// it as bad input; a form reads the fields back with AsFieldErrors and
// shows each message beside its field.
type FieldErrors map[string]governance.Text

func (fe FieldErrors) Error() string { return fe.invalid().Error() }

// Unwrap is the EINVALID error with the messages, in field order.
func (fe FieldErrors) Unwrap() error { return fe.invalid() }

func (fe FieldErrors) invalid() *governance.Error {
	fields := make([]string, 0, len(fe))
	for f := range fe {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	msgs := make([]string, len(fields))
	texts := make([]governance.Text, len(fields))
	for i, f := range fields {
		msgs[i], texts[i] = fe[f].String(), fe[f]
	}
	return &governance.Error{Code: governance.EINVALID, Message: strings.Join(msgs, " "),
		Format: "%s", Args: []any{governance.Lines(texts...)}}
}

// err is fe as an error, nil when nothing is wrong.
func (fe FieldErrors) err() error {
	if len(fe) == 0 {
		return nil
	}
	return fe
}

// AsFieldErrors returns the field errors in err's chain, if any.
func AsFieldErrors(err error) (FieldErrors, bool) {
	var fe FieldErrors
	if errors.As(err, &fe) {
		return fe, true
	}
	return nil, false
}

// onField turns the store's EINVALID answer into an error on one field of
// the input; any other error passes unchanged.
func onField(err error, field string) error {
	if governance.ErrorCode(err) != governance.EINVALID {
		return err
	}
	return FieldErrors{field: governance.ErrorText(err)}
}

var errSignIn = governance.Errorf(governance.EUNAUTHORIZED, "Sign in first.")
