//go:build !race

package testrace

// Enabled: the race detector is off.
const Enabled = false
