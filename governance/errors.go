package governance

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one HTTP status in the web layer.
const (
	ECONFLICT     = "conflict"
	EINTERNAL     = "internal"
	EINVALID      = "invalid"
	ENOTFOUND     = "not_found"
	EUNAUTHORIZED = "unauthorized"
	EFORBIDDEN    = "forbidden"
	ETOOLARGE     = "too_large"
	// ETOOMANY: a caller sent more requests than its rate allows.
	ETOOMANY = "too_many_requests"
)

// Error is an application error whose Message is safe to show to users.
// Message is the English text (logs, the API, the command line); Format
// and Args, set by Errorf, are the message id and its values, from which a
// page in another language builds the same sentence (the locale catalogs
// hold the sentence under its English format, e.g. "Rule %d is not in
// project %s.").
type Error struct {
	Code    string
	Message string
	Format  string
	Args    []any
}

func (e *Error) Error() string {
	return fmt.Sprintf("mnemo error: code=%s message=%s", e.Code, e.Message)
}

// Errorf builds an *Error with a formatted, user-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-safe message of err; errors that are not
// *Error are reported as "Internal error." so internals never leak.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}
