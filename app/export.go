package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/agentfile"
)

// ExportStore writes a project's exports.
type ExportStore interface {
	ExportJSONL(ctx context.Context, projectID int64, w io.Writer, opts governance.ExportOptions) (*governance.ExportStats, error)
	ExportHermes(ctx context.Context, projectID int64, subjectID string) (*governance.HermesExport, error)
	ExportAgentFiles(ctx context.Context, projectID int64, subjectID string) ([]governance.AgentFile, *governance.HermesExport, error)
	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
	RuleListStore
}

// Exports are the use cases that take memory out of the console: the full
// JSON Lines export, the Hermes files (MEMORY.md, USER.md), the agent
// files (AGENTS.md, CLAUDE.md, .claude/rules) and the portable memory
// lines of the MCP export_memory tool.
type Exports struct {
	store    ExportStore
	projects Projects
	events   Events
}

var errNoExportFile = governance.Errorf(governance.ENOTFOUND, "There is no such export file.")

// exportScope loads the project named by slug and authorizes an export of
// it about subject (nil: the whole project): a member's export is always
// about their own subject, whatever was asked. It returns the scope and
// the subject the export is about.
func (xs Exports) exportScope(ctx context.Context, actor governance.Actor, slug string, subject *string) (Scope, *string, error) {
	p, err := xs.projects.store.FindProjectBySlug(ctx, slug)
	if err != nil {
		return Scope{}, nil, err
	}
	sc, ok := scopeOf(actor, p)
	if !ok {
		if err := governance.Can(actor, governance.ActExport, governance.InProject(p)); err != nil {
			return Scope{}, nil, err
		}
		return Scope{}, nil, governance.Errorf(governance.EFORBIDDEN, "You have no access to project %s.", p.Slug)
	}
	if sc.Subject != nil {
		subject = sc.Subject
	}
	obj := governance.InProject(p)
	if subject != nil {
		obj = obj.About(*subject)
	}
	if err := governance.Can(actor, governance.ActExport, obj); err != nil {
		return Scope{}, nil, err
	}
	return sc, subject, nil
}

// ExportPage is what a project's export page shows.
type ExportPage struct {
	Scope Scope
	// SubjectID is the subject the files are about ("" = none).
	SubjectID string
	Hermes    *governance.HermesExport
	// AgentFiles and Subjects are for reviewers and admins only.
	AgentFiles []governance.AgentFile
	Subjects   []string
}

