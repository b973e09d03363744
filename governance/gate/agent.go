package gate

import "github.com/mnemo-console/mnemo/governance"

// Masking is the write gate as the read paths' masker
// (governance.Masker): the pattern gate, no model call. The gate registers
// it when it is loaded (governance.SetReadMasker).
var Masking governance.Masker = masking{}

type masking struct{}

func (masking) Withhold(text string, authority bool) (string, bool) {
	return WithholdFor(text, authority)
}
func (masking) Mask(text string) string       { return Scan(text).Text }
func (masking) Neutralise(text string) string { return NeutraliseFence(text) }

func init() { governance.SetReadMasker(Masking) }
