package skillrows

import "fmt"

// MaskedSetting is the settings row naming the gate (gate.Version) that
// last masked every stored skill version: the console masks them again
// at start only when the gate has changed since.
const MaskedSetting = "skills_masked"

// MaskedBy reads the value of the MaskedSetting row, "" when there is
// none (noRows recognizes the store's error for no row).
func MaskedBy(row Scanner, noRows func(error) bool) (string, error) {
	var v string
	err := row.Scan(&v)
	if noRows(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read setting %s: %w", MaskedSetting, err)
	}
	return v, nil
}
