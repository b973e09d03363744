package tokenizer

import "unicode/utf8"

// Sentences calls fn for each sentence of s, in order, until fn returns
// false. s[start:end] is the sentence without its terminators and
// s[end:next] the terminators (and nothing else): the sentences' s[start:next]
// put together give s back. question is set when a question mark ends it.
//
// Chinese and English terminators (。！？；!?;) and line breaks end a
// sentence, and a run of them ends one sentence; an English full stop ends
// one only when followed by white space, a quote or the end of the text,
// so "1.26" and "due_test.go" stay whole.
func Sentences(s string, fn func(start, end, next int, question bool) bool) {
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end, question := false, false
		switch r {
		case '。', '！', '；', '\n', '!', ';':
			end = true
		case '？', '?':
			end, question = true, true
		case '.':
			next := i + size
			end = next >= len(s) || s[next] == ' ' || s[next] == '\n' || s[next] == '"'
		}
		if !end {
			i += size
			continue
		}
		sentenceEnd := i
		i += size
		// Swallow runs of terminators ("！？", "...").
		for i < len(s) {
			r2, size2 := utf8.DecodeRuneInString(s[i:])
			if r2 != '。' && r2 != '！' && r2 != '？' && r2 != '!' && r2 != '?' && r2 != '.' && r2 != '\n' {
				break
			}
			question = question || r2 == '？' || r2 == '?'
			i += size2
		}
		if !fn(start, sentenceEnd, i, question) {
			return
		}
		start = i
	}
	if start < len(s) {
		fn(start, len(s), len(s), false)
	}
}
