package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
	"github.com/mnemo-console/mnemo/governance/recall"
	"github.com/mnemo-console/mnemo/transcript"
)

// SkillStore keeps a project's skills (both stores; docs/skills.md).
type SkillStore interface {
	SaveSkill(ctx context.Context, actor string, p *governance.SkillProposal) (*governance.SkillSaved, error)
	FindSkill(ctx context.Context, projectID int64, name string) (*governance.Skill, error)
	FindSkills(ctx context.Context, f governance.SkillFilter) ([]*governance.Skill, int, error)
	FindSkillVersions(ctx context.Context, skillID int64) ([]*governance.SkillVersion, error)
	FindSkillEvidence(ctx context.Context, skillID int64) ([]governance.SkillEvidence, error)
	DecideSkill(ctx context.Context, actor string, skillID int64, d governance.SkillDecision) (*governance.Skill, error)
	CountSkillUse(ctx context.Context, skillID int64) error
	SkillGeneration(ctx context.Context, projectID int64) (int64, error)
	RecordProcedures(ctx context.Context, projectID int64, gen *int64, ps []governance.Procedure) error
	FindProcedureSessions(ctx context.Context, projectID int64, signature string) ([]governance.SkillEvidence, error)
	MaskSkillVersions(ctx context.Context, actor string, masked []*governance.SkillMasked) (int, error)
	SkillsMaskedBy(ctx context.Context) (string, error)
	SetSkillsMaskedBy(ctx context.Context, gateVersion string) error
	CurrentTime() time.Time
}

// Skills are the use cases of governed skills: import, review, versions,
// the curator, drafts from evidence, and what agents read (the list, one
// skill's body, the skills a context package lists).
type Skills struct {
	store    SkillStore
	projects Projects
	catalog  *skillCatalog
	// drafter, when set, words the drafts (a model); the code words them
	// otherwise, or when the drafter fails.
	drafter governance.SkillDrafter
	// gate is the risk review's classifier (App.SetClassifier).
	gate governance.Classifier
}

// maxDraftAsks bounds the user lines a drafter reads, maxDraftAskRunes
// each one.
const (
	maxDraftAsks     = 3
	maxDraftAskRunes = 300
)

// draftAsks are what users asked in session id of the beat: its first user
// messages, credentials masked, each clipped.
func draftAsks(in *governance.ConsolidateInput, id string) []string {
	var out []string
	for _, w := range in.Sessions {
		if w.Session == nil || w.Session.SessionID != id {
			continue
		}
		for _, e := range w.Events {
			if e.Kind != governance.KindMessage || e.Role != governance.RoleUser || strings.TrimSpace(e.Text) == "" {
				continue
			}
			text := []rune(strings.Join(strings.Fields(governance.ReadMasker().Mask(e.Text)), " "))
			out = append(out, string(text[:min(len(text), maxDraftAskRunes)]))
			if len(out) == maxDraftAsks {
				return out
			}
		}
	}
	return out
}

// HeartbeatActor names the heartbeat in audit rows of the drafts it writes.
const HeartbeatActor = "heartbeat"

// skillCatalog keeps each project's index of active skills for recall,
// rebuilt when the project's skill generation moves on (on any instance).
type skillCatalog struct {
	mu      sync.Mutex
	entries map[int64]catalogEntry
}

type catalogEntry struct {
	gen int64
	ix  *recall.SkillIndex
	// skills are the active skills by name, their descriptions as agents
	// read them (recall.SkillTextForAgent).
	skills []*governance.Skill
}

func newSkillCatalog() *skillCatalog { return &skillCatalog{entries: map[int64]catalogEntry{}} }

// scope returns the project ref names for an actor who may read its
// skills (reviewers, admins, the project's recall tokens).
func (ss Skills) scope(ctx context.Context, actor governance.Actor, ref ProjectRef) (*governance.Project, error) {
	p, err := ref.find(ctx, ss.projects.store)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActReadSkills, governance.InProject(p).Named("Skill")); err != nil {
		return nil, err
	}
	return p, nil
}

// reviewed is scope for the project's reviewers and admins.
func (ss Skills) reviewed(ctx context.Context, actor governance.Actor, ref ProjectRef) (*governance.Project, error) {
	p, err := ss.scope(ctx, actor, ref)
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActReview, governance.InProject(p)); err != nil {
		return nil, err
	}
	return p, nil
}

