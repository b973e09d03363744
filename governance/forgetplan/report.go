package forgetplan

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strconv"

	"github.com/mnemo-console/mnemo/governance"
)

// Report starts the report of applying p: the ids of what goes, and into h
// (the content hash) every rule, version, candidate and episode text it
// removes. The store adds the events (HashEvent) as it redacts them.
func (p *Plan) Report(h hash.Hash) *governance.ForgetReport {
	r := EmptyReport(p)
	write := func(kind string, id any, text string) {
		fmt.Fprintf(h, "%s:%v:%d:%s\n", kind, id, len(text), text)
	}
	for _, rule := range p.Rules {
		write("rule", rule.ID, rule.Text)
		r.RuleIDs = append(r.RuleIDs, rule.ID)
	}
	for _, v := range p.Versions {
		write("version", fmt.Sprintf("%d.%d", v.RuleID, v.Version), v.Text+"\x00"+v.Reason)
	}
	for _, c := range p.Candidates {
		write("candidate", c.ID, c.Statement)
		r.CandidateIDs = append(r.CandidateIDs, c.ID)
	}
	for _, e := range p.Episodes {
		write("episode", e.Episode.ID, e.Episode.Summary)
		r.EpisodeIDs = append(r.EpisodeIDs, e.Episode.ID)
	}
	for _, s := range p.Skills {
		for _, v := range s.Versions {
			write("skill_version", fmt.Sprintf("%d.%d", s.SkillID, v.Version), v.Old)
		}
	}
	r.SkillsDeleted, r.SkillsRedacted = p.SkillIDs()
	r.Versions = len(p.Versions)
	return r
}

// Apply removes what plan p found (apply) and lets audit add its rows to
// the report. A plan that finds nothing changes nothing: forgetting what
// is already gone succeeds, with the empty report, and applied false.
func Apply(p *Plan, apply func() (*governance.ForgetReport, error), audit func(*governance.ForgetReport) error) (r *governance.ForgetReport, applied bool, err error) {
	if p.Empty() {
		return EmptyReport(p), false, nil
	}
	if r, err = apply(); err != nil {
		return nil, false, err
	}
	if err := audit(r); err != nil {
		return nil, false, err
	}
	return r, true, nil
}

// EmptyReport is the report of a forget that changes nothing.
func EmptyReport(p *Plan) *governance.ForgetReport {
	return &governance.ForgetReport{ProjectID: p.ProjectID, SubjectID: p.SubjectID, RuleIDs: []int64{}, CandidateIDs: []int64{},
		EpisodeIDs: []int64{}, AuditIDs: []int64{}}
}

// HashEvent adds one redacted event's text to the content hash.
func HashEvent(h hash.Hash, seq int64, text string) {
	fmt.Fprintf(h, "event:%d:%d:%s\n", seq, len(text), text)
}

// HashRows reads rows of (seq, text) into h (HashEvent): the events a
// forget removes or redacts, as a backend selects them.
func HashRows[R Row](h hash.Hash) func(R) error {
	return func(row R) error {
		return ScanLine(row, func(seq int64, text string) error {
			HashEvent(h, seq, text)
			return nil
		})
	}
}

