//go:build race

package gate

// raceEnabled: the test binary runs under the race detector, which makes
// the gate several times slower; heavy tests sample their data.
const raceEnabled = true