// reviewedSkill loads a project's skill for its reviewers and admins.
func (ss Skills) reviewedSkill(ctx context.Context, actor governance.Actor, project ProjectRef, name string) (*governance.Project, *governance.Skill, error) {
	p, err := ss.reviewed(ctx, actor, project)
	if err != nil {
		return nil, nil, err
	}
	s, err := ss.store.FindSkill(ctx, p.ID, name)
	if err != nil {
		return nil, nil, err
	}
	return p, s, nil
}

// SkillListInput is a list of a project's skills as a surface asks for it.
type SkillListInput struct {
	Project ProjectRef
	// Status is one status to list ("" every one; agents: active only).
	Status string
	Query  string
	Limit  int
	Offset int
}

// SkillList is a page of a project's skills.
type SkillList struct {
	Project *governance.Project
	Skills  []*governance.Skill
	Total   int
}

// List lists a project's skills: every status for its reviewers, only
// active ones for a token (an agent never reads a proposed skill).
func (ss Skills) List(ctx context.Context, actor governance.Actor, in SkillListInput) (*SkillList, error) {
	p, err := ss.scope(ctx, actor, in.Project)
	if err != nil {
		return nil, err
	}
	f := governance.SkillFilter{ProjectID: p.ID, Query: in.Query, Limit: in.Limit, Offset: in.Offset}
	if in.Status != "" {
		st := governance.SkillStatus(in.Status)
		if !st.Valid() {
			return nil, FieldErrors{"status": governance.Say("Choose a status.")}
		}
		f.Statuses = []governance.SkillStatus{st}
	}
	if actor.Token != nil {
		return ss.agentList(ctx, p, f)
	}
	skills, total, err := ss.store.FindSkills(ctx, f)
	if err != nil {
		return nil, err
	}
	return &SkillList{Project: p, Skills: skills, Total: total}, nil
}

// agentList is an agent's page of the project's active skills, from the
// catalog recall keeps (one query for the generation, no rows read while
// it holds; descriptions masked once).
func (ss Skills) agentList(ctx context.Context, p *governance.Project, f governance.SkillFilter) (*SkillList, error) {
	e, err := ss.entry(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimSpace(f.Query))
	var match []*governance.Skill
	for _, s := range e.skills {
		if q == "" || strings.Contains(strings.ToLower(s.Name), q) || strings.Contains(strings.ToLower(s.Description), q) {
			match = append(match, s)
		}
	}
	limit := f.Limit
	if limit <= 0 || limit > governance.MaxSkillPage {
		limit = governance.MaxSkillPage
	}
	lo := min(max(f.Offset, 0), len(match))
	hi := min(lo+limit, len(match))
	return &SkillList{Project: p, Skills: append([]*governance.Skill{}, match[lo:hi]...), Total: len(match)}, nil
}

// SkillDetail is one skill as its reviewers see it.
type SkillDetail struct {
	Project  *governance.Project
	Skill    *governance.Skill
	Versions []*governance.SkillVersion
	Evidence []governance.SkillEvidence
	Can      governance.SkillActionSet
}

// Version returns version n (nil when there is none).
func (d *SkillDetail) Version(n int) *governance.SkillVersion {
	for _, v := range d.Versions {
		if v.Version == n {
			return v
		}
	}
	return nil
}

