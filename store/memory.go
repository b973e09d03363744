package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/searchquery"
)

const candidateColumns = `c.id, c.project_id, c.session_id, c.subject_id, c.type, c.statement, c.durable, c.extractor,
	c.status, c.status_reason, c.why_not_placed, c.group_id, COALESCE(c.rule_id, 0), c.fingerprint, c.findings, c.created_at, c.updated_at,
	(SELECT COALESCE(group_concat(event_seq), '') FROM evidence v WHERE v.candidate_id = c.id)`

func scanCandidate(r scanner) (*governance.Candidate, error) {
	var (
		c                          governance.Candidate
		findings, created, updated string
		seqs, notPlaced            string
	)
	if err := r.Scan(&c.ID, &c.ProjectID, &c.SessionID, &c.SubjectID, &c.Type, &c.Statement, &c.Durable, &c.Extractor,
		&c.Status, &c.StatusReason, &notPlaced, &c.GroupID, &c.RuleID, &c.Fingerprint, &findings, &created, &updated, &seqs); err != nil {
		return nil, fmt.Errorf("store: scan candidate: %w", err)
	}
	_ = json.Unmarshal([]byte(findings), &c.Findings)
	c.WhyNotPlaced = governance.ParseNotPlaced(notPlaced)
	c.CreatedAt, c.UpdatedAt = parseTime(created), parseTime(updated)
	c.EvidenceSeqs = parseSeqs(seqs)
	return &c, nil
}

// FindCandidates lists candidates with their evidence seqs, oldest first,
// and how many match. With a Limit it reads a page: ids in index order, a
// separate count (stopped at CountCap rows past the page when set), and the
// evidence of the page's candidates only, so a page of a tab holding tens
// of thousands of candidates reads a page of rows.
func (s *Store) FindCandidates(ctx context.Context, f governance.CandidateFilter) ([]*governance.Candidate, int, error) {
	where, args := candidateWhere(f)
	cond := strings.Join(where, " AND ")
	if f.Limit <= 0 {
		out, err := findCandidatesIn(ctx, s.read, cond, args...)
		return out[min(max(f.Offset, 0), len(out)):], len(out), err
	}
	var total int
	if err := s.read.QueryRowContext(ctx, countQuery("candidates c", cond, f.CountCap), countArgs(args, f.Offset, f.Limit, f.CountCap)...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count candidates: %w", err)
	}
	ids, err := s.pageIDs(ctx, `SELECT c.id FROM candidates c WHERE `+cond+` ORDER BY c.id`+pageSQL, pageArgs(args, f.Limit, f.Offset))
	if err != nil || len(ids) == 0 {
		return nil, total, err
	}
	cands, err := s.candidatesByIDs(ctx, "id", ids)
	return cands, total, err
}

