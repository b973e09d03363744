package transcript

import (
	"encoding/json"
	"testing"
)

// BenchmarkRenderCall renders the tool calls of an agent's session: a
// shell command, an MCP call with a headline and its arguments, and one
// with no headline argument. Every call an import reads is rendered once.
func BenchmarkRenderCall(b *testing.B) {
	calls := []struct {
		name  string
		input json.RawMessage
	}{
		{"Bash", json.RawMessage(`{"command":"go test ./billing/...","description":"Run the billing tests"}`)},
		{"mcp__calendar__create_event", json.RawMessage(`{"summary":"Quarterly review","description":"Agenda: budget, hiring","start":"2026-02-04T10:00:00+01:00","end":"2026-02-04T11:00:00+01:00","attendees":["a@example.com","b@example.com"]}`)},
		{"mcp__crm__update_contact", json.RawMessage(`{"email":"zhou.min@example.com","properties":{"phone":"+8613800138000","company":"Northwind","notes":"Prefers e-mail; call only in the afternoon."}}`)},
	}
	b.ReportAllocs()
	for i := range b.N {
		c := calls[i%len(calls)]
		if renderCall(c.name, c.input) == "" {
			b.Fatal("empty")
		}
	}
}
