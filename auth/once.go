package auth

import "net/http"

// A one-time value waits in the session (an encrypted, authenticated,
// HttpOnly cookie) for the next page that asks for it, which removes it:
// a secret made by a POST is shown on the GET it redirects to, and a
// refresh of that page no longer shows it.

func onceKey(key string) string { return "_once_" + key }

// SetOnce keeps value under key until TakeOnce reads it.
func (s *Sessions) SetOnce(w http.ResponseWriter, r *http.Request, key, value string) error {
	sess := s.session(r)
	sess.Values[onceKey(key)] = value
	return s.save(w, r, sess)
}

// TakeOnce returns the value kept under key and removes it ("" when there
// is none). It writes the cookie only when there was something to remove.
func (s *Sessions) TakeOnce(w http.ResponseWriter, r *http.Request, key string) (string, error) {
	sess := s.session(r)
	v, ok := sess.Values[onceKey(key)]
	if !ok {
		return "", nil
	}
	delete(sess.Values, onceKey(key))
	value, _ := v.(string)
	return value, s.save(w, r, sess)
}
