package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-console/mnemo/governance"
)

// Forget (docs/ARCHITECTURE.md): the rule, its versions and its candidates lose their
// content and their evidence links go; episode summaries that quote it are
// rewritten; optionally the source events are redacted (the FTS index, with
// secure-delete, drops their tokens); a suppression fingerprint stops the
// heartbeat from learning it again; the audit row holds ids and a content
// hash, never the content. SQLite's secure_delete overwrites freed bytes,
// and a WAL checkpoint afterwards leaves no copy in the log.

// forgetPlan is what one forget changes; built by the same code for the
// preview (outside a transaction) and for the forget itself (inside it).
type forgetPlan struct {
	governance.ForgetPreview
	ruleIDs  map[int64]bool
	candIDs  map[int64]bool
	fps      map[int64]map[string]map[string]bool // project → fingerprint → subjects it is forgotten for ("" all)
	ruleSubj map[int64]string                     // the subject of each rule in the plan
	texts    []string                             // forgotten statements, to find quotes of them
	textSet  map[string]bool
	eventSQL string // subject forget: events are selected by this condition
	eventArg []any
	seqs     []int64 // rule forget: events to redact
	// bulk: the forget rewrites so much of the full-text indexes that one
	// rewrite of each index is cheaper than removing each row's terms.
	bulk bool
}

func newForgetPlan() *forgetPlan {
	return &forgetPlan{ruleIDs: map[int64]bool{}, candIDs: map[int64]bool{}, fps: map[int64]map[string]map[string]bool{},
		ruleSubj: map[int64]string{}, textSet: map[string]bool{}}
}

// addFingerprint records a forgotten statement and the subject it is
// forgotten for: a subject forget's subject whatever the statement, else
// the subject of the rule it belongs to ("" for a project-wide rule).
func (p *forgetPlan) addFingerprint(projectID int64, subject, text string) {
	if text == "" || text == governance.RedactedText {
		return
	}
	if p.SubjectID != "" {
		subject = p.SubjectID
	}
	if p.fps[projectID] == nil {
		p.fps[projectID] = map[string]map[string]bool{}
	}
	fp := governance.Fingerprint(text)
	if p.fps[projectID][fp] == nil {
		p.fps[projectID][fp] = map[string]bool{}
	}
	p.fps[projectID][fp][subject] = true
	if !p.textSet[text] {
		p.textSet[text] = true
		p.texts = append(p.texts, text)
	}
}

func (p *forgetPlan) addRule(r *governance.Rule) bool {
	if p.ruleIDs[r.ID] || r.Status == governance.RuleForgotten {
		return false
	}
	p.ruleIDs[r.ID] = true
	p.ruleSubj[r.ID] = r.SubjectID
	p.Rules = append(p.Rules, r)
	p.addFingerprint(r.ProjectID, r.SubjectID, r.Text)
	return true
}

func (p *forgetPlan) addCandidate(c *governance.Candidate) bool {
	if p.candIDs[c.ID] {
		return false
	}
	p.candIDs[c.ID] = true
	p.Candidates = append(p.Candidates, c)
	subject := c.SubjectID
	if s, ok := p.ruleSubj[c.RuleID]; ok {
		subject = s
	}
	p.addFingerprint(c.ProjectID, subject, c.Statement)
	return true
}

func findRulesIn(ctx context.Context, q querier, where string, args ...any) ([]*governance.Rule, error) {
	var out []*governance.Rule
	err := queryAll(ctx, q, `SELECT `+ruleColumns+` FROM rules r WHERE `+where+` ORDER BY r.id`, args, func(r scanner) error {
		rule, err := scanRule(r)
		if err == nil {
			out = append(out, rule)
		}
		return err
	})
	return out, err
}

func findCandidatesIn(ctx context.Context, q querier, where string, args ...any) ([]*governance.Candidate, error) {
	var out []*governance.Candidate
	err := queryAll(ctx, q, `SELECT `+candidateColumns+` FROM candidates c WHERE `+where+` ORDER BY c.id`, args, func(r scanner) error {
		c, err := scanCandidate(r)
		if err == nil {
			out = append(out, c)
		}
		return err
	})
	return out, err
}

