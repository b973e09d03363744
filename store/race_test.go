//go:build race

package store_test

// raceEnabled: the race detector slows SQLite (translated C) down many
// times; tests that only need volume skip under it.
const raceEnabled = true
