package governance

import (
	"strings"
	"sync"
)

// Masker is the seam every read path hands stored text out through:
// recall (rules and raw events), search, MCP, exports, agent files and
// skills. The write gate implements it (gate.Masking) and registers itself
// when it is loaded; no read path imports the gate engine. It is the
// pattern gate only, with no model call: reads are the hot path.
type Masker interface {
	// Withhold returns text with every sentence the gate blocks replaced
	// by WithheldMarker and credentials masked, and whether anything was
	// withheld; with authority set (text nobody reviewed) links, e-mail
	// addresses and commands are marked too.
	Withhold(text string, authority bool) (string, bool)
	// Mask returns text with credentials masked.
	Mask(text string) string
	// Neutralise defuses fence and role tags in text.
	Neutralise(text string) string
}

// WithheldMarker stands in recalled and summarised text for what the write
// gate blocked.
const WithheldMarker = "[withheld by the write gate]"

var reads struct {
	sync.RWMutex
	m   Masker
	gen uint64
}

// ReadMasker returns the registered masker. With none registered it fails
// closed: every text is withheld whole.
func ReadMasker() Masker {
	reads.RLock()
	defer reads.RUnlock()
	if reads.m == nil {
		return withholdAll{}
	}
	return reads.m
}

// MaskerGeneration changes whenever SetReadMasker registers a masker, so a
// read path that remembers answers forgets those of the one before.
func MaskerGeneration() uint64 {
	reads.RLock()
	defer reads.RUnlock()
	return reads.gen
}

// SetReadMasker registers m for every read path and returns a function
// that puts the one before back.
func SetReadMasker(m Masker) (restore func()) {
	reads.Lock()
	defer reads.Unlock()
	before := reads.m
	reads.m = m
	reads.gen++
	return func() {
		reads.Lock()
		defer reads.Unlock()
		reads.m = before
		reads.gen++
	}
}

type withholdAll struct{}

func (withholdAll) Withhold(string, bool) (string, bool) { return WithheldMarker, true }
func (withholdAll) Mask(string) string                   { return WithheldMarker }
func (withholdAll) Neutralise(string) string             { return WithheldMarker }

// RuleTextForAgent is a rule's text as anything an agent reads outside
// recall holds it (the agent files, Hermes's files, MCP export_memory): on
// one line, credentials masked and fence tags neutralised. ok is false
// when the write gate blocks any of it — even in an active rule a
// reviewer approved — or nothing is left: such a rule is left out whole.
func RuleTextForAgent(r *Rule) (string, bool) {
	m := ReadMasker()
	gated, withheld := m.Withhold(strings.Join(strings.Fields(r.Text), " "), false)
	if withheld {
		return "", false
	}
	text := m.Neutralise(gated)
	return text, text != ""
}

// EventTextForAgent is a raw event's text as an agent may read it outside
// recall (search over the API and MCP): the write gate's blocked sentences
// withheld (withheld reports any), credentials masked, fence tags
// neutralised.
func EventTextForAgent(text string) (string, bool) {
	m := ReadMasker()
	gated, withheld := m.Withhold(text, false)
	return m.Neutralise(gated), withheld
}

// SkillTextForAgent is a skill's text as an agent reads it: credentials
// masked and fence tags defused (the skill was reviewed before it became
// active; its findings were seen by a reviewer).
func SkillTextForAgent(text string) string {
	m := ReadMasker()
	return m.Neutralise(m.Mask(text))
}