// planRules collects what forgetting these rules removes: the rules, any
// other live rule or candidate of the same scope with the same statement,
// their candidates (and unattached members of the same merge groups),
// versions, the episodes quoting them and, withEvents, the evidence events.
func planRules(ctx context.Context, q querier, ids []int64, withEvents bool) (*forgetPlan, error) {
	p := newForgetPlan()
	p.WithEvents = withEvents
	for _, id := range ids {
		r, err := findRuleIn(ctx, q, id)
		if err != nil {
			return nil, err
		}
		if r.Status == governance.RuleForgotten {
			return nil, governance.Errorf(governance.ECONFLICT, "Rule %d is already forgotten.", id)
		}
		p.addRule(r)
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	return p, p.finish(ctx, q)
}

// expand follows rules to their versions and candidates, and statements to
// the rules and candidates of the same scope that say the same.
func (p *forgetPlan) expand(ctx context.Context, q querier) error {
	versioned := map[int64]bool{}
	for round := 0; round < 3; round++ {
		grew := false
		// Versions of every rule (earlier wordings are forgotten too).
		var fresh []int64
		for _, r := range p.Rules {
			if !versioned[r.ID] {
				versioned[r.ID] = true
				fresh = append(fresh, r.ID)
			}
		}
		vs, err := findVersionsOf(ctx, q, fresh)
		if err != nil {
			return err
		}
		byID := make(map[int64]*governance.Rule, len(p.Rules))
		for _, r := range p.Rules {
			byID[r.ID] = r
		}
		for _, v := range vs {
			r := byID[v.RuleID]
			p.addFingerprint(r.ProjectID, r.SubjectID, v.Text)
		}
		// Candidates of the rules.
		cands, err := findCandidatesIn(ctx, q, `c.rule_id IN (SELECT value FROM json_each(?))`, listArg(sortedIDs(p.ruleIDs)))
		if err != nil {
			return err
		}
		for _, c := range cands {
			grew = p.addCandidate(c) || grew
		}
		// Same statement, same scope: other rules, and candidates not
		// attached to a rule that stays (including merge-group members).
		type scopeKey struct {
			project int64
			subject string
		}
		scopes := map[scopeKey]bool{}
		for _, r := range p.Rules {
			subject := r.SubjectID
			if p.SubjectID != "" {
				subject = p.SubjectID
			}
			scopes[scopeKey{r.ProjectID, subject}] = true
		}
		for sk := range scopes {
			cond, args := `r.project_id = ? AND r.status <> 'forgotten' AND r.fingerprint IN (SELECT value FROM json_each(?))`,
				[]any{sk.project, listArg(p.fingerprintsOf(sk.project))}
			if sk.subject != "" {
				cond, args = cond+` AND r.subject_id = ?`, append(args, sk.subject)
			}
			more, err := findRulesIn(ctx, q, cond, args...)
			if err != nil {
				return err
			}
			for _, m := range more {
				grew = p.addRule(m) || grew
			}
		}
		groups := map[int64]bool{}
		for _, c := range p.Candidates {
			groups[c.GroupID] = true
		}
		for projectID := range p.fps {
			subjects := p.subjectsOf(projectID)
			cond := `c.project_id = ? AND c.fingerprint IN (SELECT value FROM json_each(?))`
			args := []any{projectID, listArg(p.fingerprintsOf(projectID))}
			if !subjects[""] {
				var list []string
				for s := range subjects {
					list = append(list, s)
				}
				cond += ` AND c.subject_id IN (SELECT value FROM json_each(?))`
				args = append(args, listArg(list))
			}
			cands, err := findCandidatesIn(ctx, q, cond+` AND (c.rule_id IS NULL OR c.rule_id IN (SELECT id FROM rules WHERE status IN ('rejected', 'archived', 'forgotten')))`, args...)
			if err != nil {
				return err
			}
			for _, c := range cands {
				grew = p.addCandidate(c) || grew
			}
		}
		members, err := findCandidatesIn(ctx, q, `c.group_id IN (SELECT value FROM json_each(?)) AND c.rule_id IS NULL`, listArg(sortedIDs(groups)))
		if err != nil {
			return err
		}
		for _, c := range members {
			if p.scopeAllows(c) {
				grew = p.addCandidate(c) || grew
			}
		}
		if !grew {
			break
		}
	}
	return nil
}

// findVersionsOf returns the versions of the given rules.
func findVersionsOf(ctx context.Context, q querier, ruleIDs []int64) ([]*governance.RuleVersion, error) {
	var out []*governance.RuleVersion
	if len(ruleIDs) == 0 {
		return out, nil
	}
	err := queryAll(ctx, q, `SELECT rule_id, version, text, kind, actor, reason, created_at FROM rule_versions
		WHERE rule_id IN (SELECT value FROM json_each(?)) ORDER BY rule_id, version`,
		[]any{listArg(ruleIDs)}, func(r scanner) error {
			var (
				v       governance.RuleVersion
				created string
			)
			if err := r.Scan(&v.RuleID, &v.Version, &v.Text, &v.Kind, &v.Actor, &v.Reason, &created); err != nil {
				return err
			}
			v.CreatedAt = parseTime(created)
			out = append(out, &v)
			return nil
		})
	return out, err
}

// scopeAllows keeps a merge-group sweep inside the subjects being forgotten
// (a project-wide rule allows every subject of its project).
func (p *forgetPlan) scopeAllows(c *governance.Candidate) bool {
	subjects := p.subjectsOf(c.ProjectID)
	return subjects[""] || subjects[c.SubjectID]
}

func (p *forgetPlan) fingerprintsOf(projectID int64) []string {
	out := make([]string, 0, len(p.fps[projectID]))
	for fp := range p.fps[projectID] {
		out = append(out, fp)
	}
	slices.Sort(out)
	return out
}

// subjectsOf are the scopes of the rules being forgotten in a project ("" =
// project-wide); for a subject forget, that subject.
func (p *forgetPlan) subjectsOf(projectID int64) map[string]bool {
	if p.SubjectID != "" {
		return map[string]bool{p.SubjectID: true}
	}
	out := map[string]bool{}
	for _, r := range p.Rules {
		if r.ProjectID == projectID {
			out[r.SubjectID] = true
		}
	}
	for _, c := range p.Candidates {
		if c.ProjectID == projectID && !out[""] {
			out[c.SubjectID] = true
		}
	}
	return out
}

// finish gathers versions, events and episodes once rules and candidates are known.
func (p *forgetPlan) finish(ctx context.Context, q querier) error {
	slices.SortFunc(p.Rules, func(a, b *governance.Rule) int { return int(a.ID - b.ID) })
	slices.SortFunc(p.Candidates, func(a, b *governance.Candidate) int { return int(a.ID - b.ID) })
	vs, err := findVersionsOf(ctx, q, sortedIDs(p.ruleIDs))
	if err != nil {
		return err
	}
	p.Versions = vs
	projects := map[int64]bool{}
	for _, r := range p.Rules {
		projects[r.ProjectID] = true
	}
	for _, c := range p.Candidates {
		projects[c.ProjectID] = true
	}
	if len(projects) == 1 && p.ProjectID == 0 {
		for id := range projects {
			p.ProjectID = id
		}
	}
	for id := range projects {
		p.Fingerprints += len(p.fps[id])
	}

	// Events: a subject forget redacts all of the subject's; a rule forget,
	// when asked, the events its candidates rest on.
	var quotes []string
	quotes = append(quotes, p.texts...)
	if p.eventSQL == "" && p.WithEvents {
		seqs := map[int64]bool{}
		for _, c := range p.Candidates {
			for _, s := range c.EvidenceSeqs {
				seqs[s] = true
			}
		}
		p.seqs = sortedIDs(seqs)
		p.EventCount = len(p.seqs)
		if err := queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE e.seq IN (SELECT value FROM json_each(?)) AND e.redacted = 0 ORDER BY e.seq`,
			[]any{listArg(p.seqs)}, func(r scanner) error {
				e, err := scanEvent(r)
				if err != nil {
					return err
				}
				quotes = append(quotes, e.Text)
				if len(p.Events) < governance.PreviewEventLimit {
					p.Events = append(p.Events, e)
				}
				return nil
			}); err != nil {
			return err
		}
	}
	if p.eventSQL != "" {
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM events e WHERE `+p.eventSQL, p.eventArg...).Scan(&p.EventCount); err != nil {
			return fmt.Errorf("store: count events: %w", err)
		}
		if err := queryAll(ctx, q, `SELECT `+eventColumns+` FROM events e WHERE `+p.eventSQL+` ORDER BY e.seq`+pageSQL,
			pageArgs(p.eventArg, governance.PreviewEventLimit, 0), func(r scanner) error {
				e, err := scanEvent(r)
				if err == nil {
					p.Events = append(p.Events, e)
				}
				return err
			}); err != nil {
			return err
		}
	}

	// Episodes: those of the subject go blank; those of the candidates'
	// sessions, or quoting a forgotten statement, lose the quoting sentences.
	seen := map[int64]bool{}
	addEpisode := func(e *governance.Episode, rewrite func(string) string) {
		if seen[e.ID] {
			return
		}
		seen[e.ID] = true
		if summary := rewrite(e.Summary); summary != e.Summary {
			p.Episodes = append(p.Episodes, &governance.EpisodeRewrite{Episode: e, Summary: summary})
		}
	}
	blank := func(string) string { return governance.RedactedText }
	dropQuotes := func(summary string) string { return rewriteSummary(summary, quotes) }
	if p.SubjectID != "" {
		// Everything about a subject: its episodes go blank, and every
		// candidate of it is in one of its own sessions.
		eps, err := findEpisodesIn(ctx, q, `project_id = ? AND subject_id = ?`, p.ProjectID, p.SubjectID)
		if err != nil {
			return err
		}
		for _, e := range eps {
			addEpisode(e, blank)
		}
		slices.SortFunc(p.Episodes, func(a, b *governance.EpisodeRewrite) int { return int(a.Episode.ID - b.Episode.ID) })
		return nil
	}
	sessions := map[int64]map[string]bool{}
	for _, c := range p.Candidates {
		if sessions[c.ProjectID] == nil {
			sessions[c.ProjectID] = map[string]bool{}
		}
		sessions[c.ProjectID][c.SessionID] = true
	}
	for projectID, ss := range sessions {
		ids := make([]string, 0, len(ss))
		for s := range ss {
			ids = append(ids, s)
		}
		slices.Sort(ids)
		eps, err := findEpisodesIn(ctx, q, `project_id = ? AND session_id IN (SELECT value FROM json_each(?))`, projectID, listArg(ids))
		if err != nil {
			return err
		}
		for _, e := range eps {
			addEpisode(e, dropQuotes)
		}
	}
	for projectID := range projects {
		for _, t := range p.texts {
			eps, err := findEpisodesIn(ctx, q, `project_id = ? AND instr(summary, ?) > 0`, projectID, t)
			if err != nil {
				return err
			}
			for _, e := range eps {
				addEpisode(e, dropQuotes)
			}
		}
	}
	slices.SortFunc(p.Episodes, func(a, b *governance.EpisodeRewrite) int { return int(a.Episode.ID - b.Episode.ID) })
	return nil
}

