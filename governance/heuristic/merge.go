package heuristic

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance/tokenizer"

	"github.com/mnemo-console/mnemo/governance"
)

// DefaultThreshold is the Dice similarity of n-gram sets at or above which
// two statements of the same type mean the same thing. The bar favours
// precision, because a wrong merge can lift a statement into a rule on
// another statement's evidence, while a missed merge only leaves a candidate
// held: the demo's paraphrases score 0.5 and above, and different
// instructions in the same frame ("…before committing" / "…before pushing",
// "附上路线检查结论" / "附上预算明细") score up to about 0.33. merge_test.go
// holds the pairs that must and must not merge.
const DefaultThreshold = 0.40

// Merger is the offline governance.Merger: average-linkage clustering of
// statements by n-gram similarity (character bigrams for Chinese, word
// unigrams and bigrams for English), within one memory type. The result
// depends only on the items' ids, types and statements, never on their
// order. The zero value uses DefaultThreshold.
type Merger struct {
	// Threshold overrides DefaultThreshold when above zero.
	Threshold float64
	// Anchors returns the keys of a statement that identify what it is
	// about whatever the wording; two statements of one type that share a
	// key and do not contradict each other (governance.ShapeOf) merge. Nil
	// uses QuotedAnchors. Another grouping (lessons keyed by the check that
	// failed, say) plugs in here.
	Anchors func(statement string) []string
}

var _ governance.Merger = (*Merger)(nil)

// NewMerger returns a merger with the default threshold.
func NewMerger() *Merger { return &Merger{Threshold: DefaultThreshold} }

// Similarity is the Dice coefficient of the n-gram sets of a and b, in [0, 1].
func Similarity(a, b string) float64 {
	return dice(featurize(a), featurize(b))
}

// Partition implements governance.Merger. Groups list ids in ascending order
// and are ordered by their smallest id; no tokens are used.
func (m *Merger) Partition(ctx context.Context, items []governance.MergeItem) ([][]int64, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	threshold := m.Threshold
	if threshold <= 0 {
		threshold = DefaultThreshold
	}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b governance.MergeItem) int { return cmp.Compare(a.ID, b.ID) })
	n := len(sorted)
	feats := make([][]uint64, n)
	for i, it := range sorted {
		feats[i] = featurize(it.Statement)
	}

	// sim[i][j] is the average-linkage similarity between clusters i and j
	// (cluster i is named by its first item); -1 means never merge.
	sim := similarities(sorted, feats)
	lessonIdentity(sorted, sim) // lessons: the same check, cause and change
	anchors := m.Anchors
	if anchors == nil {
		anchors = QuotedAnchors
	}
	anchorPairs(sorted, sim, anchors, threshold)
	if m.Anchors == nil {
		outputPairs(sorted, sim, threshold) // one wish about the answers, however worded
	}
	oneOffsApart(sorted, sim)
	members := make([][]int, n)
	for i := range members {
		members[i] = []int{i}
	}
	// best[i] is the partner j > i of cluster i with the highest similarity
	// (the smallest such j on a tie), or -1; kept up to date after each merge
	// so a merge costs O(n) instead of a full scan of the matrix.
	best := make([]int, n)
	rowBest := func(i int) {
		best[i] = -1
		for j := i + 1; j < n; j++ {
			if members[j] != nil && sim[i][j] >= 0 && (best[i] < 0 || sim[i][j] > sim[i][best[i]]) {
				best[i] = j
			}
		}
	}
	for i := range n {
		rowBest(i)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		// The pair to merge: highest similarity, then the smallest i.
		bi := -1
		for i := range n {
			if members[i] == nil || best[i] < 0 || sim[i][best[i]] < threshold {
				continue
			}
			if bi < 0 || sim[i][best[i]] > sim[bi][best[bi]] {
				bi = i
			}
		}
		if bi < 0 {
			break
		}
		bj := best[bi]
		wi, wj := float64(len(members[bi])), float64(len(members[bj]))
		for k := range n {
			if members[k] == nil || k == bi || k == bj {
				continue
			}
			v := -1.0
			if sim[bi][k] >= 0 && sim[bj][k] >= 0 {
				v = (wi*sim[bi][k] + wj*sim[bj][k]) / (wi + wj)
			}
			sim[bi][k], sim[k][bi] = v, v
		}
		members[bi] = append(members[bi], members[bj]...)
		members[bj] = nil
		rowBest(bi)
		for k := range n {
			switch {
			case members[k] == nil || k == bi:
			case best[k] == bi || best[k] == bj:
				rowBest(k)
			case k < bi && sim[k][bi] >= 0 && (best[k] < 0 || sim[k][bi] > sim[k][best[k]] || sim[k][bi] == sim[k][best[k]] && bi < best[k]):
				best[k] = bi
			}
		}
	}

	var groups [][]int64
	for _, ms := range members {
		if ms == nil {
			continue
		}
		g := make([]int64, len(ms))
		for k, idx := range ms {
			g[k] = sorted[idx].ID
		}
		slices.Sort(g)
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b []int64) int { return cmp.Compare(a[0], b[0]) })
	return groups, 0, nil
}

