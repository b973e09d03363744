package tokenizer

import (
	"os"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

// corpus is English prose of the repository (its documentation), for
// benchmarks: the words repeat as they do in conversations and docs.
func corpus(b *testing.B) []string {
	b.Helper()
	var words []string
	for _, f := range []string{"../../README.md", "../../docs/ARCHITECTURE.md"} {
		buf, err := os.ReadFile(f)
		if err != nil {
			b.Skip(err)
		}
		for w := range strings.FieldsFuncSeq(strings.ToLower(string(buf)), func(r rune) bool { return !isWordRune(r) }) {
			if len(w) > 2 && !stopWords[w] {
				words = append(words, w)
			}
		}
	}
	return words
}

// BenchmarkStem: the cached stem against the stemmer itself, over the same
// words in the same run.
func BenchmarkStem(b *testing.B) {
	words := corpus(b)
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				Stem(w)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	})
	b.Run("snowball", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				english.Stem(w, true)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	})
}
