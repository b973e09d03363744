package store

import (
	"database/sql/driver"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/forgetplan"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
	sqlite "modernc.org/sqlite"
)

var registerFuncs sync.Once

// registerFunctions adds the store's SQL functions to the driver, before
// the first connection opens (the triggers of migrations 0005, 0016, 0032 and 0033 call them).
func registerFunctions() {
	registerFuncs.Do(func() {
		sqlite.MustRegisterDeterministicScalarFunction("mnemo_cjk_bigrams", 1,
			func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				s, _ := args[0].(string)
				return cjkBigrams(s), nil
			})
		sqlite.MustRegisterDeterministicScalarFunction("mnemo_tombstone", 3,
			func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				key, _ := args[0].([]byte)
				prefix, _ := args[1].(string)
				s, _ := args[2].(string)
				return forgetplan.Tombstone(key, prefix, s), nil
			})
		sqlite.MustRegisterDeterministicScalarFunction("mnemo_terms", 1,
			func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				s, _ := args[0].(string)
				return tokenizer.Index(s), nil
			})
		sqlite.MustRegisterDeterministicScalarFunction("mnemo_scoped_terms", 2,
			func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
				project, _ := args[0].(int64)
				s, _ := args[1].(string)
				return scopedIndex(project, s), nil
			})
	})
}

var isCJK = tokenizer.IsCJK

// cjkBigrams returns the distinct overlapping character pairs of every CJK
// run in s, separated by spaces ("" when s has none).
func cjkBigrams(s string) string {
	var (
		b    strings.Builder
		seen map[string]bool
		prev rune = -1
	)
	for i, r := range s {
		if !isCJK(r) {
			prev = -1
			continue
		}
		if prev >= 0 {
			pair := s[i-utf8.RuneLen(prev) : i+utf8.RuneLen(r)]
			if seen == nil {
				seen = map[string]bool{}
			}
			if !seen[pair] {
				seen[pair] = true
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(pair)
			}
		}
		prev = r
	}
	return b.String()
}

// isCJKPair reports whether term is exactly two CJK characters, the terms
// the bigram index answers.
func isCJKPair(term string) bool {
	n := 0
	for _, r := range term {
		if !isCJK(r) {
			return false
		}
		n++
	}
	return n == 2
}
