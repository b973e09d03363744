package auth

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gorilla/securecookie"
)

// cookieSerializer writes the session's values, which securecookie then
// encrypts and signs, in a small binary format that decodes with no
// reflection; gorilla's default, encoding/gob, compiled a decoder for the
// session's types on every request that carried the cookie. Cookies written
// in gob before still decode, so nobody is signed out by an upgrade.
//
// The format: the byte 0 (a gob stream never starts with it: it starts with
// a message length of at least 1), the version 1, then per value its key as
// a length-prefixed string, a kind byte and the value: 'i' an int64 as a
// varint, 's' a length-prefixed string, 'l' a count and that many
// length-prefixed strings (a []any of strings: flash messages). Sessions
// hold only those (see Sessions); a map with any other key or value is
// written in gob, which is read back as before.
type cookieSerializer struct{}

const cookieFormat = 1

var errCookieFormat = errors.New("auth: malformed session values")

// Serialize encodes the session's values.
func (cookieSerializer) Serialize(src any) ([]byte, error) {
	values, ok := src.(map[any]any)
	if !ok {
		return securecookie.GobEncoder{}.Serialize(src)
	}
	buf := []byte{0, cookieFormat}
	for k, v := range values {
		key, ok := k.(string)
		if !ok {
			return securecookie.GobEncoder{}.Serialize(src)
		}
		buf = appendString(buf, key)
		switch v := v.(type) {
		case int64:
			buf = binary.AppendVarint(append(buf, 'i'), v)
		case string:
			buf = appendString(append(buf, 's'), v)
		case []any:
			buf = binary.AppendUvarint(append(buf, 'l'), uint64(len(v)))
			for _, item := range v {
				s, ok := item.(string)
				if !ok {
					return securecookie.GobEncoder{}.Serialize(src)
				}
				buf = appendString(buf, s)
			}
		default:
			return securecookie.GobEncoder{}.Serialize(src)
		}
	}
	return buf, nil
}

// Deserialize decodes values written by Serialize, or by gob.
func (cookieSerializer) Deserialize(src []byte, dst any) error {
	if len(src) == 0 || src[0] != 0 {
		return securecookie.GobEncoder{}.Deserialize(src, dst)
	}
	p, ok := dst.(*map[any]any)
	if !ok {
		return fmt.Errorf("auth: session values into %T", dst)
	}
	if len(src) < 2 || src[1] != cookieFormat {
		return errCookieFormat
	}
	if *p == nil {
		*p = map[any]any{}
	}
	values := *p
	r := cookieReader(src[2:])
	for len(r) > 0 {
		key, ok := r.string()
		if !ok || len(r) == 0 {
			return errCookieFormat
		}
		kind := r[0]
		r = r[1:]
		switch kind {
		case 'i':
			v, n := binary.Varint(r)
			if n <= 0 {
				return errCookieFormat
			}
			r = r[n:]
			values[key] = v
		case 's':
			v, ok := r.string()
			if !ok {
				return errCookieFormat
			}
			values[key] = v
		case 'l':
			count, n := binary.Uvarint(r)
			if n <= 0 || count > uint64(len(r)) {
				return errCookieFormat
			}
			r = r[n:]
			list := make([]any, 0, count)
			for range count {
				v, ok := r.string()
				if !ok {
					return errCookieFormat
				}
				list = append(list, v)
			}
			values[key] = list
		default:
			return errCookieFormat
		}
	}
	return nil
}

func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// cookieReader reads the values of the format, advancing past each.
type cookieReader []byte

// string reads a length-prefixed string.
func (r *cookieReader) string() (string, bool) {
	n, k := binary.Uvarint(*r)
	if k <= 0 || n > uint64(len(*r)-k) {
		return "", false
	}
	s := string((*r)[k : k+int(n)])
	*r = (*r)[k+int(n):]
	return s, true
}
