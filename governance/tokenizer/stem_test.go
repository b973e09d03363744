package tokenizer

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/kljensen/snowball/english"
)

// TestStemCache: the cache gives the stemmer's stems however many distinct
// words pass through it (each word asked twice, so the second answer is
// the cache's), leaves numbers out, and holds no text: its slots are
// numbers, so no word of a forgotten text stays in memory through it.
func TestStemCache(t *testing.T) {
	words := []string{"committing", "deployments", "relational", "happiness", "generously", "dying", "skies", "agreed",
		"hopefully", "electrical", "conditional", "sensitivities", "the", "running"}
	for i := range 3 * stemSlots {
		words = append(words, fmt.Sprintf("committing%dx", i), fmt.Sprintf("nation%dalization", i))
	}
	for _, w := range words {
		want := english.Stem(w, true)
		for range 2 {
			if got := Stem(w); got != want {
				t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
	if got := Stem("12345678"); got != "12345678" {
		t.Fatalf("Stem(number) = %q", got)
	}
	cached := 0
	for i := range stems {
		if stems[i].Load() != 0 {
			cached++
		}
	}
	if cached < stemSlots/2 {
		t.Fatalf("%d slots of %d hold a stem: the cache is not used", cached, stemSlots)
	}
	if canHoldText(reflect.TypeOf(&stems).Elem()) {
		t.Fatal("a stem cache slot can hold text")
	}
}

// canHoldText reports whether a value of type t can refer to a string or
// other memory (a string, pointer, slice, map, interface, ...).
func canHoldText(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return canHoldText(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if canHoldText(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return false
	}
	return true
}
