// Package outcome is the SQL-side part of outcomes both store backends
// share: the audit rows of reports, reviews opened or closed by the
// heartbeat and policy changes, how a forget edits the regression suites,
// the order of a rules list by outcome counts, the rules stamp, the group
// commit of reports and the readers of recall items. What deciding a
// review does to its rule is governance/lifecycle's (DecideReview).
package outcome

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// ReportAudit is the audit row of a stored report: the trace, the item and
// the verdict; the note stays out of the log.
func ReportAudit(actor string, r *governance.OutcomeReport) *governance.AuditEntry {
	d, _ := json.Marshal(map[string]any{"report": r.ID, "item": r.ItemID, "verdict": r.Verdict})
	return &governance.AuditEntry{Actor: actor, Action: "outcome.report", ObjectType: "recall_trace",
		ObjectID: strconv.FormatInt(r.TraceID, 10), ProjectID: r.ProjectID, Details: string(d)}
}

// ReviewOpenAudit is the audit row of a review the heartbeat opened or
// gave more evidence.
func ReviewOpenAudit(projectID int64, d governance.OutcomeReviewDraft, id int64) *governance.AuditEntry {
	action := "outcome.review_open"
	if d.ReviewID != 0 {
		action = "outcome.review_evidence"
	}
	b, _ := json.Marshal(map[string]any{"rule": d.RuleID, "replacement": d.ReplacementID, "reports": d.ReportIDs, "sessions": d.Sessions})
	return &governance.AuditEntry{Actor: "heartbeat", Action: action, ObjectType: "outcome_review",
		ObjectID: strconv.FormatInt(id, 10), ProjectID: projectID, Details: string(b)}
}

// CloseAudit is the audit row of an open review the heartbeat closed
// because its rule left use.
func CloseAudit(projectID, id int64) *governance.AuditEntry {
	return &governance.AuditEntry{Actor: "heartbeat", Action: "outcome.review_close", ObjectType: "outcome_review",
		ObjectID: strconv.FormatInt(id, 10), ProjectID: projectID, Reason: governance.ReviewClosedReason}
}

// PolicyAudit is the audit row of a project's outcome policy changed.
func PolicyAudit(actor string, p governance.OutcomePolicy) *governance.AuditEntry {
	d, _ := json.Marshal(map[string]any{"threshold": p.Threshold, "require_no_regression": p.RequireNoRegression})
	return &governance.AuditEntry{Actor: actor, Action: "project.outcome_policy", ObjectType: "project",
		ObjectID: strconv.FormatInt(p.ProjectID, 10), ProjectID: p.ProjectID, Details: string(d)}
}

// RegressionOrigin is the origin of the suites regression cases are added
// to (evals.OriginRegression).
const RegressionOrigin = "regression"

// DropSubjectCases removes from a regression suite's body the cases about
// subject: each case is one line holding its JSON object, whose
// "subject" field names it (evals writes them so). It returns the body
// and the tasks of the cases it removed.
func DropSubjectCases(body, subject string) (string, []string) {
	if subject == "" {
		return body, nil
	}
	key, _ := json.Marshal(subject)
	needle := `"subject":` + string(key) + `,`
	lines := strings.SplitAfter(body, "\n")
	kept := lines[:0]
	var tasks []string
	for _, l := range lines {
		obj, ok := strings.CutPrefix(strings.TrimSpace(l), "- ")
		if !ok || !strings.HasPrefix(obj, "{") || !strings.Contains(obj, needle) {
			kept = append(kept, l)
			continue
		}
		var c struct {
			Task string `json:"task"`
		}
		if json.Unmarshal([]byte(obj), &c) == nil && c.Task != "" {
			tasks = append(tasks, c.Task)
		}
	}
	if len(kept) == len(lines) {
		return body, nil
	}
	return strings.Join(kept, ""), tasks
}

// Variants are the forms a text takes where a forget must find it: as
// written, escaped once in JSON (a case line, a result's detail) and
// twice (a run summary's copy of the suite).
func Variants(text string) []string {
	if text == "" || text == governance.RedactedText {
		return nil
	}
	out := []string{text}
	cur := text
	for range 2 {
		b, _ := json.Marshal(cur)
		cur = string(b[1 : len(b)-1])
		if !slices.Contains(out, cur) {
			out = append(out, cur)
		}
	}
	return out
}