// ContentHash is the report's content hash of the events h read.
func ContentHash(h hash.Hash) string {
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Suppressions calls fn with each suppression the forget writes: one per
// forgotten fingerprint and subject, everyone's ("") covering each one's.
func (p *Plan) Suppressions(fn func(projectID int64, fingerprint, subjectID string) error) error {
	for _, projectID := range slices.Sorted(maps.Keys(p.Forgotten)) {
		fps := p.Forgotten[projectID]
		for _, fp := range slices.Sorted(maps.Keys(fps)) {
			subjects := fps[fp]
			if subjects[""] {
				subjects = map[string]bool{"": true}
			}
			for _, subject := range slices.Sorted(maps.Keys(subjects)) {
				if err := fn(projectID, fp, subject); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Projects are the projects the forget touches, ascending.
func (p *Plan) Projects() []int64 {
	projects := map[int64]bool{}
	if p.ProjectID != 0 {
		projects[p.ProjectID] = true
	}
	for _, rule := range p.Rules {
		projects[rule.ProjectID] = true
	}
	for _, c := range p.Candidates {
		projects[c.ProjectID] = true
	}
	return SortedIDs(projects)
}

// QuotedTexts are the strings a stored eval result may quote a forgotten
// rule by: every wording of every rule, as written and as escaped in JSON.
func (p *Plan) QuotedTexts() []string {
	var texts []string
	add := func(t string) {
		if t == "" || t == governance.RedactedText {
			return
		}
		escaped, _ := json.Marshal(t)
		texts = append(texts, t, string(escaped[1:len(escaped)-1]))
	}
	for _, rule := range p.Rules {
		add(rule.Text)
	}
	for _, v := range p.Versions {
		add(v.Text)
	}
	slices.Sort(texts)
	return slices.Compact(texts)
}

// evalQuotes are the columns where a stored eval run may quote a rule (an
// eval checks recalled rules): its results' details and reasons, and its
// summary.
var evalQuotes = []struct{ table, column string }{
	{"eval_results", "detail"}, {"eval_results", "reason"}, {"eval_runs", "summary"},
}

// EvalQuotes calls fn with each text a stored eval run may quote a
// forgotten rule by (QuotedTexts) and each column it may stand in: fn
// replaces the text there with governance.RedactedText.
func (p *Plan) EvalQuotes(fn func(table, column, text string) error) error {
	for _, t := range p.QuotedTexts() {
		for _, c := range evalQuotes {
			if err := fn(c.table, c.column, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// RedactsEvents reports whether the forget removes what people said: a
// subject's or a project's events, or a rule's source events. Eval runs
// that read its projects live may quote those words (the stores'
// withholdEvalReads).
func (p *Plan) RedactsEvents() bool { return p.Scope != nil || len(p.Seqs) > 0 || len(p.copies) > 0 }

// WithheldReason replaces the reason of an eval result that did not pass
// when a forget withholds the run's details.
const WithheldReason = "The details were withheld: a forget removed data this run read."

// WithholdSummary is an eval run's stored summary without the rule texts
// of its compliance table (metrics.compliance), and whether it had one; a
// summary that is not such JSON is returned as it is.
func WithholdSummary(summary string) (string, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(summary), &top) != nil {
		return summary, false
	}
	var metrics map[string]json.RawMessage
	if json.Unmarshal(top["metrics"], &metrics) != nil {
		return summary, false
	}
	if _, ok := metrics["compliance"]; !ok {
		return summary, false
	}
	delete(metrics, "compliance")
	top["metrics"], _ = json.Marshal(metrics)
	out, _ := json.Marshal(top)
	return string(out), true
}

// Details is a forget's audit row details: ids, counts and the content
// hash. Events are counted, not listed (a subject may have very many).
func Details(p *Plan, r *governance.ForgetReport) string {
	d := map[string]any{
		"rules":        nonNil(r.RuleIDs),
		"candidates":   nonNil(r.CandidateIDs),
		"episodes":     nonNil(r.EpisodeIDs),
		"versions":     r.Versions,
		"events":       r.Events,
		"suppressions": r.Suppressions,
		"content_hash": r.ContentHash,
	}
	if len(p.Seqs) > 0 && len(p.Seqs) <= 200 {
		d["event_seqs"] = p.Seqs
	}
	if len(p.SharedRuleIDs) > 0 {
		d["shared_rules"] = p.SharedRuleIDs
	}
	if len(r.SkillsDeleted) > 0 {
		d["skills_deleted"] = r.SkillsDeleted
	}
	if len(r.SkillsRedacted) > 0 {
		d["skills_redacted"] = r.SkillsRedacted
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// RuleOf returns the plan's rule with this id (only the id when absent).
func (p *Plan) RuleOf(id int64) *governance.Rule {
	for _, r := range p.Rules {
		if r.ID == id {
			return r
		}
	}
	return &governance.Rule{ID: id}
}

func nonNil(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// Preview is the preview of a plan, for the Preview* store methods.
func Preview(p *Plan, err error) (*governance.ForgetPreview, error) {
	if err != nil {
		return nil, err
	}
	return &p.ForgetPreview, nil
}

// RuleAudits are the audit rows of a rule forget: one per rule asked for.
func (p *Plan) RuleAudits(actor string, ids []int64, r *governance.ForgetReport) []*governance.AuditEntry {
	out := make([]*governance.AuditEntry, len(ids))
	for i, id := range ids {
		out[i] = &governance.AuditEntry{Actor: actor, Action: "rule.forget", ObjectType: "rule", ObjectID: strconv.FormatInt(id, 10),
			ProjectID: p.RuleOf(id).ProjectID, Details: Details(p, r)}
	}
	return out
}

// CandidateAudit is the audit row of a candidate forget.
func (p *Plan) CandidateAudit(actor string, id int64, r *governance.ForgetReport) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "candidate.forget", ObjectType: "candidate", ObjectID: strconv.FormatInt(id, 10),
		ProjectID: p.ProjectID, Details: Details(p, r)}
}

// SubjectAudit is the audit row of a subject forget, naming the subject
// by its keyed reference (SubjectRef).
func (p *Plan) SubjectAudit(actor, ref string, r *governance.ForgetReport) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: actor, Action: "subject.forget", ObjectType: "subject", ObjectID: ref,
		ProjectID: p.ProjectID, Details: Details(p, r)}
}

// Audit appends a forget's audit rows with appendAudit and lists them in
// its report.
func Audit(r *governance.ForgetReport, entries []*governance.AuditEntry, appendAudit func(*governance.AuditEntry) error) error {
	for _, e := range entries {
		if err := appendAudit(e); err != nil {
			return err
		}
		r.AuditIDs = append(r.AuditIDs, e.ID)
	}
	return nil
}
