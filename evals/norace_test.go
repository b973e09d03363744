//go:build !race

package evals_test

const raceEnabled = false
