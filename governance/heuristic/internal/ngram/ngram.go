// Package ngram is a small logistic-regression text classifier over word
// and character n-grams: English words, their pairs and the sentence's
// opening words; Chinese characters, their pairs and triples. It is trained
// in the repository (internal/train) on the labelled corpora and its
// weights are embedded, so classifying needs no model endpoint.
package ngram

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Features appends the features of text to dst: for Latin words, "w:"
// unigrams, "b:" bigrams and "s:" the first two words; for Han runs, "c:"
// characters, bigrams and trigrams with run boundaries; digits fold to 0.
func Features(dst []string, text string) []string {
	var words []string
	var han []rune
	flushHan := func() {
		if len(han) == 0 {
			return
		}
		run := append(append([]rune{'^'}, han...), '$')
		for i := range run {
			if i > 0 && i < len(run)-1 {
				dst = append(dst, "c:"+string(run[i]))
			}
			if i+2 <= len(run) {
				dst = append(dst, "c:"+string(run[i:i+2]))
			}
			if i+3 <= len(run) {
				dst = append(dst, "c:"+string(run[i:i+3]))
			}
		}
		han = han[:0]
	}
	var word strings.Builder
	flushWord := func() {
		if word.Len() == 0 {
			return
		}
		words = append(words, word.String())
		word.Reset()
	}
	for _, r := range text {
		switch {
		case isHan(r):
			flushWord()
			han = append(han, r)
		case r < utf8.RuneSelf && (unicode.IsLetter(r) || r == '\'' || r == '-') || unicode.IsLetter(r) && !isHan(r):
			flushHan()
			word.WriteRune(unicode.ToLower(r))
		case unicode.IsDigit(r):
			flushHan()
			word.WriteByte('0')
		default:
			flushHan()
			flushWord()
			if r == ',' || r == '，' || r == ':' || r == '：' || r == ';' || r == '；' {
				words = append(words, ",")
			}
		}
	}
	flushWord()
	flushHan()
	for i, w := range words {
		if w != "," {
			dst = append(dst, "w:"+w)
		}
		if i+1 < len(words) {
			dst = append(dst, "b:"+w+" "+words[i+1])
		}
	}
	if len(words) > 0 {
		dst = append(dst, "s:"+words[0])
		if len(words) > 1 {
			dst = append(dst, "s:"+words[0]+" "+words[1])
		}
	}
	return dst
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// Model is a trained classifier: a bias and one weight per feature.
type Model struct {
	Bias    float64
	Weights map[string]float64
}

// Logit is the model's log-odds that text is of the positive class.
func (m *Model) Logit(text string) float64 {
	var buf [64]string
	z := m.Bias
	for _, f := range Features(buf[:0], text) {
		z += m.Weights[f]
	}
	return z
}

// Prob is the model's probability that text is of the positive class.
func (m *Model) Prob(text string) float64 { return 1 / (1 + math.Exp(-m.Logit(text))) }

// Example is one labelled text.
type Example struct {
	Text     string
	Positive bool
}

// TrainOptions tune training; zero fields take the defaults.
type TrainOptions struct {
	Epochs int     // passes over the data (default 40)
	Rate   float64 // AdaGrad learning rate (default 0.3)
	L2     float64 // L2 penalty per step (default 1e-4)
	// MinWeight drops features whose final weight is smaller in size
	// (default 0.02), keeping the embedded file small.
	MinWeight float64
	// MinCount drops features seen in fewer training texts (default 2):
	// a feature of one text only learns that text.
	MinCount int
}

// Train fits a model by AdaGrad on the logistic loss, visiting examples in
// their given order each epoch, so the result is a function of the data.
func Train(examples []Example, opt TrainOptions) *Model {
	if opt.Epochs == 0 {
		opt.Epochs = 40
	}
	if opt.Rate == 0 {
		opt.Rate = 0.3
	}
	if opt.L2 == 0 {
		opt.L2 = 1e-4
	}
	if opt.MinWeight == 0 {
		opt.MinWeight = 0.02
	}
	if opt.MinCount == 0 {
		opt.MinCount = 2
	}
	feats := make([][]string, len(examples))
	df := map[string]int{}
	for i, ex := range examples {
		f := Features(nil, ex.Text)
		slices.Sort(f)
		feats[i] = slices.Compact(f)
		for _, x := range feats[i] {
			df[x]++
		}
	}
	for i, f := range feats {
		feats[i] = slices.DeleteFunc(f, func(x string) bool { return df[x] < opt.MinCount })
	}
	w := map[string]float64{}
	g2 := map[string]float64{}
	var bias, biasG2 float64
	for range opt.Epochs {
		for i, ex := range examples {
			z := bias
			for _, f := range feats[i] {
				z += w[f]
			}
			p := 1 / (1 + math.Exp(-z))
			y := 0.0
			if ex.Positive {
				y = 1
			}
			g := p - y
			biasG2 += g * g
			bias -= opt.Rate * g / math.Sqrt(biasG2+1e-8)
			for _, f := range feats[i] {
				gf := g + opt.L2*w[f]
				g2[f] += gf * gf
				w[f] -= opt.Rate * gf / math.Sqrt(g2[f]+1e-8)
			}
		}
	}
	m := &Model{Bias: bias, Weights: map[string]float64{}}
	for f, v := range w {
		if math.Abs(v) >= opt.MinWeight {
			m.Weights[f] = math.Round(v*1e4) / 1e4
		}
	}
	m.Bias = math.Round(m.Bias*1e4) / 1e4
	return m
}

// Write writes the model as text: a "bias" line, then one "feature<TAB>
// weight" line per feature, sorted, so the file diffs well.
func (m *Model) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "bias\t%s\n", strconv.FormatFloat(m.Bias, 'f', -1, 64))
	keys := make([]string, 0, len(m.Weights))
	for k := range m.Weights {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s\t%s\n", k, strconv.FormatFloat(m.Weights[k], 'f', -1, 64))
	}
	return bw.Flush()
}

// Read reads a model written by Write.
func Read(r io.Reader) (*Model, error) {
	m := &Model{Weights: map[string]float64{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		k, v, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("ngram: line %d: want feature<TAB>weight", n)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("ngram: line %d: %w", n, err)
		}
		if n == 1 {
			if k != "bias" {
				return nil, fmt.Errorf("ngram: line 1: want the bias")
			}
			m.Bias = f
			continue
		}
		m.Weights[k] = f
	}
	return m, sc.Err()
}