// Get loads a skill with its versions and evidence for its project's
// reviewers and admins.
func (ss Skills) Get(ctx context.Context, actor governance.Actor, project ProjectRef, name string) (*SkillDetail, error) {
	p, s, err := ss.reviewedSkill(ctx, actor, project, name)
	if err != nil {
		return nil, err
	}
	versions, err := ss.store.FindSkillVersions(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	evidence, err := ss.store.FindSkillEvidence(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	return &SkillDetail{Project: p, Skill: s, Versions: versions, Evidence: evidence, Can: s.AllowedActions()}, nil
}

// AgentSkill is one active skill as an agent reads it: SKILL.md with
// credentials masked and fence tags defused, the names and sizes of its
// other files, and one file's text when asked for.
type AgentSkill struct {
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Version      int              `json:"version"`
	AllowedTools []string         `json:"allowed_tools,omitempty"`
	SkillMD      string           `json:"skill_md"`
	Files        []AgentSkillFile `json:"files"`
	// File is the file asked for, if any.
	File *AgentSkillFile `json:"file,omitempty"`
}

// AgentSkillFile is one file of a skill for an agent; Text is set when
// the file was asked for and reads as text.
type AgentSkillFile struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Binary bool   `json:"binary,omitempty"`
	Text   string `json:"text,omitempty"`
}

// Fetch returns an active skill's body for an agent (a token, or a
// reviewer), and — when file names one — that file's text; an agent's
// fetch counts as one use. A skill that is not active is ENOTFOUND.
func (ss Skills) Fetch(ctx context.Context, actor governance.Actor, project ProjectRef, name, file string) (*AgentSkill, error) {
	p, err := ss.scope(ctx, actor, project)
	if err != nil {
		return nil, err
	}
	s, err := ss.store.FindSkill(ctx, p.ID, name)
	if err != nil {
		return nil, err
	}
	if !s.Agent() {
		return nil, governance.Errorf(governance.ENOTFOUND, "Skill not found.")
	}
	versions, err := ss.store.FindSkillVersions(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	var v *governance.SkillVersion
	for _, x := range versions {
		if x.Version == s.Version {
			v = x
		}
	}
	if v == nil {
		return nil, governance.Errorf(governance.ENOTFOUND, "Skill not found.")
	}
	out := &AgentSkill{Name: s.Name, Description: recall.SkillTextForAgent(s.Description), Version: v.Version,
		AllowedTools: v.Content.AllowedTools, SkillMD: recall.SkillTextForAgent(v.Content.SkillMD), Files: []AgentSkillFile{}}
	for _, f := range v.Content.Files {
		out.Files = append(out.Files, AgentSkillFile{Path: f.Path, Bytes: len(f.Content), Binary: !f.Text()})
	}
	if file != "" {
		f, ok := v.Content.File(file)
		if !ok || file == governance.SkillFileName {
			return nil, governance.Errorf(governance.ENOTFOUND, "Skill %s has no file %s.", s.Name, file)
		}
		af := &AgentSkillFile{Path: f.Path, Bytes: len(f.Content), Binary: !f.Text()}
		if f.Text() {
			af.Text = recall.SkillTextForAgent(string(f.Content))
		}
		out.File = af
	}
	if actor.Token != nil {
		if err := ss.store.CountSkillUse(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Applicable returns the project's active skills that apply to task (the
// skills section of a context package), for an actor who may read them;
// none for one who may not (a member's playground recall).
func (ss Skills) Applicable(ctx context.Context, actor governance.Actor, projectID int64, task string) ([]governance.SkillMatch, error) {
	if governance.Can(actor, governance.ActReadSkills, governance.Object{ProjectID: projectID}) != nil {
		return nil, nil
	}
	e, err := ss.entry(ctx, projectID)
	if err != nil || e.ix.Len() == 0 {
		return nil, err
	}
	return e.ix.Select(task, recall.MaxSkills), nil
}

// entry returns the project's catalog of active skills, rebuilt when
// their generation moved on.
func (ss Skills) entry(ctx context.Context, projectID int64) (catalogEntry, error) {
	gen, err := ss.store.SkillGeneration(ctx, projectID)
	if err != nil {
		return catalogEntry{}, err
	}
	ss.catalog.mu.Lock()
	e, ok := ss.catalog.entries[projectID]
	ss.catalog.mu.Unlock()
	if ok && e.gen == gen {
		return e, nil
	}
	active, err := ss.active(ctx, projectID)
	if err != nil {
		return catalogEntry{}, err
	}
	e = catalogEntry{gen: gen, skills: make([]*governance.Skill, len(active))}
	for i, s := range active {
		c := *s
		c.Description = recall.SkillTextForAgent(s.Description)
		e.skills[i] = &c
	}
	e.ix = recall.NewSkillIndex(e.skills)
	ss.catalog.mu.Lock()
	ss.catalog.entries[projectID] = e
	ss.catalog.mu.Unlock()
	return e, nil
}

// active lists every active skill of a project, page by page.
func (ss Skills) active(ctx context.Context, projectID int64) ([]*governance.Skill, error) {
	var out []*governance.Skill
	for off := 0; ; off += governance.MaxSkillPage {
		page, total, err := ss.store.FindSkills(ctx, governance.SkillFilter{ProjectID: projectID,
			Statuses: []governance.SkillStatus{governance.SkillActive}, Limit: governance.MaxSkillPage, Offset: off})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) == 0 || len(out) >= total {
			return out, nil
		}
	}
}

// evaluate runs a version's trigger examples through the selection, with
// the version in place of its skill among the project's active ones.
func (ss Skills) evaluate(ctx context.Context, projectID int64, c governance.SkillContent, ex governance.SkillExamples) (*governance.SkillEval, error) {
	if ex.Empty() {
		return nil, nil
	}
	active, err := ss.active(ctx, projectID)
	if err != nil {
		return nil, err
	}
	skills := slices.DeleteFunc(active, func(s *governance.Skill) bool { return s.Name == c.Name })
	skills = append(skills, &governance.Skill{Name: c.Name, Description: c.Description, Status: governance.SkillActive})
	return EvaluateTriggers(recall.NewSkillIndex(skills), c.Name, ex), nil
}

// EvaluateTriggers checks a skill's examples against an index that holds it.
func EvaluateTriggers(ix *recall.SkillIndex, name string, ex governance.SkillExamples) *governance.SkillEval {
	e := &governance.SkillEval{Should: len(ex.Should), ShouldNot: len(ex.ShouldNot)}
	offered := func(task string) bool {
		return slices.ContainsFunc(ix.Select(task, recall.MaxSkills), func(m governance.SkillMatch) bool { return m.Name == name })
	}
	for _, task := range ex.Should {
		if offered(task) {
			e.Hits++
		} else {
			e.Misses = append(e.Misses, task)
		}
	}
	for _, task := range ex.ShouldNot {
		if offered(task) {
			e.FalseHits++
			e.Wrong = append(e.Wrong, task)
		}
	}
	return e
}

// SkillImportInput is a set of skill folders to import into a project.
type SkillImportInput struct {
	Project ProjectRef
	Folders []governance.SkillFolder
	// Source names where they were read (a directory, an archive).
	Source string
	// Activate activates the versions the risk review found nothing in
	// (so does a project that auto-activates); a version with findings
	// always waits for a reviewer.
	Activate bool
	// Partial imports the valid folders and reports the others (a
	// followed directory); otherwise one invalid folder rejects them all
	// and nothing is written.
	Partial bool
	// Loose are archive entries that belong to no folder and were dropped.
	Loose []governance.SkillDropped
}

// SkillImportResult says what an import did.
type SkillImportResult struct {
	Project *governance.Project
	Saved   []*governance.SkillSaved
	// Problems are the folders left out of a partial import.
	Problems []governance.SkillProblem
	// Findings counts the findings of the versions stored.
	Findings map[string]int
}

// Import validates skill folders against the Agent Skills rules, reviews
// them, and stores each as a new version of its skill (an unchanged one is
// left as it is). Administrators only. Problems name the folder and file
// (*governance.SkillImportError, nothing written).
func (ss Skills) Import(ctx context.Context, actor governance.Actor, in SkillImportInput) (*SkillImportResult, error) {
	p, err := in.Project.find(ctx, ss.projects.store)
	if governance.ErrorCode(err) == governance.ENOTFOUND {
		return nil, FieldErrors{"project": governance.Say("Choose a project.")}
	}
	if err != nil {
		return nil, err
	}
	if err := governance.Can(actor, governance.ActImportSkills, governance.InProject(p)); err != nil {
		return nil, err
	}
	res := &SkillImportResult{Project: p, Findings: map[string]int{}}
	if len(in.Folders) == 0 {
		return nil, &governance.SkillImportError{Problems: []governance.SkillProblem{{Where: in.Source, File: governance.SkillFileName,
			Message: "No skill folder (a folder holding a SKILL.md) was found."}}}
	}
	type parsed struct {
		folder  governance.SkillFolder
		content *governance.SkillContent
	}
	var ok []parsed
	var problems []governance.SkillProblem
	seen := map[string]string{}
	for _, f := range in.Folders {
		c, bad := governance.ParseSkillFolder(f)
		if bad != nil {
			problems = append(problems, bad...)
			continue
		}
		if where, dup := seen[c.Name]; dup {
			problems = append(problems, governance.SkillProblem{Where: f.Where, File: governance.SkillFileName,
				Message: fmt.Sprintf("Another folder (%s) holds a skill of the same name.", where)})
			continue
		}
		seen[c.Name] = f.Where
		ok = append(ok, parsed{f, c})
	}
	if len(problems) > 0 && !in.Partial {
		return nil, &governance.SkillImportError{Problems: problems}
	}
	res.Problems = problems
	for _, x := range ok {
		findings, err := ss.review(ctx, x.content, append(slices.Clone(x.folder.Dropped), in.Loose...))
		if err != nil {
			return nil, err
		}
		source := in.Source
		if x.folder.Where != "" && x.folder.Where != "." {
			source = strings.TrimSuffix(source, "/") + "/" + x.folder.Where
		}
		prop := &governance.SkillProposal{ProjectID: p.ID, Category: x.folder.Category, Content: *x.content, Findings: findings,
			KeepExamples: true, Origin: governance.OriginImport, Source: source, Activate: in.Activate || p.AutoActivate,
			Reason: "Imported from an agent's skills folder."}
		// A folder that repeats a stored version (a followed directory on
		// every poll) is answered without a write.
		if prev, err := ss.store.FindSkill(ctx, p.ID, x.content.Name); err == nil {
			vs, err := ss.store.FindSkillVersions(ctx, prev.ID)
			if err != nil {
				return nil, err
			}
			digest := x.content.Digest()
			if i := slices.IndexFunc(vs, func(v *governance.SkillVersion) bool { return v.Digest == digest }); i >= 0 {
				res.Saved = append(res.Saved, &governance.SkillSaved{Skill: prev, Version: vs[i].Version, Unchanged: true})
				res.Findings[x.content.Name] = len(vs[i].Findings)
				continue
			}
			if len(vs) > 0 {
				prop.Examples = vs[0].Examples
			}
		} else if governance.ErrorCode(err) != governance.ENOTFOUND {
			return nil, err
		}
		if prop.Eval, err = ss.evaluate(ctx, p.ID, prop.Content, prop.Examples); err != nil {
			return nil, err
		}
		saved, err := ss.store.SaveSkill(ctx, actor.Name(), prop)
		if err != nil {
			return nil, err
		}
		res.Saved = append(res.Saved, saved)
		res.Findings[x.content.Name] = len(findings)
	}
	return res, nil
}

// ImportDir reads an agent's skills directory (ReadSkillDir) and imports
// its folders.
func (ss Skills) ImportDir(ctx context.Context, actor governance.Actor, project ProjectRef, dir string, activate, partial bool) (*SkillImportResult, error) {
	folders, err := transcript.ReadSkillDir(dir)
	if err != nil {
		return nil, governance.Errorf(governance.EINVALID, "Cannot read the skills directory: %s.", err.Error())
	}
	return ss.Import(ctx, actor, SkillImportInput{Project: project, Folders: folders, Source: dir, Activate: activate, Partial: partial})
}

// ImportArchive reads an uploaded zip or tar.gz of skill folders and
// imports them.
func (ss Skills) ImportArchive(ctx context.Context, actor governance.Actor, project ProjectRef, name string, data []byte, activate bool) (*SkillImportResult, error) {
	if err := governance.Can(actor, governance.ActImportSkills, governance.Object{}); err != nil {
		return nil, err
	}
	folders, loose, err := transcript.ReadSkillArchive(name, data)
	if err != nil {
		return nil, FieldErrors{"file": governance.Say("Upload a zip or tar.gz archive of skill folders.")}
	}
	return ss.Import(ctx, actor, SkillImportInput{Project: project, Folders: folders, Source: name, Activate: activate, Loose: loose})
}

// SkillDecisionInput is a reviewer's decision as a form gives it.
type SkillDecisionInput struct {
	Action string
	// Version is the version decided ("" the pending one).
	Version      string
	Reason       string
	Acknowledged bool
}

// Decide applies a reviewer's decision to a skill: approve or reject its
// waiting version, mark it stale, archive, restore, pin or unpin it. The
// lifecycle is checked in the store; a version with findings is approved
// only with the findings acknowledged.
func (ss Skills) Decide(ctx context.Context, actor governance.Actor, project ProjectRef, name string, in SkillDecisionInput) (*governance.Skill, error) {
	_, s, err := ss.reviewedSkill(ctx, actor, project, name)
	if err != nil {
		return nil, err
	}
	action := governance.SkillAction(in.Action)
	if !action.Valid() || action == governance.SkillEdit {
		return nil, FieldErrors{"action": governance.Say("Choose an action.")}
	}
	d := governance.SkillDecision{Action: action, Reason: strings.TrimSpace(in.Reason), Acknowledged: in.Acknowledged}
	if v := strings.TrimSpace(in.Version); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, FieldErrors{"version": governance.Say("Choose a version.")}
		}
		d.Version = n
	}
	if len(d.Reason) > governance.MaxSkillReasonBytes {
		return nil, FieldErrors{"reason": governance.Say("The reason is too long.")}
	}
	out, err := ss.store.DecideSkill(ctx, actor.Name(), s.ID, d)
	if governance.ErrorCode(err) == governance.EINVALID {
		return nil, FieldErrors{"acknowledged": governance.ErrorText(err)}
	}
	return out, err
}

// SkillEditInput is a reviewer's edit: the whole SKILL.md and the trigger
// examples, one a line.
type SkillEditInput struct {
	SkillMD   string
	Should    string
	ShouldNot string
	Reason    string
}

// Edit stores a reviewer's version of a skill (its other files kept from
// the newest version) as a proposal, reviewed like any other: the edit
// of one reviewer waits for an approval, never activates itself. Bad input
// is FieldErrors on skill_md, examples and reason.
func (ss Skills) Edit(ctx context.Context, actor governance.Actor, project ProjectRef, name string, in SkillEditInput) (*governance.SkillSaved, error) {
	p, s, err := ss.reviewedSkill(ctx, actor, project, name)
	if err != nil {
		return nil, err
	}
	if err := s.Allow(governance.SkillEdit); err != nil {
		return nil, err
	}
	versions, err := ss.store.FindSkillVersions(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	errs := FieldErrors{}
	md := strings.ReplaceAll(in.SkillMD, "\r\n", "\n")
	files := []governance.SkillFile{{Path: governance.SkillFileName, Content: []byte(md)}}
	if len(versions) > 0 {
		files = append(files, versions[0].Content.Files...)
	}
	c, problems := governance.ParseSkillFolder(governance.SkillFolder{Name: s.Name, Where: s.Name, Files: files})
	if problems != nil {
		msgs := make([]governance.Text, len(problems))
		for i, pr := range problems {
			msgs[i] = pr.Sentence()
		}
		errs["skill_md"] = governance.Lines(msgs...)
	}
	ex, exProblems := governance.ParseSkillExamples(in.Should, in.ShouldNot)
	if exProblems != nil {
		errs["examples"] = governance.Lines(exProblems...)
	}
	reason := strings.TrimSpace(in.Reason)
	if len(reason) > governance.MaxSkillReasonBytes {
		errs["reason"] = governance.Say("The reason is too long.")
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if reason == "" {
		reason = "Edited by a reviewer."
	}
	// The review masks credentials in c: the proposal copies c after it.
	findings, err := ss.review(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	prop := &governance.SkillProposal{ProjectID: p.ID, Content: *c, Examples: ex, Origin: governance.OriginReviewer, Reason: reason,
		Findings: findings}
	if prop.Eval, err = ss.evaluate(ctx, p.ID, *c, ex); err != nil {
		return nil, err
	}
	return ss.store.SaveSkill(ctx, actor.Name(), prop)
}

// Curator reports which of a project's skills the curator proposes to
// mark stale or archive, given how many days unused (0: the defaults).
func (ss Skills) Curator(ctx context.Context, actor governance.Actor, project ProjectRef, staleDays, archiveDays int) (*governance.CuratorReport, error) {
	p, err := ss.reviewed(ctx, actor, project)
	if err != nil {
		return nil, err
	}
	if staleDays < 0 || archiveDays < 0 || staleDays > 3650 || archiveDays > 3650 {
		return nil, FieldErrors{"days": governance.Say("A number of days between 1 and 3650.")}
	}
	var skills []*governance.Skill
	for off := 0; ; off += governance.MaxSkillPage {
		page, total, err := ss.store.FindSkills(ctx, governance.SkillFilter{ProjectID: p.ID,
			Statuses: []governance.SkillStatus{governance.SkillActive, governance.SkillStale}, Limit: governance.MaxSkillPage, Offset: off})
		if err != nil {
			return nil, err
		}
		skills = append(skills, page...)
		if len(page) == 0 || len(skills) >= total {
			break
		}
	}
	day := 24 * time.Hour
	return governance.Curate(skills, ss.store.CurrentTime(), governance.CuratorPolicy{
		StaleAfter: time.Duration(staleDays) * day, ArchiveAfter: time.Duration(archiveDays) * day}), nil
}

// ApplyCurator carries out the curator's proposals a reviewer accepted
// (by skill name), each as that reviewer's decision; a proposal that no
// longer holds is skipped. It returns the skills changed.
func (ss Skills) ApplyCurator(ctx context.Context, actor governance.Actor, project ProjectRef, names []string, staleDays, archiveDays int) ([]*governance.Skill, error) {
	if len(names) == 0 {
		return nil, FieldErrors{"names": governance.Say("Select at least one skill.")}
	}
	r, err := ss.Curator(ctx, actor, project, staleDays, archiveDays)
	if err != nil {
		return nil, err
	}
	var out []*governance.Skill
	for _, prop := range r.Proposals {
		if !slices.Contains(names, prop.Skill.Name) {
			continue
		}
		days := int(prop.Idle / (24 * time.Hour))
		s, err := ss.Decide(ctx, actor, project, prop.Skill.Name, SkillDecisionInput{Action: string(prop.Action),
			Reason: fmt.Sprintf("The curator's proposal: unused for %d days.", days)})
		if governance.ErrorCode(err) == governance.ECONFLICT {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Export lists a project's active skills with their active version's
// files, to write back into the agents' skills directories (console sync,
// the export page). The project's reviewers and admins.
func (ss Skills) Export(ctx context.Context, actor governance.Actor, project ProjectRef) ([]transcript.ExportedSkill, error) {
	p, err := ss.reviewed(ctx, actor, project)
	if err != nil {
		return nil, err
	}
	active, err := ss.active(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	out := make([]transcript.ExportedSkill, 0, len(active))
	for _, s := range active {
		versions, err := ss.store.FindSkillVersions(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		for _, v := range versions {
			if v.Version == s.Version {
				out = append(out, transcript.ExportedSkill{Name: s.Name, Category: s.Category, Version: v.Version, Content: v.Content})
			}
		}
	}
	return out, nil
}

// LearnProcedures is the heartbeat's part in skills: it records the
// procedures of a beat's ended sessions and drafts a skill from each that
// now repeats in governance.MinProcedureSessions sessions (and from each
// "this is how we do X"), linked to its sessions. A procedure seen once
// is only recorded. It returns the drafts written.
func (ss Skills) LearnProcedures(ctx context.Context, in *governance.ConsolidateInput) (int, error) {
	if in == nil || in.Project == nil || len(in.Sessions) == 0 {
		return 0, nil
	}
	pid := in.Project.ID
	var repeated, explicit []governance.Procedure
	for _, w := range in.Sessions {
		for _, p := range governance.ProceduresOf(w.Events) {
			if p.Explicit {
				explicit = append(explicit, p)
			} else {
				repeated = append(repeated, p)
			}
		}
	}
	// What the beat read is written only if no forget committed since.
	gen := in.ForgetGeneration
	if err := ss.store.RecordProcedures(ctx, pid, &gen, repeated); err != nil {
		return 0, err
	}
	drafts := 0
	done := map[string]bool{}
	for i := len(repeated) - 1; i >= 0; i-- {
		p := repeated[i]
		if done[p.Signature] {
			continue
		}
		done[p.Signature] = true
		sessions, err := ss.store.FindProcedureSessions(ctx, pid, p.Signature)
		if err != nil {
			return drafts, err
		}
		if len(sessions) < governance.MinProcedureSessions {
			continue
		}
		ok, err := ss.draft(ctx, pid, &gen, &p, sessions, draftAsks(in, p.SessionID))
		if err != nil {
			return drafts, err
		}
		if ok {
			drafts++
		}
	}
	for _, p := range explicit {
		if done[p.Signature] {
			continue
		}
		done[p.Signature] = true
		ok, err := ss.draft(ctx, pid, &gen, &p, []governance.SkillEvidence{{SessionID: p.SessionID, SubjectID: p.SubjectID, Seqs: p.Seqs()}},
			draftAsks(in, p.SessionID))
		if err != nil {
			return drafts, err
		}
		if ok {
			drafts++
		}
	}
	return drafts, nil
}

// draft writes the draft skill of procedure p, learned from sessions,
// unless one was drafted from it before (whatever became of it). With a
// drafter, it words the draft from the steps and asks (what users asked);
// the risk review reads its words as it reads the code's.
func (ss Skills) draft(ctx context.Context, projectID int64, gen *int64, p *governance.Procedure, sessions []governance.SkillEvidence, asks []string) (bool, error) {
	if _, n, err := ss.store.FindSkills(ctx, governance.SkillFilter{ProjectID: projectID, Signature: p.Signature, Limit: 1}); err != nil || n > 0 {
		return false, err
	}
	base := governance.DraftName(p)
	name := base
	for i := 2; ; i++ {
		_, err := ss.store.FindSkill(ctx, projectID, name)
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			break
		}
		if err != nil {
			return false, err
		}
		name = fmt.Sprintf("%s-%d", strings.TrimRight(base[:min(len(base), governance.MaxSkillNameLen-3)], "-"), i)
	}
	ids := make([]string, len(sessions))
	check := p.Check()
	for i := range sessions {
		ids[i] = sessions[i].SessionID
		sessions[i].Check = check.Command
		if sessions[i].Check == "" {
			sessions[i].Check = check.Tool
		}
	}
	var text *governance.SkillDraftText
	var unworded error
	if ss.drafter != nil {
		t, err := ss.drafter.DraftSkillText(ctx, governance.DraftInput(name, p, asks))
		switch {
		case err == nil:
			text = &t
		case ctx.Err() != nil:
			return false, ctx.Err()
		default:
			unworded = err
		}
	}
	c := governance.DraftSkill(name, p, ids, text)
	reason := draftReason(p.Explicit, len(sessions), text, unworded)
	findings, err := ss.review(ctx, &c, nil)
	if err != nil {
		return false, err
	}
	prop := &governance.SkillProposal{ProjectID: projectID, Content: c, Origin: governance.OriginEvidence, Signature: p.Signature,
		Evidence: sessions, Reason: reason, Findings: findings, ForgetGeneration: gen}
	_, err = ss.store.SaveSkill(ctx, HeartbeatActor, prop)
	return err == nil, err
}

// draftReason says where a draft came from and who worded it.
func draftReason(explicit bool, sessions int, text *governance.SkillDraftText, unworded error) string {
	switch {
	case explicit && text != nil:
		return fmt.Sprintf("Drafted from a user saying how this task is done; worded by %s.", text.Drafter)
	case explicit && unworded != nil:
		return "Drafted from a user saying how this task is done; the model could not word it."
	case explicit:
		return "Drafted from a user saying how this task is done."
	case text != nil:
		return fmt.Sprintf("Drafted from %d sessions that repeated the same steps and ended with a passed check; worded by %s.", sessions, text.Drafter)
	case unworded != nil:
		return fmt.Sprintf("Drafted from %d sessions that repeated the same steps and ended with a passed check; the model could not word it.", sessions)
	}
	return fmt.Sprintf("Drafted from %d sessions that repeated the same steps and ended with a passed check.", sessions)
}

// SystemActor names the console itself in audit rows of what it does on
// its own (the masking of versions stored before it masked credentials).
const SystemActor = "system"

// MaskStored masks the credentials in every stored skill version that
// still holds one — versions stored before the console masked them: the
// same masks and findings a version gets when it is stored now
// (governance.MaskStoredVersion), each rewrite audited (skill.masked) and
// followed, as a forget is, by the store's scrub of the old rows. It
// returns how many versions it rewrote; the console runs it at start. A
// store once masked by this gate (gate.Version) is not read again: versions
// stored since were masked as they were stored, so only a changed gate
// needs another pass.
func (ss Skills) MaskStored(ctx context.Context) (int, error) {
	done, err := ss.store.SkillsMaskedBy(ctx)
	if err != nil || done == gate.Version() {
		return 0, err
	}
	projects, err := ss.projects.store.FindProjects(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, p := range projects {
		var masked []*governance.SkillMasked
		for offset := 0; ; offset += governance.MaxSkillPage {
			skills, _, err := ss.store.FindSkills(ctx, governance.SkillFilter{ProjectID: p.ID, Limit: governance.MaxSkillPage, Offset: offset})
			if err != nil {
				return total, err
			}
			for _, sk := range skills {
				versions, err := ss.store.FindSkillVersions(ctx, sk.ID)
				if err != nil {
					return total, err
				}
				for _, v := range versions {
					if m := governance.MaskStoredVersion(v, gate.Scan); m != nil {
						masked = append(masked, m)
					}
				}
			}
			if len(skills) < governance.MaxSkillPage {
				break
			}
		}
		n, err := ss.store.MaskSkillVersions(ctx, SystemActor, masked)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, ss.store.SetSkillsMaskedBy(ctx, gate.Version())
}

// review masks the credentials of c in place (a version never keeps one:
// docs/skills.md, "Risk review") and returns the risk review of what is
// stored, read by the skills' classifier, the masks included as findings,
// in file and span order. Masking is the pattern gate's own: a model
// classifier beside it names risks, it does not find credentials.
func (ss Skills) review(ctx context.Context, c *governance.SkillContent, dropped []governance.SkillDropped) ([]governance.SkillFinding, error) {
	masked := governance.MaskSkillCredentials(c, gate.Scan)
	out, err := governance.ReviewSkill(ctx, c, dropped, ss.gate)
	if err != nil {
		return nil, err
	}
	out = append(out, masked...)
	order := map[string]int{}
	for i, f := range c.AllFiles() {
		order[f.Path] = i + 1
	}
	slices.SortStableFunc(out, func(a, b governance.SkillFinding) int {
		return cmp.Or(cmp.Compare(order[a.File], order[b.File]), cmp.Compare(a.Start, b.Start))
	})
	return out, nil
}
