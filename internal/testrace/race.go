//go:build race

package testrace

// Enabled: the race detector is on. It grows every process's memory and
// slows SQLite (translated C) and the gate down many times.
const Enabled = true