// stopZH removes words that carry no meaning of their own for merging:
// durable and one-off markers (durability is a separate field), pronouns and
// particles. Removing them joins their neighbours, so "检查的结论" and
// "检查结论" share their bigrams.
var stopZH = func() *strings.Replacer {
	words := []string{"用户", "我们", "咱们", "这个", "这段", "那个", "一下", "一起", "的", "了", "吧", "呢", "啊", "呀", "嘛", "哦", "都", "也", "就", "把", "给", "要", "得", "着", "我", "你", "她", "他", "它"}
	words = append(words, durableZH...)
	words = append(words, oneOffZH...)
	words = append(words, scopeCues(func(c cueSet) []string { return c.zh })...)
	// Longer words first, so "每一次" goes before "一次" could match.
	slices.SortStableFunc(words, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(words))
	for _, w := range words {
		pairs = append(pairs, w, "")
	}
	return strings.NewReplacer(pairs...)
}()

// scopePhrasesEN are the English scope cues blanked before featurizing,
// longest first.
var scopePhrasesEN = func() []string {
	out := scopeCues(func(c cueSet) []string { return c.en })
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}()

// scopeCues are the cues of how long a statement holds, in one language:
// its durability, not its subject. A schedule ("every Monday", 每周一) is
// the subject's and stays.
func scopeCues(lang func(cueSet) []string) []string {
	var out []string
	for _, set := range []cueSet{cueFuture, cueOccasion, cueStanding, cueDefault, cueUsual, cueReferBack} {
		for _, p := range lang(set) {
			if !slices.Contains(lang(cuePeriodic), p) && !strings.HasPrefix(p, "every ") && !strings.HasPrefix(p, "on ") && !strings.HasPrefix(p, "每") {
				out = append(out, p)
			}
		}
	}
	return out
}

var stopEN = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "and": true, "or": true, "in": true, "on": true,
	"at": true, "for": true, "with": true, "by": true, "it": true, "its": true, "is": true, "are": true, "be": true,
	"was": true, "this": true, "that": true, "these": true, "those": true, "i": true, "you": true, "we": true,
	"they": true, "he": true, "she": true, "me": true, "my": true, "our": true, "your": true, "user": true,
	"user's": true, "from": true, "now": true, "always": true, "every": true, "time": true, "whenever": true,
	"please": true, "then": true, "so": true, "as": true, "do": true, "does": true, "just": true, "all": true,
	"any": true, "each": true, "when": true, "will": true, "would": true, "should": true, "must": true,
	"can": true, "could": true, "going": true, "forward": true,
}

// Feature tags keep the n-gram kinds apart in the hash space.
const (
	tagHan    = 1
	tagWord   = 2
	tagBigram = 3
)

// featurize returns the sorted, distinct hashed n-grams of a statement.
func featurize(s string) []uint64 {
	s = lowerASCII(canonical(s))
	s = stopZH.Replace(s)
	if hasLatin(s) {
		// What holds for how long is the durable field's, not the
		// statement's subject: "always", "from now on", "same as before".
		s = blankEN(s, scopePhrasesEN)
	}
	feats := make([]uint64, 0, len(s)/2)
	var prevHan rune = -1 // previous Han rune in the current run
	runLen := 0
	prevWord := ""
	flushRun := func() {
		if runLen == 1 {
			feats = append(feats, hashRunes(tagHan, prevHan, 0))
		}
		prevHan, runLen = -1, 0
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r >= 0x2E80 && unicode.Is(unicode.Han, r):
			if runLen > 0 {
				feats = append(feats, hashRunes(tagHan, prevHan, r))
			}
			prevHan = r
			runLen++
			i += size
			continue
		case isWordStart(r):
			flushRun()
			j := i
			for j < len(s) {
				r2, size2 := utf8.DecodeRuneInString(s[j:])
				if !isWordStart(r2) && !strings.ContainsRune(":–-._'", r2) {
					break
				}
				j += size2
			}
			word := strings.TrimRight(s[i:j], ":–-._'")
			i = j
			if stopEN[word] {
				continue
			}
			if word = tokenizer.Stem(strings.TrimSuffix(word, "'s")); word == "" || stopEN[word] {
				continue
			}
			feats = append(feats, hashString(tagWord, word, ""))
			if prevWord != "" {
				feats = append(feats, hashString(tagBigram, prevWord, word))
			}
			prevWord = word
			continue
		}
		// Punctuation ends a Han run and an English phrase; spaces end only
		// the Han run.
		flushRun()
		if !unicode.IsSpace(r) {
			prevWord = ""
		}
		i += size
	}
	flushRun()
	slices.Sort(feats)
	return slices.Compact(feats)
}

func isWordStart(r rune) bool {
	return r < 0x80 && ('a' <= r && r <= 'z' || '0' <= r && r <= '9')
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashRunes(tag byte, a, b rune) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(tag)) * fnvPrime
	for _, r := range [2]rune{a, b} {
		for k := 0; k < 4; k++ {
			h = (h ^ uint64(byte(r>>(8*k)))) * fnvPrime
		}
	}
	return h
}

