package ngram

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Turn is one labelled user turn of a corpus file: lang<TAB>label<TAB>text,
// label "durable" for a standing instruction.
type Turn struct {
	Lang, Label, Text string
}

// Corpora are the labelled turns a classifier learns from and the held-out
// batches it is only measured on (HeldOut pools them, Batches names them).
type Corpora struct {
	Labelled, HeldOut []Turn
	Batches           map[string][]Turn
}

// heldOutPrefix names the batches never trained on (durable_heldout*.tsv).
const heldOutPrefix = "durable_heldout"

// LoadCorpora reads dir/durable_*.tsv in name order.
func LoadCorpora(dir string) (*Corpora, error) {
	names, err := filepath.Glob(filepath.Join(dir, "durable_*.tsv"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	c := &Corpora{Batches: map[string][]Turn{}}
	for _, name := range names {
		turns, err := ReadTurns(name)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(filepath.Base(name), heldOutPrefix) {
			c.HeldOut = append(c.HeldOut, turns...)
			c.Batches[filepath.Base(name)] = turns
		} else {
			c.Labelled = append(c.Labelled, turns...)
		}
	}
	return c, nil
}

// ReadTurns reads one corpus file; a malformed line is an error naming it.
func ReadTurns(name string) ([]Turn, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Turn
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.SplitN(line, "\t", 3)
		if len(p) != 3 || p[0] != "en" && p[0] != "zh" {
			return nil, fmt.Errorf("%s line %d: want lang<TAB>label<TAB>text", name, n)
		}
		out = append(out, Turn{p[0], p[1], p[2]})
	}
	return out, sc.Err()
}

// Fold is the fold (of k) a turn falls in, by a hash of its text.
func Fold(text string, k int) int {
	h := fnv.New32a()
	h.Write([]byte(text))
	return int(h.Sum32() % uint32(k))
}

// Split keeps one turn in five (fold 0) out of training, as the test split.
func Split(turns []Turn) (train, test []Turn) {
	for _, t := range turns {
		if Fold(t.Text, 5) == 0 {
			test = append(test, t)
		} else {
			train = append(train, t)
		}
	}
	return train, test
}

// Examples turns labelled turns into training examples.
func Examples(turns []Turn) []Example {
	out := make([]Example, len(turns))
	for i, t := range turns {
		out[i] = Example{Text: t.Text, Positive: t.Label == "durable"}
	}
	return out
}

// Score is a classifier's precision and recall on n turns.
type Score struct {
	N                 int
	Precision, Recall float64
}

// Evaluate scores m on the turns of one language at a probability
// threshold.
func Evaluate(m *Model, turns []Turn, lang string, threshold float64) Score {
	var tp, fp, fn, n int
	for _, t := range turns {
		if t.Lang != lang {
			continue
		}
		n++
		got, want := m.Prob(t.Text) >= threshold, t.Label == "durable"
		switch {
		case got && want:
			tp++
		case got:
			fp++
		case want:
			fn++
		}
	}
	s := Score{N: n, Precision: 1, Recall: 1}
	if tp+fp > 0 {
		s.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		s.Recall = float64(tp) / float64(tp+fn)
	}
	return s
}
