package tokenizer

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// TestStemCache: the cache gives the stemmer's stems however many distinct
// words pass through it, keeps copies (never a piece of the text a word
// was cut from) and leaves numbers out.
func TestStemCache(t *testing.T) {
	for i := range 3 * stemSlots {
		if got := Stem(fmt.Sprintf("committing%dx", i)); got != fmt.Sprintf("committing%dx", i) {
			t.Fatalf("Stem(committing%dx) = %q", i, got)
		}
		if got := Stem("committing"); got != "commit" {
			t.Fatalf("Stem(committing) = %q after %d words", got, i)
		}
	}
	text := "we keep running the deployments"
	w := text[strings.Index(text, "deployments"):]
	if got := Stem(w); got != "deploy" {
		t.Fatalf("Stem(deployments) = %q", got)
	}
	e := stems[slotOf(w)].Load()
	if e == nil || e.word != w || unsafe.StringData(e.word) == unsafe.StringData(w) {
		t.Fatalf("cached entry = %+v: want a copy of %q", e, w)
	}
	if got := Stem("12345678"); got != "12345678" {
		t.Fatalf("Stem(number) = %q", got)
	}
	if e := stems[slotOf("12345678")].Load(); e != nil && e.word == "12345678" {
		t.Fatal("a number was cached")
	}
}