// FindCandidateByID returns one candidate or ENOTFOUND.
func (s *Store) FindCandidateByID(ctx context.Context, id int64) (*governance.Candidate, error) {
	cands, err := findCandidatesIn(ctx, s.read, `c.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Candidate not found.")
	}
	return cands[0], nil
}

// candidateWhere turns a filter into WHERE conditions and their arguments.
func candidateWhere(f governance.CandidateFilter) ([]string, []any) {
	where, args := []string{"1 = 1"}, []any{}
	add := func(cond string, v ...any) { where = append(where, cond); args = append(args, v...) }
	if f.ProjectID != 0 {
		add("c.project_id = ?", f.ProjectID)
	}
	if f.ProjectIDs != nil {
		add("c.project_id IN (SELECT value FROM json_each(?))", listArg(f.ProjectIDs))
	}
	if f.SubjectID != nil {
		add("c.subject_id = ?", *f.SubjectID)
	}
	if f.SessionID != nil {
		add("c.session_id = ?", *f.SessionID)
	}
	if len(f.Statuses) > 0 {
		add("c.status IN (SELECT value FROM json_each(?))", listArg(f.Statuses))
	}
	if f.RuleID != 0 {
		add("c.rule_id = ?", f.RuleID)
	}
	if f.EventSeq != 0 {
		add("c.id IN (SELECT candidate_id FROM evidence WHERE event_seq = ?)", f.EventSeq)
	}
	return where, args
}

// FindEpisodes lists episodes, most recent session first.
func (s *Store) FindEpisodes(ctx context.Context, f governance.EpisodeFilter) ([]*governance.Episode, int, error) {
	where, args := []string{"1 = 1"}, []any{}
	if f.ProjectID != 0 {
		where, args = append(where, "project_id = ?"), append(args, f.ProjectID)
	}
	if f.ProjectIDs != nil {
		where, args = append(where, "project_id IN (SELECT value FROM json_each(?))"), append(args, listArg(f.ProjectIDs))
	}
	if f.SubjectID != nil {
		where, args = append(where, "subject_id = ?"), append(args, *f.SubjectID)
	}
	if f.SessionID != nil {
		where, args = append(where, "session_id = ?"), append(args, *f.SessionID)
	}
	var (
		out   []*governance.Episode
		total int
	)
	err := queryAll(ctx, s.read, `
		SELECT `+episodeColumns+`, COUNT(*) OVER ()
		FROM episodes e WHERE `+strings.Join(where, " AND ")+` ORDER BY last_seq DESC`+pageSQL, pageArgs(args, f.Limit, f.Offset), func(r scanner) error {
		e, err := scanEpisode(r, &total)
		if err == nil {
			out = append(out, e)
		}
		return err
	})
	return out, total, err
}

// episodeColumns are the columns scanEpisode reads (episodes aliased e).
const episodeColumns = `e.id, e.project_id, e.session_id, e.subject_id, e.summary, e.first_seq, e.last_seq, e.event_count,
	e.extractor, e.created_at, e.updated_at`

func scanEpisode(r scanner, extra ...any) (*governance.Episode, error) {
	var (
		e                governance.Episode
		created, updated string
	)
	dest := append([]any{&e.ID, &e.ProjectID, &e.SessionID, &e.SubjectID, &e.Summary, &e.FirstSeq, &e.LastSeq, &e.EventCount,
		&e.Extractor, &created, &updated}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, fmt.Errorf("store: scan episode: %w", err)
	}
	e.CreatedAt, e.UpdatedAt = parseTime(created), parseTime(updated)
	return &e, nil
}

const ruleColumns = `r.id, r.project_id, r.subject_id, r.kind, r.text, r.promotion_reason, r.status, r.version, r.trust,
	r.expires_at, r.paused, r.last_used_at, r.use_count, COALESCE(r.supersedes, 0), COALESCE(r.superseded_by, 0),
	r.findings, r.fingerprint, r.created_at, r.updated_at`

func scanRule(r scanner, extra ...any) (*governance.Rule, error) {
	var (
		rule                       governance.Rule
		expires, lastUsed          NullTime
		findings, created, updated string
	)
	dest := append([]any{&rule.ID, &rule.ProjectID, &rule.SubjectID, &rule.Kind, &rule.Text, &rule.PromotionReason, &rule.Status,
		&rule.Version, &rule.Trust, &expires, &rule.Paused, &lastUsed, &rule.UseCount, &rule.Supersedes, &rule.SupersededBy,
		&findings, &rule.Fingerprint, &created, &updated}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, fmt.Errorf("store: scan rule: %w", err)
	}
	rule.ExpiresAt, rule.LastUsedAt = expires.Time, lastUsed.Time
	_ = json.Unmarshal([]byte(findings), &rule.Findings)
	rule.CreatedAt, rule.UpdatedAt = parseTime(created), parseTime(updated)
	return &rule, nil
}

// FindRuleByID returns one rule or ENOTFOUND.
func (s *Store) FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error) {
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ID: &id})
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	return rules[0], nil
}

// FindRules lists rules matching the filter, by id, and how many match.
// With a Limit it reads a page: ids in index order and a separate count, so
// a page of a project with tens of thousands of rules reads a page of rows
// instead of sorting all of them.
func (s *Store) FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error) {
	where, args := ruleWhere(f)
	cond := strings.Join(where, " AND ")
	from := "rules r"
	if f.SubjectID != nil && (f.ProjectID != nil || len(f.ProjectIDs) == 1) {
		// One subject of one project is a few rows; without statistics the
		// planner would rather walk the covering list index.
		from = "rules r INDEXED BY rules_subject"
	}
	order := outcome.RuleOrder(f.Sort)
	if f.Limit <= 0 {
		var out []*governance.Rule
		err := queryAll(ctx, s.read, `SELECT `+ruleColumns+` FROM `+from+` WHERE `+cond+` ORDER BY `+order, args,
			rowscan.AppendV[scanner](scanRule, &out))
		return out[min(max(f.Offset, 0), len(out)):], len(out), err
	}
	var total int
	if err := s.read.QueryRowContext(ctx, countQuery(from, cond, f.CountCap), countArgs(args, f.Offset, f.Limit, f.CountCap)...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count rules: %w", err)
	}
	ids, err := s.pageIDs(ctx, `SELECT r.id FROM `+from+` WHERE `+cond+` ORDER BY `+order+pageSQL, pageArgs(args, f.Limit, f.Offset))
	if err != nil {
		return nil, 0, err
	}
	rules, err := s.FindRulesByIDs(ctx, ids)
	return outcome.InOrder(rules, ids), total, err
}

// FindRuleEvidence returns the evidence chain of a rule: its candidates, each
// with the events that support it, in session order.
func (s *Store) FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error) {
	cands, err := findCandidatesIn(ctx, s.read, `c.rule_id = ?`, ruleID)
	if err != nil {
		return nil, err
	}
	return s.FindCandidateEvidence(ctx, cands)
}

// FindRuleVersions returns a rule's history, oldest first.
func (s *Store) FindRuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error) {
	return findVersionsOf(ctx, s.read, []int64{ruleID})
}

func findRuleIn(ctx context.Context, q querier, id int64) (*governance.Rule, error) {
	r, err := scanRule(q.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM rules r WHERE r.id = ?`, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	return r, err
}

// ruleWhere builds the conditions of a rule filter (as FindRules reads it).
func ruleWhere(f governance.RuleFilter) ([]string, []any) {
	where, args := []string{"1 = 1"}, []any{}
	add := func(cond string, v ...any) { where = append(where, cond); args = append(args, v...) }
	if f.ID != nil {
		add("r.id = ?", *f.ID)
	}
	// One project is an equality, so the index gives ids in order.
	switch {
	case f.ProjectID != nil && f.ProjectIDs != nil && !slices.Contains(f.ProjectIDs, *f.ProjectID):
		add("0 = 1")
	case f.ProjectID != nil:
		add("r.project_id = ?", *f.ProjectID)
	case len(f.ProjectIDs) == 1:
		add("r.project_id = ?", f.ProjectIDs[0])
	case f.ProjectIDs != nil:
		add("r.project_id IN (SELECT value FROM json_each(?))", listArg(f.ProjectIDs))
	}
	if f.SubjectID != nil {
		add("r.subject_id = ?", *f.SubjectID)
	}
	if f.ForSubject != nil {
		add("(r.subject_id = '' OR r.subject_id = ?)", *f.ForSubject)
	}
	if f.Kind != nil {
		add("r.kind = ?", *f.Kind)
	}
	if len(f.Statuses) > 0 {
		add("r.status IN (SELECT value FROM json_each(?))", listArg(f.Statuses))
	}
	if f.Reason != nil {
		add("r.promotion_reason = ?", *f.Reason)
	}
	if f.Paused != nil {
		add("r.paused = ?", *f.Paused)
	}
	if f.ExpiringBefore != nil {
		add("r.expires_at IS NOT NULL AND r.expires_at < ?", formatTime(*f.ExpiringBefore))
	}
	// Every word of the query must occur: through the trigram index when it
	// has three or more characters, the CJK pair index for two-character
	// Chinese words, else by LIKE on the rows left.
	for _, t := range searchquery.Terms(f.Query) {
		switch {
		case utf8.RuneCountInString(t) >= 3:
			add("r.id IN (SELECT rowid FROM rules_fts WHERE rules_fts MATCH ?)", ftsPhrase(t))
		case isCJKPair(t):
			add("r.id IN (SELECT rowid FROM rules_cjk WHERE rules_cjk MATCH ?)", ftsPhrase(t))
		default:
			add(`r.text LIKE ? ESCAPE '\'`, "%"+likeEscape(t)+"%")
		}
	}
	return where, args
}

func findRulesIn(ctx context.Context, q querier, where string, args ...any) ([]*governance.Rule, error) {
	var out []*governance.Rule
	err := queryAll(ctx, q, `SELECT `+ruleColumns+` FROM rules r WHERE `+where+` ORDER BY r.id`, args, rowscan.AppendV[scanner](scanRule, &out))
	return out, err
}

func findCandidatesIn(ctx context.Context, q querier, where string, args ...any) ([]*governance.Candidate, error) {
	var out []*governance.Candidate
	err := queryAll(ctx, q, `SELECT `+candidateColumns+` FROM candidates c WHERE `+where+` ORDER BY c.id`, args, rowscan.Append[scanner](scanCandidate, &out))
	return out, err
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

func findEpisodesIn(ctx context.Context, q querier, where string, args ...any) ([]*governance.Episode, error) {
	var out []*governance.Episode
	err := queryAll(ctx, q, `SELECT `+episodeColumns+` FROM episodes e WHERE `+where+` ORDER BY e.id`, args, rowscan.AppendV[scanner](scanEpisode, &out))
	return out, err
}
