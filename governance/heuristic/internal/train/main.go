// Command train fits the heuristic extractor's standing-instruction
// classifier (internal/ngram) on the labelled corpora and writes its
// weights, which the extractor embeds:
//
//	go run ./governance/heuristic/internal/train
//
// Every labelled turn of testdata/durable_*.tsv except the held-out batch
// takes part; one turn in five (by a hash of its text) is kept out of
// training as the test split, and the figures on it and on the held-out
// batch are printed. The same corpora always give the same weights
// (TestClassifierReproducible).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

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
	for _, set := range []struct {
		name  string
		turns []ngram.Turn
	}{{"test split", test}, {"held-out batch", corpora.HeldOut}} {
		for _, lang := range []string{"en", "zh"} {
			s := ngram.Evaluate(m, set.turns, lang, 0.5)
			fmt.Printf("%s %s: %d turns, precision %.3f, recall %.3f\n", set.name, lang, s.N, s.Precision, s.Recall)
		}
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