func findEpisodesIn(ctx context.Context, q querier, where string, args ...any) ([]*governance.Episode, error) {
	var out []*governance.Episode
	err := queryAll(ctx, q, `
		SELECT id, project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at
		FROM episodes WHERE `+where+` ORDER BY id`, args, func(r scanner) error {
		var (
			e                governance.Episode
			created, updated string
		)
		if err := r.Scan(&e.ID, &e.ProjectID, &e.SessionID, &e.SubjectID, &e.Summary, &e.FirstSeq, &e.LastSeq, &e.EventCount,
			&e.Extractor, &created, &updated); err != nil {
			return err
		}
		e.CreatedAt, e.UpdatedAt = parseTime(created), parseTime(updated)
		out = append(out, &e)
		return nil
	})
	return out, err
}

// planSubject collects "everything about" a subject of a project: every rule
// scoped to it, every project-wide rule whose evidence comes only from its
// events, every candidate and event of it, its episodes and recall traces.
func planSubject(ctx context.Context, q querier, projectID int64, subjectID string) (*forgetPlan, error) {
	if strings.TrimSpace(subjectID) == "" {
		return nil, governance.Errorf(governance.EINVALID, "Name the subject to forget.")
	}
	p := newForgetPlan()
	p.ProjectID, p.SubjectID, p.WithEvents = projectID, subjectID, true
	p.eventSQL, p.eventArg = `e.project_id = ? AND e.subject_id = ? AND e.redacted = 0`, []any{projectID, subjectID}
	own, err := findRulesIn(ctx, q, `r.project_id = ? AND r.subject_id = ? AND r.status <> 'forgotten'`, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, r := range own {
		p.addRule(r)
	}
	shared, err := findRulesIn(ctx, q, `r.project_id = ? AND r.subject_id = '' AND r.status <> 'forgotten'
		AND EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id = ?)
		AND NOT EXISTS (SELECT 1 FROM candidates c JOIN evidence v ON v.candidate_id = c.id JOIN events e ON e.seq = v.event_seq
			WHERE c.rule_id = r.id AND e.subject_id <> ?)`, projectID, subjectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, r := range shared {
		if p.addRule(r) {
			p.SharedRuleIDs = append(p.SharedRuleIDs, r.ID)
		}
	}
	cands, err := findCandidatesIn(ctx, q, `c.project_id = ? AND c.subject_id = ?`, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		p.addCandidate(c)
	}
	if err := p.expand(ctx, q); err != nil {
		return nil, err
	}
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM recall_traces WHERE project_id = ? AND subject_id = ?`,
		projectID, subjectID).Scan(&p.RecallTraces); err != nil {
		return nil, fmt.Errorf("store: count recall traces: %w", err)
	}
	if err := p.finish(ctx, q); err != nil {
		return nil, err
	}
	var all int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&all); err != nil {
		return nil, fmt.Errorf("store: count events: %w", err)
	}
	p.bulk = bulkForget(p.EventCount+len(p.Episodes), all)
	return p, nil
}

// bulkForget decides between removing each forgotten row's terms from the
// full-text indexes (secure-delete: about a millisecond a row) and
// rewriting each index once (optimize: a few microseconds per indexed row
// of the whole database): the rewrite wins for large forgets.
func bulkForget(rows, allRows int) bool {
	return rows >= 1000 && rows*200 > allRows
}

// ftsIndex is an FTS5 table that removes deleted terms at once.
type ftsIndex struct {
	name string
	// contentless indexes keep no text and are rewritten with 'optimize',
	// which drops their tombstoned rows; the others are rebuilt from their
	// content ('rebuild'), because 'optimize' keeps delete markers of an
	// external-content index.
	contentless bool
}

var contentlessFTS = regexp.MustCompile(`(?i)\bcontent\s*=\s*''`)

// secureIndexes lists the FTS5 tables that have secure-delete on.
func secureIndexes(ctx context.Context, tx *Tx) ([]ftsIndex, error) {
	var all []ftsIndex
	if err := queryAll(ctx, tx, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5(%' ORDER BY name`,
		nil, func(r scanner) error {
			var n, sql string
			err := r.Scan(&n, &sql)
			all = append(all, ftsIndex{name: n, contentless: contentlessFTS.MatchString(sql)})
			return err
		}); err != nil {
		return nil, err
	}
	var out []ftsIndex
	for _, ix := range all {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT v FROM "`+ix.name+`_config" WHERE k = 'secure-delete'`).Scan(&v)
		if isNoRows(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: index %s: %w", ix.name, err)
		}
		if v == "1" {
			out = append(out, ix)
		}
	}
	return out, nil
}

// setSecureDelete turns secure-delete of the given FTS5 tables on or off.
func setSecureDelete(ctx context.Context, tx *Tx, indexes []ftsIndex, on bool) error {
	v := 0
	if on {
		v = 1
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO "`+ix.name+`" ("`+ix.name+`", rank) VALUES ('secure-delete', ?)`, v); err != nil {
			return fmt.Errorf("store: secure-delete of %s: %w", ix.name, err)
		}
	}
	return nil
}

