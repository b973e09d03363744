package governance

import "slices"

// Every typed enum of the domain reports whether a value is one of its
// constants, so input from forms, the agent API, MCP and imports is checked
// in one way.

// Valid reports whether s is a known rule status.
func (s RuleStatus) Valid() bool { return slices.Contains(RuleStatuses, s) }

// Valid reports whether s is a known candidate status.
func (s CandidateStatus) Valid() bool { return slices.Contains(CandidateStatuses, s) }

// Valid reports whether r is a known promotion channel.
func (r PromotionReason) Valid() bool { return slices.Contains(PromotionReasons, r) }

// Valid reports whether r is a known project role.
func (r ProjectRole) Valid() bool { return r == ProjectReviewer || r == ProjectMember }

// Valid reports whether r is a known speaker role.
func (r Role) Valid() bool { return r == RoleUser || r == RoleAssistant || r == RoleTool }

// Valid reports whether s is a known event source.
func (s Source) Valid() bool {
	return s == SourceConversation || s == SourceTool || s == SourceExternal
}

// Valid reports whether k is a known event kind.
func (k EventKind) Valid() bool { return k == KindMessage || k == KindSessionEnd }

// Valid reports whether k is a known recall item kind.
func (k RecallKind) Valid() bool {
	return k == RecallKindRule || k == RecallKindEpisode || k == RecallKindEvent
}

// Valid reports whether sc is a known token scope.
func (sc TokenScope) Valid() bool { return slices.Contains(TokenScopes, sc) }
