package gate

import (
	"strings"
	"unicode"
)

// Skeleton is s as it reads: in lower case, every letter that looks like
// a Latin one (Unicode TS #39 confusables, the table the gate unconfuses
// words with) replaced by that Latin letter. Two names with the same
// skeleton look alike: "аdmin" with a Cyrillic а and "admin".
func Skeleton(s string) string {
	var b strings.Builder
	for _, r := range s {
		if sk, ok := confusableASCII[r]; ok {
			b.WriteString(strings.ToLower(sk))
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
