//go:build race

package transcript_test

// raceEnabled: the race detector grows every process's memory and slows
// SQLite (translated C) down many times.
const raceEnabled = true