func hashString(tag byte, a, b string) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(tag)) * fnvPrime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * fnvPrime
	}
	h = (h ^ 0xff) * fnvPrime
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * fnvPrime
	}
	return h
}

// similarities returns the dice similarity of every pair of items of one
// type, and -1 for items of different types. The features two items share
// are counted through an inverted index, so only pairs that share one are
// visited (a pair that shares none has similarity 0), where comparing every
// pair's feature lists costs their lengths each time.
func similarities(items []governance.MergeItem, feats [][]uint64) [][]float64 {
	n := len(items)
	sim := make([][]float64, n)
	for i := range sim {
		sim[i] = make([]float64, n)
	}
	postings := make(map[uint64][]int32)
	for i, fs := range feats {
		row := sim[i]
		for _, f := range fs {
			// Earlier items with f count, for now, in row i's cells.
			for _, j := range postings[f] {
				row[j]++
			}
			postings[f] = append(postings[f], int32(i))
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			v := -1.0
			if items[i].Type == items[j].Type {
				v = 0
				if la, lb := len(feats[i]), len(feats[j]); la > 0 && lb > 0 {
					v = 2 * sim[i][j] / float64(la+lb)
				}
			}
			sim[i][j], sim[j][i] = v, v
		}
	}
	return sim
}

// dice is 2|a∩b| / (|a|+|b|) for sorted, distinct sets.
func dice(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// anchorPairs raises to threshold the similarity of every pair of items of
// one type that share an anchor and do not contradict each other: "sign it
// 'Warm regards, the team' instead of my name" and "the sign-off should be
// 'Warm regards, the team', same as before" are one wish.
func anchorPairs(items []governance.MergeItem, sim [][]float64, anchors func(string) []string, threshold float64) {
	byAnchor := map[string][]int{}
	for i, it := range items {
		for _, a := range anchors(it.Statement) {
			if !slices.Contains(byAnchor[a], i) {
				byAnchor[a] = append(byAnchor[a], i)
			}
		}
	}
	for _, idx := range byAnchor {
		for x, i := range idx {
			for _, j := range idx[x+1:] {
				if items[i].Type != items[j].Type || sim[i][j] >= threshold || sim[i][j] < 0 {
					continue // other types, already close, or never to merge
				}
				a, b := governance.ShapeOf(items[i].Statement), governance.ShapeOf(items[j].Statement)
				if a.NumbersDiffer(b) ||
					governance.NegationConflicts(items[i].Statement, items[j].Statement) {
					continue
				}
				sim[i][j], sim[j][i] = threshold, threshold
			}
		}
	}
}

// QuotedAnchors returns the quoted values of a statement ("…", “…”, 「…」,
// '…'), folded to lower-case letters, digits and single spaces, when they
// are long enough to name a value (two words, three Han characters or a
// digit): what a request asks for, word for word.
func QuotedAnchors(statement string) []string {
	var out []string
	add := func(q string) {
		var b strings.Builder
		words, han, digit := 0, 0, false
		inWord := false
		for _, r := range q {
			switch {
			case unicode.Is(unicode.Han, r):
				b.WriteRune(r)
				han++
				inWord = false
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				if !inWord {
					if b.Len() > 0 {
						b.WriteByte(' ')
					}
					words++
				}
				b.WriteRune(unicode.ToLower(r))
				digit = digit || unicode.IsDigit(r)
				inWord = true
			default:
				inWord = false
			}
		}
		if words >= 2 || han >= 3 || digit && b.Len() >= 2 {
			out = append(out, b.String())
		}
	}
	for _, pair := range [][2]string{{"\"", "\""}, {"“", "”"}, {"「", "」"}} {
		rest := statement
		for {
			i := strings.Index(rest, pair[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(pair[0]):]
			j := strings.Index(rest, pair[1])
			if j < 0 {
				break
			}
			add(rest[:j])
			rest = rest[j+len(pair[1]):]
		}
	}
	// Single quotes open after a space and close before one, so an
	// apostrophe ("don't", "Ana's") is not taken for one.
	for i := 0; i < len(statement); i++ {
		if statement[i] != '\'' || i > 0 && statement[i-1] != ' ' && statement[i-1] != '(' {
			continue
		}
		for j := i + 1; j < len(statement); j++ {
			if statement[j] == '\'' && (j+1 == len(statement) || !isLetterByte(statement[j+1])) && isLetterByte(statement[j-1]) {
				add(statement[i+1 : j])
				i = j
				break
			}
		}
	}
	return out
}

// oneOffsApart keeps a preference bound to one occasion ("For this one,
// keep it under 50 words", "用户这次想住西湖边") out of every group: said
// again in another session it is another one-off, not a repetition that
// could make it a rule.
func oneOffsApart(items []governance.MergeItem, sim [][]float64) {
	for i, it := range items {
		if it.Type != governance.TypePreference {
			continue
		}
		if t := newText(it.Statement); t.anyZH(oneOffZH) || oneOffTextEN(t) {
			for j := range sim[i] {
				if j != i {
					sim[i][j], sim[j][i] = -1, -1
				}
			}
		}
	}
}
