package governance

import (
	"strings"
)

// Agent files: the files coding agents read at start-up (AGENTS.md for
// Codex CLI, CLAUDE.md and .claude/rules/<topic>.md for Claude Code,
// MEMORY.md and USER.md for Hermes Agent). Mnemo writes its memory inside
// one managed block per file, between ManagedBegin and ManagedEnd, and
// never touches a byte outside it, so what people wrote by hand survives
// every sync.
const (
	ManagedBegin = "<!-- mnemo:begin — managed by Mnemo; edits inside this block are replaced on the next sync -->"
	ManagedEnd   = "<!-- mnemo:end -->"
)

// Budgets of the agent files, in characters of the block's content.
const (
	AgentsMDLimit = 6000
	ClaudeMDLimit = 4000
	RuleFileLimit = 2000
)

// AgentFile is one agent file's managed block: what went in, highest-ranked
// first, and what did not fit within the budget.
type AgentFile struct {
	Path     string        `json:"path"`
	Limit    int           `json:"limit"`
	Used     int           `json:"used"`
	Block    string        `json:"block"`
	Included []HermesEntry `json:"included"`
	Omitted  []HermesEntry `json:"omitted"`
}

// AgentFileDownloadName is the download name of the agent file at path:
// .claude/rules/lessons.md → claude-rules-lessons.md.
func AgentFileDownloadName(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(path, "."), "/", "-")
}
