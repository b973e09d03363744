// Command train fits the heuristic extractor's standing-instruction
// classifier (internal/ngram) on the labelled corpora and writes its
// weights, which the extractor embeds:
//
//	go run ./governance/heuristic/internal/train
//
// Every labelled turn of testdata/durable_*.tsv except the held-out
// batches (durable_heldout*.tsv) takes part; one turn in five (by a hash of
// its text) is kept out of training as the test split, and the figures on
// it and on each held-out batch are printed. The same corpora always give the same weights
// (TestClassifierReproducible).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/mnemo-console/mnemo/governance/heuristic/internal/ngram"
)

func main() {
	dir := flag.String("dir", "governance/heuristic", "the heuristic package's directory")
	out := flag.String("out", "", "where to write the weights (default <dir>/model/standing.tsv)")
	oof := flag.String("oof", "", "also write out-of-fold probabilities of every training turn to this file (for tuning)")
	flag.Parse()
	if *out == "" {
		*out = filepath.Join(*dir, "model", "standing.tsv")
	}
	corpora, err := ngram.LoadCorpora(filepath.Join(*dir, "testdata"))
	if err != nil {
		log.Fatal(err)
	}
	train, test := ngram.Split(corpora.Labelled)
	m := ngram.Train(ngram.Examples(train), ngram.TrainOptions{})
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := m.Write(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d training turns, %d test turns, %d features -> %s\n", len(train), len(test), len(m.Weights), *out)
	report := func(name string, turns []ngram.Turn) {
		for _, lang := range []string{"en", "zh"} {
			s := ngram.Evaluate(m, turns, lang, 0.5)
			fmt.Printf("%s %s: %d turns, precision %.3f, recall %.3f\n", name, lang, s.N, s.Precision, s.Recall)
		}
	}
	report("test split", test)
	names := make([]string, 0, len(corpora.Batches))
	for name := range corpora.Batches {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		report(name, corpora.Batches[name])
	}
	if *oof != "" {
		if err := writeOOF(*oof, corpora.Labelled); err != nil {
			log.Fatal(err)
		}
	}
}

// writeOOF writes, for each turn, the probability a model trained on the
// other four folds gives it.
func writeOOF(path string, turns []ngram.Turn) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for k := range 5 {
		var train []ngram.Turn
		var held []ngram.Turn
		for _, t := range turns {
			if ngram.Fold(t.Text, 5) == k {
				held = append(held, t)
			} else {
				train = append(train, t)
			}
		}
		m := ngram.Train(ngram.Examples(train), ngram.TrainOptions{})
		for _, t := range held {
			fmt.Fprintf(f, "%.4f\t%s\n", m.Prob(t.Text), t.Text)
		}
	}
	return f.Close()
}
