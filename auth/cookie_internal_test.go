package auth

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gorilla/securecookie"
)

func TestCookieSerializer(t *testing.T) {
	var sz cookieSerializer
	t.Run("RoundTrip", func(t *testing.T) {
		for _, values := range []map[any]any{
			{},
			{accountIDKey: int64(42), generationKey: int64(0), csrfKey: "tok"},
			{accountIDKey: int64(-1 << 62), "_flash_error": []any{"Bad", ""}, "_flash_info": []any{}, "empty": ""},
		} {
			buf, err := sz.Serialize(values)
			if err != nil {
				t.Fatal(err)
			}
			if buf[0] != 0 {
				t.Fatalf("%v written in gob, want the session format", values)
			}
			got := map[any]any{}
			if err := sz.Deserialize(buf, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, values) {
				t.Fatalf("round trip = %#v, want %#v", got, values)
			}
		}
	})
	t.Run("OtherValuesInGob", func(t *testing.T) {
		for _, values := range []map[any]any{
			{1: "int key"},
			{"n": 7},
			{"list": []any{int64(1)}},
		} {
			buf, err := sz.Serialize(values)
			if err != nil {
				t.Fatal(err)
			}
			gob, _ := securecookie.GobEncoder{}.Serialize(values)
			if !bytes.Equal(buf, gob) {
				t.Fatalf("%#v not written in gob", values)
			}
			var got map[any]any
			if err := sz.Deserialize(buf, &got); err != nil || !reflect.DeepEqual(got, values) {
				t.Fatalf("round trip = %#v, %v; want %#v", got, err, values)
			}
		}
	})
	t.Run("ErrMalformed", func(t *testing.T) {
		// Values come only from cookies the console signed, but a bad
		// encoding is still an error, never a panic or a half-read value.
		for _, b := range [][]byte{
			{0},                            // no version
			{0, 2},                         // unknown version
			{0, 1, 5},                      // key longer than the rest
			{0, 1, 1, 'k'},                 // no kind
			{0, 1, 1, 'k', 'x'},            // unknown kind
			{0, 1, 1, 'k', 'i'},            // no integer
			{0, 1, 1, 'k', 's', 3, 'a'},    // short string
			{0, 1, 1, 'k', 'l', 200},       // count past the end
			{0, 1, 1, 'k', 'l', 2, 1, 'a'}, // one item of two
			{0, 1, 1, 'k', 'i', 0x80},      // unfinished varint
		} {
			var got map[any]any
			if err := sz.Deserialize(b, &got); err == nil {
				t.Errorf("Deserialize(%v) = %#v, want an error", b, got)
			}
		}
	})
}
