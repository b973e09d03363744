// Package seed holds Mnemo's demo data and built-in eval suites, loaded on a
// fresh database so that a newcomer sees every part of the product at work.
package seed

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

//go:embed demo/*.jsonl scenarios/*.jsonl
var demoFS embed.FS

// ShanghaiTask is the new task of the demo scenario: recall for it must
// return the travel family's rules and nothing from another project.
const ShanghaiTask = "带五岁的女儿去上海玩两天，她一直想去迪士尼。最终路线必须可执行。"

// DemoProject is one demo agent with the raw events it has sent.
type DemoProject struct {
	Slug        string
	Name        string
	Description string
	SubjectIDs  []string
	Events      []*governance.Event
}

// demoSpecs lists the demo projects in the order they are loaded and shown.
var demoSpecs = []struct {
	slug, name, description, file string
}{
	{
		slug:        "travel-agent",
		name:        "Travel agent",
		description: "A family plans trips with their five-year-old daughter (in Chinese): Beijing, Xi'an, Hangzhou. Failed and passed route checks, a nap window, one-off wishes, and a forum post carrying an injected instruction.",
		file:        "demo/travel-agent.jsonl",
	},
	{
		slug:        "expense-agent",
		name:        "Expense agent",
		description: "An employee (Chinese) files reimbursements; the agent learns when an invoice scan is needed.",
		file:        "demo/expense-agent.jsonl",
	},
	{
		slug:        "coding-assistant",
		name:        "Coding assistant",
		description: "A developer (English) fixes failing tests with a coding agent and sets a linter rule.",
		file:        "demo/coding-assistant.jsonl",
	},
}

// DemoProjects parses the embedded demo events and returns the demo projects
// in a stable order. Events keep their file order; seqs are left to the store.
func DemoProjects() ([]DemoProject, error) {
	projects := make([]DemoProject, 0, len(demoSpecs))
	for _, spec := range demoSpecs {
		data, err := demoFS.ReadFile(spec.file)
		if err != nil {
			return nil, fmt.Errorf("seed: read %s: %w", spec.file, err)
		}
		events, err := parseEvents(spec.file, data)
		if err != nil {
			return nil, err
		}
		projects = append(projects, DemoProject{
			Slug:        spec.slug,
			Name:        spec.name,
			Description: spec.description,
			SubjectIDs:  subjectIDs(events),
			Events:      events,
		})
	}
	return projects, nil
}

// parseEvents decodes JSON Lines strictly: unknown fields are errors, and
// every event must be valid after normalisation.
func parseEvents(name string, data []byte) ([]*governance.Event, error) {
	var events []*governance.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), governance.MaxEventTextBytes*2)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var e governance.Event
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("seed: %s line %d: %w", name, line, err)
		}
		e.Normalize()
		if problems := e.Validate(); len(problems) > 0 {
			return nil, fmt.Errorf("seed: %s line %d: %v", name, line, problems)
		}
		events = append(events, &e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("seed: scan %s: %w", name, err)
	}
	return events, nil
}

// subjectIDs returns the distinct subject ids in order of first appearance.
func subjectIDs(events []*governance.Event) []string {
	var ids []string
	seen := map[string]bool{}
	for _, e := range events {
		if e.SubjectID != "" && !seen[e.SubjectID] {
			seen[e.SubjectID] = true
			ids = append(ids, e.SubjectID)
		}
	}
	return ids
}

// NapChange is the outcomes scenario's session (docs/outcomes.md): on a
// fourth trip the family says the child's nap is now 13:00–15:00 instead
// of 14:00–16:00. It is not part of the fresh start; the scenario sends it
// through the agent API after the first proposals are approved.
func NapChange() ([]*governance.Event, error) {
	const name = "scenarios/nap-change.jsonl"
	data, err := demoFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("seed: read %s: %w", name, err)
	}
	return parseEvents(name, data)
}