// Page builds the export page of the project named by slug: the Hermes
// files about subject (a member's: their own), and for reviewers and
// admins the agent files and the project's subjects.
func (xs Exports) Page(ctx context.Context, actor governance.Actor, slug, subject string) (*ExportPage, error) {
	sc, sub, err := xs.exportScope(ctx, actor, slug, &subject)
	if err != nil {
		return nil, err
	}
	h, err := xs.store.ExportHermes(ctx, sc.Project.ID, *sub)
	if err != nil {
		return nil, err
	}
	page := &ExportPage{Scope: sc, SubjectID: *sub, Hermes: h}
	if sc.Subject == nil {
		if page.AgentFiles, _, err = xs.store.ExportAgentFiles(ctx, sc.Project.ID, *sub); err != nil {
			return nil, err
		}
		if page.Subjects, err = xs.events.Subjects(ctx, actor, sc.Project.ID); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// JSONL streams the JSON Lines export of the project named by slug —
// everything, or what concerns subject (a member's: their own) — after
// writing its audit row (who, which project, which subject; never
// content). begin is called with the file's name once the export is
// authorized and audited and returns where to write; once streaming has
// begun, a failure can only cut the file short.
func (xs Exports) JSONL(ctx context.Context, actor governance.Actor, slug string, subject *string, begin func(name string) io.Writer) (*governance.ExportStats, error) {
	sc, subject, err := xs.exportScope(ctx, actor, slug, subject)
	if err != nil {
		return nil, err
	}
	p := sc.Project
	row := &governance.AuditEntry{Actor: actor.Name(), Action: "project.export", ObjectType: "project",
		ObjectID: fmt.Sprint(p.ID), ProjectID: p.ID, Details: `{"subject":null}`}
	name := p.Slug + ".jsonl"
	if subject != nil {
		// Named by its keyed reference, which a forget of the subject
		// makes unconfirmable.
		row.Subject = *subject
		name = p.Slug + "-" + safeFileName(*subject) + ".jsonl"
	}
	if err := xs.store.AppendAudit(ctx, row); err != nil {
		return nil, err
	}
	return xs.store.ExportJSONL(ctx, p.ID, begin(name), governance.ExportOptions{SubjectID: subject})
}

// auditFiles records that actor took files of project p out of the
// console (action: agentfiles.download, agentfiles.sync, hermes.export,
// memory.export): which files and, for a subject's, the subject by its
// keyed reference; never their content.
func (xs Exports) auditFiles(ctx context.Context, actor governance.Actor, p *governance.Project, action, subject string, files ...string) error {
	details, _ := json.Marshal(map[string]any{"files": files})
	return xs.store.AppendAudit(ctx, &governance.AuditEntry{Actor: actor.Name(), Action: action, ObjectType: "project",
		ObjectID: fmt.Sprint(p.ID), ProjectID: p.ID, Details: string(details), Subject: subject})
}

// safeFileName keeps letters, digits, dash and underscore.
func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// Hermes builds the Hermes files (MEMORY.md and USER.md) of the project
// named by slug, USER.md about subject ("" = none). Members get only their
// own USER.md: MEMORY.md holds the project's rules.
func (xs Exports) Hermes(ctx context.Context, actor governance.Actor, slug, subject string) (*governance.HermesExport, error) {
	sc, sub, err := xs.exportScope(ctx, actor, slug, &subject)
	if err != nil {
		return nil, err
	}
	h, err := xs.store.ExportHermes(ctx, sc.Project.ID, *sub)
	if err != nil {
		return nil, err
	}
	if err := xs.auditFiles(ctx, actor, sc.Project, "hermes.export", *sub, governance.HermesMemoryName, governance.HermesUserName); err != nil {
		return nil, err
	}
	return h, nil
}

// HermesFile is one of the Hermes files, by name (governance.HermesMemoryName
// or governance.HermesUserName). Members may download only their USER.md.
func (xs Exports) HermesFile(ctx context.Context, actor governance.Actor, slug, name, subject string) (*governance.HermesFile, error) {
	if name != governance.HermesMemoryName && name != governance.HermesUserName {
		return nil, errNoExportFile
	}
	sc, sub, err := xs.exportScope(ctx, actor, slug, &subject)
	if err != nil {
		return nil, err
	}
	if name == governance.HermesMemoryName && sc.Subject != nil {
		return nil, governance.Errorf(governance.EFORBIDDEN, "MEMORY.md holds the project's rules; members may download USER.md.")
	}
	h, err := xs.store.ExportHermes(ctx, sc.Project.ID, *sub)
	if err != nil {
		return nil, err
	}
	if err := xs.auditFiles(ctx, actor, sc.Project, "agentfiles.download", *sub, name); err != nil {
		return nil, err
	}
	if name == governance.HermesUserName {
		return &h.User, nil
	}
	return &h.Memory, nil
}

// AgentFiles builds the agent files (AGENTS.md, CLAUDE.md,
// .claude/rules/<topic>.md) and the Hermes files of the project named by
// slug, with subject's memories too when subject is set: what console
// sync writes. Reviewers, admins and export tokens only.
func (xs Exports) AgentFiles(ctx context.Context, actor governance.Actor, slug, subject string) ([]governance.AgentFile, *governance.HermesExport, error) {
	sc, sub, err := xs.exportScope(ctx, actor, slug, &subject)
	if err != nil {
		return nil, nil, err
	}
	if sc.Subject != nil {
		return nil, nil, governance.Errorf(governance.EFORBIDDEN, "Only the project's reviewers may do this.")
	}
	files, h, err := xs.store.ExportAgentFiles(ctx, sc.Project.ID, *sub)
	if err != nil {
		return nil, nil, err
	}
	names := []string{governance.HermesMemoryName, governance.HermesUserName}
	for _, f := range files {
		names = append(names, f.Path)
	}
	if err := xs.auditFiles(ctx, actor, sc.Project, "agentfiles.sync", *sub, names...); err != nil {
		return nil, nil, err
	}
	return files, h, nil
}

// AgentFile is one agent file by its download name
// (governance.AgentFileDownloadName), holding only its managed block, ready
// to be placed in a repository and kept current by console sync. Members
// have none.
func (xs Exports) AgentFile(ctx context.Context, actor governance.Actor, slug, name, subject string) ([]byte, error) {
	sc, sub, err := xs.exportScope(ctx, actor, slug, &subject)
	if err != nil {
		return nil, err
	}
	if sc.Subject != nil {
		return nil, errNoExportFile
	}
	files, _, err := xs.store.ExportAgentFiles(ctx, sc.Project.ID, *sub)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if governance.AgentFileDownloadName(f.Path) == name {
			if err := xs.auditFiles(ctx, actor, sc.Project, "agentfiles.download", *sub, f.Path); err != nil {
				return nil, err
			}
			return agentfile.MergeManagedBlock(nil, f.Block)
		}
	}
	return nil, errNoExportFile
}

// MemoryLine is one line of the portable memory format (JSON Lines) that
// the MCP export_memory tool writes and import_memory reads: a memory's
// kind, text and scope, readable by any agent.
type MemoryLine struct {
	ID        string `json:"id,omitempty"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	SubjectID string `json:"subject_id,omitempty"`
	Reason    string `json:"promotion_reason,omitempty"`
	Trust     string `json:"trust,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
}

// Memory returns the usable active rules of project projectID — the
// project-wide ones and, when subject is set, that subject's — as portable
// JSON Lines, with their count. Each rule's text is as an agent may read
// it (governance.RuleTextForAgent): a rule the write gate blocks is left
// out, credentials are masked.
func (xs Exports) Memory(ctx context.Context, actor governance.Actor, projectID int64, subject string) (string, int, error) {
	obj := governance.Object{ProjectID: projectID}
	if subject != "" {
		obj = obj.About(subject)
	}
	if err := governance.Can(actor, governance.ActExport, obj); err != nil {
		return "", 0, err
	}
	f := governance.RuleFilter{ProjectID: &projectID, ForSubject: &subject, Statuses: []governance.RuleStatus{governance.RuleActive}, Limit: 1000}
	rules, _, err := xs.store.FindRules(ctx, f)
	if err != nil {
		return "", 0, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	n := 0
	now := time.Now()
	for _, r := range rules {
		if ok, _ := r.Usable(now); !ok {
			continue
		}
		// An agent reads it: what recall would not serve is left out.
		text, ok := governance.RuleTextForAgent(r)
		if !ok {
			continue
		}
		if err := enc.Encode(MemoryLine{ID: governance.RecallRuleID(r.ID), Kind: string(r.Kind), Text: text, SubjectID: r.SubjectID,
			Reason: string(r.PromotionReason), Trust: fmt.Sprintf("%.2f", r.Trust), UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339)}); err != nil {
			return "", 0, err
		}
		n++
	}
	p, err := xs.projects.store.FindProjectByID(ctx, projectID)
	if err != nil {
		return "", 0, err
	}
	if err := xs.auditFiles(ctx, actor, p, "memory.export", subject, "memory.jsonl"); err != nil {
		return "", 0, err
	}
	return b.String(), n, nil
}