// rewriteIndexes rewrites each index so that no deleted term is left in it.
func rewriteIndexes(ctx context.Context, tx *Tx, indexes []ftsIndex) error {
	for _, ix := range indexes {
		cmd := "rebuild"
		if ix.contentless {
			cmd = "optimize"
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO "`+ix.name+`" ("`+ix.name+`") VALUES ('`+cmd+`')`); err != nil {
			return fmt.Errorf("store: %s index %s: %w", cmd, ix.name, err)
		}
	}
	return nil
}

// planCandidate collects a candidate that supports no rule together with
// the unattached members of its merge group of the same subject; a
// candidate that supports a rule goes alone (the rule keeps its other evidence).
func planCandidate(ctx context.Context, q querier, id int64, withEvents bool) (*forgetPlan, error) {
	cands, err := findCandidatesIn(ctx, q, `c.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	c := cands[0]
	p := newForgetPlan()
	p.WithEvents = withEvents
	p.addCandidate(c)
	if c.RuleID == 0 {
		group, err := findCandidatesIn(ctx, q, `c.group_id = ? AND c.rule_id IS NULL AND c.project_id = ? AND c.subject_id = ?`,
			c.GroupID, c.ProjectID, c.SubjectID)
		if err != nil {
			return nil, err
		}
		for _, g := range group {
			p.addCandidate(g)
		}
	}
	return p, p.finish(ctx, q)
}

// PreviewForgetRules returns exactly what ForgetRules would remove.
func (s *Store) PreviewForgetRules(ctx context.Context, ids []int64, withEvents bool) (*governance.ForgetPreview, error) {
	p, err := planRules(ctx, s.db, ids, withEvents)
	if err != nil {
		return nil, err
	}
	return &p.ForgetPreview, nil
}

// PreviewForgetRule returns exactly what ForgetRule would remove.
func (s *Store) PreviewForgetRule(ctx context.Context, ruleID int64, withEvents bool) (*governance.ForgetPreview, error) {
	return s.PreviewForgetRules(ctx, []int64{ruleID}, withEvents)
}

// PreviewForgetSubject returns exactly what ForgetSubject would remove.
func (s *Store) PreviewForgetSubject(ctx context.Context, projectID int64, subjectID string) (*governance.ForgetPreview, error) {
	p, err := planSubject(ctx, s.db, projectID, subjectID)
	if err != nil {
		return nil, err
	}
	return &p.ForgetPreview, nil
}

// PreviewForgetCandidate returns exactly what ForgetCandidate would remove.
func (s *Store) PreviewForgetCandidate(ctx context.Context, candidateID int64, withEvents bool) (*governance.ForgetPreview, error) {
	p, err := planCandidate(ctx, s.db, candidateID, withEvents)
	if err != nil {
		return nil, err
	}
	return &p.ForgetPreview, nil
}

// ForgetRule forgets one rule completely; withEvents also redacts the
// conversation lines it came from.
func (s *Store) ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.ForgetRules(ctx, actor, []int64{ruleID}, withEvents)
}

// ForgetRules forgets several rules in one transaction (one audit row each).
func (s *Store) ForgetRules(ctx context.Context, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error) {
	if len(ids) == 0 {
		return nil, governance.Errorf(governance.EINVALID, "Select at least one rule to forget.")
	}
	return s.forget(ctx, func(tx *Tx) (*forgetPlan, error) {
		return planRules(ctx, tx, ids, withEvents)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		for _, id := range ids {
			if err := auditForget(ctx, tx, r, &governance.AuditEntry{
				Actor: actor, Action: "rule.forget", ObjectType: "rule", ObjectID: strconv.FormatInt(id, 10),
				ProjectID: findIn(p.Rules, id).ProjectID, Details: forgetDetails(p, r),
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// ForgetSubject forgets everything about one subject of a project.
func (s *Store) ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error) {
	return s.forget(ctx, func(tx *Tx) (*forgetPlan, error) {
		return planSubject(ctx, tx, projectID, subjectID)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recall_traces WHERE project_id = ? AND subject_id = ?`, projectID, subjectID); err != nil {
			return fmt.Errorf("store: delete recall traces: %w", err)
		}
		r.RecallTraces = p.RecallTraces
		return auditForget(ctx, tx, r, &governance.AuditEntry{
			Actor: actor, Action: "subject.forget", ObjectType: "subject", ObjectID: subjectID,
			ProjectID: projectID, Details: forgetDetails(p, r),
		})
	})
}

// ForgetCandidate forgets a candidate (with its unattached merge group).
func (s *Store) ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error) {
	return s.forget(ctx, func(tx *Tx) (*forgetPlan, error) {
		return planCandidate(ctx, tx, candidateID, withEvents)
	}, func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error {
		return auditForget(ctx, tx, r, &governance.AuditEntry{
			Actor: actor, Action: "candidate.forget", ObjectType: "candidate", ObjectID: strconv.FormatInt(candidateID, 10),
			ProjectID: p.ProjectID, Details: forgetDetails(p, r),
		})
	})
}

func findIn(rules []*governance.Rule, id int64) *governance.Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return &governance.Rule{ID: id}
}

func auditForget(ctx context.Context, tx *Tx, r *governance.ForgetReport, e *governance.AuditEntry) error {
	if err := appendAudit(ctx, tx, e); err != nil {
		return err
	}
	r.AuditIDs = append(r.AuditIDs, e.ID)
	return nil
}

// forgetDetails is the audit row's details: ids, counts and the content
// hash. Events are counted, not listed (a subject may have very many).
func forgetDetails(p *forgetPlan, r *governance.ForgetReport) string {
	d := map[string]any{
		"rules":        nonNil(r.RuleIDs),
		"candidates":   nonNil(r.CandidateIDs),
		"episodes":     nonNil(r.EpisodeIDs),
		"versions":     r.Versions,
		"events":       r.Events,
		"suppressions": r.Suppressions,
		"content_hash": r.ContentHash,
	}
	if len(p.seqs) > 0 && len(p.seqs) <= 200 {
		d["event_seqs"] = p.seqs
	}
	if len(p.SharedRuleIDs) > 0 {
		d["shared_rules"] = p.SharedRuleIDs
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// forget plans inside one transaction, removes the content, lets audit add
// its rows, commits, and checkpoints the WAL so the log keeps no copy.
func (s *Store) forget(ctx context.Context, plan func(tx *Tx) (*forgetPlan, error),
	audit func(ctx context.Context, tx *Tx, p *forgetPlan, r *governance.ForgetReport) error) (*governance.ForgetReport, error) {
	tx, err := s.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := plan(tx)
	if err != nil {
		return nil, err
	}
	if p.Empty() {
		// Forgetting what is already gone succeeds and changes nothing.
		return &governance.ForgetReport{ProjectID: p.ProjectID, SubjectID: p.SubjectID, RuleIDs: []int64{}, CandidateIDs: []int64{},
			EpisodeIDs: []int64{}, AuditIDs: []int64{}}, nil
	}
	r, err := applyForget(ctx, tx, p)
	if err != nil {
		return nil, err
	}
	if err := audit(ctx, tx, p, r); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store: commit forget: %w", err)
	}
	if err := s.checkpointAfterForget(ctx); err != nil {
		return r, err
	}
	return r, nil
}

// checkpointAfterForget truncates the WAL; a reader holding an old snapshot
// can make one attempt incomplete, so it retries briefly. Each attempt
// holds the writer slot so this process's writers do not refill the log.
func (s *Store) checkpointAfterForget(ctx context.Context) error {
	var busy, logFrames, done int
	for attempt := 0; attempt < 20; attempt++ {
		unlock, err := s.lockWriter(ctx)
		if err != nil {
			return err
		}
		err = s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
		unlock()
		if err != nil {
			return fmt.Errorf("store: checkpoint after forget: %w", err)
		}
		if busy == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
	return fmt.Errorf("store: checkpoint after forget: the log is still in use")
}

// applyForget removes the planned content and returns the report.
func applyForget(ctx context.Context, tx *Tx, p *forgetPlan) (*governance.ForgetReport, error) {
	now := formatTime(tx.now)
	h := sha256.New()
	r := &governance.ForgetReport{ProjectID: p.ProjectID, SubjectID: p.SubjectID, RuleIDs: []int64{}, CandidateIDs: []int64{},
		EpisodeIDs: []int64{}, AuditIDs: []int64{}}
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
	r.Versions = len(p.Versions)

	// A large forget marks deletions without looking each term up, then
	// rewrites every such index once (rebuild, or optimize when it keeps no
	// text): the rewrite drops the deleted terms and SQLite's secure_delete
	// zeroes the pages they were on.
	var bulkIndexes []ftsIndex
	if p.bulk {
		var err error
		if bulkIndexes, err = secureIndexes(ctx, tx); err != nil {
			return nil, err
		}
		if err := setSecureDelete(ctx, tx, bulkIndexes, false); err != nil {
			return nil, err
		}
	}

	// Rules keep their ids, scope and history of who did what, not their words.
	if _, err := tx.ExecContext(ctx, `
		UPDATE rules SET text = ?, status = 'forgotten', findings = '[]', checks = '[]', paused = 0, updated_at = ?
		WHERE id IN (SELECT value FROM json_each(?))`, governance.RedactedText, now, listArg(r.RuleIDs)); err != nil {
		return nil, fmt.Errorf("store: forget rules: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rule_versions SET text = ?, reason = '' WHERE rule_id IN (SELECT value FROM json_each(?))`,
		governance.RedactedText, listArg(r.RuleIDs)); err != nil {
		return nil, fmt.Errorf("store: forget rule versions: %w", err)
	}
	// Reasons people gave on these rules and candidates may quote them.
	if err := redactAuditReasons(ctx, tx, "rule", r.RuleIDs); err != nil {
		return nil, err
	}
	if err := redactAuditReasons(ctx, tx, "candidate", r.CandidateIDs); err != nil {
		return nil, err
	}
	// Candidates go, and their evidence links with them (ON DELETE CASCADE);
	// AUTOINCREMENT never hands their ids out again.
	if _, err := tx.ExecContext(ctx, `DELETE FROM candidates WHERE id IN (SELECT value FROM json_each(?))`, listArg(r.CandidateIDs)); err != nil {
		return nil, fmt.Errorf("store: forget candidates: %w", err)
	}
	if p.SubjectID != "" {
		// Every episode of the subject goes blank, in one statement.
		if _, err := tx.ExecContext(ctx, `UPDATE episodes SET summary = ?, updated_at = ? WHERE project_id = ? AND subject_id = ? AND summary <> ?`,
			governance.RedactedText, now, p.ProjectID, p.SubjectID, governance.RedactedText); err != nil {
			return nil, fmt.Errorf("store: blank episodes: %w", err)
		}
	} else {
		for _, e := range p.Episodes {
			if _, err := tx.ExecContext(ctx, `UPDATE episodes SET summary = ?, updated_at = ? WHERE id = ?`, e.Summary, now, e.Episode.ID); err != nil {
				return nil, fmt.Errorf("store: rewrite episode: %w", err)
			}
		}
	}
	// Events: hash their text first, then replace it; the FTS trigger
	// removes the old tokens (secure-delete).
	if p.eventSQL != "" {
		if err := hashEvents(ctx, tx, h, `SELECT e.seq, e.text FROM events e WHERE `+p.eventSQL+` ORDER BY e.seq`, p.eventArg); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE events SET text = ?, redacted = 1 WHERE seq IN (SELECT e.seq FROM events e WHERE `+p.eventSQL+`)`,
			append([]any{governance.RedactedText}, p.eventArg...)...)
		if err != nil {
			return nil, fmt.Errorf("store: redact events: %w", err)
		}
		n, _ := res.RowsAffected()
		r.Events = int(n)
	} else if len(p.seqs) > 0 {
		seqs := listArg(p.seqs)
		if err := hashEvents(ctx, tx, h, `SELECT e.seq, e.text FROM events e WHERE e.redacted = 0 AND e.seq IN (SELECT value FROM json_each(?)) ORDER BY e.seq`,
			[]any{seqs}); err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE events SET text = ?, redacted = 1 WHERE redacted = 0 AND seq IN (SELECT value FROM json_each(?))`,
			governance.RedactedText, seqs)
		if err != nil {
			return nil, fmt.Errorf("store: redact events: %w", err)
		}
		n, _ := res.RowsAffected()
		r.Events = int(n)
	}
	// Suppressions: fingerprints only, so the heartbeat never learns it again.
	for projectID, fps := range p.fps {
		for fp, subjects := range fps {
			if subjects[""] {
				subjects = map[string]bool{"": true} // everyone's covers each one's
			}
			for subject := range subjects {
				res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES (?, ?, ?, ?)`,
					projectID, fp, subject, now)
				if err != nil {
					return nil, fmt.Errorf("store: write suppression: %w", err)
				}
				n, _ := res.RowsAffected()
				r.Suppressions += int(n)
			}
		}
	}
	if err := rewriteIndexes(ctx, tx, bulkIndexes); err != nil {
		return nil, err
	}
	if err := setSecureDelete(ctx, tx, bulkIndexes, true); err != nil {
		return nil, err
	}
	// Stored eval results may quote a rule (an eval checks recalled rules);
	// replace the quotes of every wording of every forgotten rule.
	var evalRows int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM eval_results LIMIT 1)`).Scan(&evalRows); err != nil {
		return nil, fmt.Errorf("store: scrub eval results: %w", err)
	}
	if evalRows > 0 {
		quoted := map[string]bool{}
		for _, rule := range p.Rules {
			quoted[rule.Text] = true
		}
		for _, v := range p.Versions {
			quoted[v.Text] = true
		}
		for t := range quoted {
			if t == "" || t == governance.RedactedText {
				continue
			}
			// The detail is JSON: a text with quotes, <, > or & is stored escaped.
			escaped, _ := json.Marshal(t)
			for _, q := range slices.Compact([]string{t, string(escaped[1 : len(escaped)-1])}) {
				if _, err := tx.ExecContext(ctx, `UPDATE eval_results SET detail = replace(detail, ?, ?) WHERE instr(detail, ?) > 0`,
					q, governance.RedactedText, q); err != nil {
					return nil, fmt.Errorf("store: scrub eval results: %w", err)
				}
			}
		}
	}
	r.ContentHash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return r, nil
}

func hashEvents(ctx context.Context, tx *Tx, h hash.Hash, query string, args []any) error {
	return queryAll(ctx, tx, query, args, func(row scanner) error {
		var (
			seq  int64
			text string
		)
		if err := row.Scan(&seq, &text); err != nil {
			return err
		}
		fmt.Fprintf(h, "event:%d:%d:%s\n", seq, len(text), text)
		return nil
	})
}

// rewriteSummary drops the sentences of an episode summary that quote any
// of the forgotten texts; when nothing is left the summary is blanked.
func rewriteSummary(summary string, forgotten []string) string {
	if summary == "" || summary == governance.RedactedText {
		return summary
	}
	var (
		out     []string
		dropped bool
	)
	for _, s := range splitSummary(summary) {
		if quotesAny(s, forgotten) {
			if len(out) == 0 || out[len(out)-1] != governance.RedactedText {
				out = append(out, governance.RedactedText)
			}
			dropped = true
			continue
		}
		out = append(out, s)
	}
	if !dropped {
		return summary
	}
	kept := false
	for _, s := range out {
		kept = kept || s != governance.RedactedText
	}
	if !kept {
		return governance.RedactedText
	}
	return strings.TrimSpace(strings.Join(out, " "))
}

// splitSummary splits text after sentence ends (Chinese and English).
func splitSummary(text string) []string {
	var (
		out []string
		cur []rune
	)
	rs := []rune(text)
	for i, r := range rs {
		cur = append(cur, r)
		end := strings.ContainsRune("。！？；!?", r)
		if r == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
			end = true
		}
		if end {
			if s := strings.TrimSpace(string(cur)); s != "" {
				out = append(out, s)
			}
			cur = cur[:0]
		}
	}
	if s := strings.TrimSpace(string(cur)); s != "" {
		out = append(out, s)
	}
	return out
}

// quotesAny reports whether sentence shares a run of text with any forgotten
// text long enough to be a quote: 8 runes of Chinese (or the whole text if
// shorter), 24 of other scripts.
func quotesAny(sentence string, forgotten []string) bool {
	s := []rune(sentence)
	for _, f := range forgotten {
		fr := []rune(f)
		if len(fr) < 4 || f == governance.RedactedText {
			continue
		}
		need := 24
		for _, r := range fr {
			if unicode.Is(unicode.Han, r) {
				need = 8
				break
			}
		}
		need = min(need, len(fr))
		if longestCommonRun(s, fr) >= need {
			return true
		}
	}
	return false
}

// longestCommonRun is the length of the longest common substring, in runes.
func longestCommonRun(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	best := 0
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				best = max(best, cur[j])
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return best
}