// RuleOrder is the ORDER BY of a rules list (table alias r): by id, or by
// the rules' outcome counts (rule_outcomes), most first.
func RuleOrder(sort governance.RuleSort) string {
	switch sort {
	case governance.RuleSortMisled:
		return `COALESCE((SELECT o.misled + o.conflicted FROM rule_outcomes o WHERE o.rule_id = r.id), 0) DESC, r.id`
	case governance.RuleSortHelped:
		return `COALESCE((SELECT o.helped FROM rule_outcomes o WHERE o.rule_id = r.id), 0) DESC, r.id`
	}
	return `r.id`
}

// InOrder puts rules (read by id) in the order of ids.
func InOrder(rules []*governance.Rule, ids []int64) []*governance.Rule {
	pos := make(map[int64]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	slices.SortStableFunc(rules, func(a, b *governance.Rule) int { return pos[a.ID] - pos[b.ID] })
	return rules
}

// Stamp hashes the rows of a project's rules (RulesStamp): id, status,
// version, paused, expiry, what it supersedes, last change.
type Stamp struct{ h hash.Hash }

// NewStamp starts a stamp.
func NewStamp() *Stamp { return &Stamp{h: sha256.New()} }

// Add reads one row through scan and adds it.
func (s *Stamp) Add(scan func(dest ...any) error) error {
	var (
		id, supersedes       int64
		status, expires, upd string
		version              int
		paused               bool
	)
	if err := scan(&id, &status, &version, &paused, &expires, &supersedes, &upd); err != nil {
		return err
	}
	fmt.Fprintf(s.h, "%d %s %d %t %s %d %s\n", id, status, version, paused, expires, supersedes, upd)
	return nil
}

func (s *Stamp) String() string { return hex.EncodeToString(s.h.Sum(nil)[:12]) }

// CountColumn is the rule_outcomes column counting verdict v.
func CountColumn(v governance.OutcomeVerdict) string {
	switch v {
	case governance.OutcomeHelped:
		return "helped"
	case governance.OutcomeNotUsed:
		return "not_used"
	case governance.OutcomeMisled:
		return "misled"
	}
	return "conflicted"
}

// ErrReported is the conflict of a second report on one item of a recall.
func ErrReported(r *governance.OutcomeReport) error {
	if r.ItemID == "" {
		return governance.Errorf(governance.ECONFLICT, "Recall %d already has a report on its whole package.", r.TraceID)
	}
	return governance.Errorf(governance.ECONFLICT, "%s of recall %d already has a report.", r.ItemID, r.TraceID)
}

// ItemQuery is one kind of recall item RecallItemsNow reads: the ids of
// that kind among those asked and how an id is written.
type ItemQuery struct {
	Kind governance.RecallKind
	IDs  []int64
	Name func(int64) string
}

// SplitItems sorts recall item ids by kind (rules, episodes, events);
// what is not an item id is left out.
func SplitItems(ids []string) []ItemQuery {
	out := []ItemQuery{{Kind: governance.RecallKindRule, Name: governance.RecallRuleID},
		{Kind: governance.RecallKindEpisode, Name: governance.RecallEpisodeID}, {Kind: governance.RecallKindEvent, Name: governance.RecallEventID}}
	for _, id := range ids {
		kind, n, ok := governance.ParseRecallID(id)
		for i := range out {
			if ok && out[i].Kind == kind {
				out[i].IDs = append(out[i].IDs, n)
			}
		}
	}
	return out
}

// ItemRow reads one row of a RecallItemsNow query — id, version, text —
// through scan into out, under q's names.
func ItemRow(q ItemQuery, scan func(dest ...any) error, out map[string]governance.ReceiptItem) error {
	var (
		n       int64
		version int
		text    string
	)
	if err := scan(&n, &version, &text); err != nil {
		return err
	}
	out[q.Name(n)] = governance.ReceiptItemOf(q.Name(n), version, text)
	return nil
}

// Counts collects rows of (rule id, helped, not used, misled, conflicted)
// into out.
func Counts(scan func(dest ...any) error, out map[int64]governance.OutcomeCounts) error {
	var (
		id int64
		c  governance.OutcomeCounts
	)
	if err := scan(&id, &c.Helped, &c.NotUsed, &c.Misled, &c.Conflicted); err != nil {
		return err
	}
	out[id] = c
	return nil
}
