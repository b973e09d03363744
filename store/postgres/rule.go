package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
	"github.com/mnemo-console/mnemo/store/internal/outcome"
	"github.com/mnemo-console/mnemo/store/internal/rowscan"
	"github.com/mnemo-console/mnemo/store/internal/rulerows"
	"github.com/mnemo-console/mnemo/store/internal/searchquery"
)

// Reads of the semantic layer: rules, their versions and evidence.

const ruleColumns = `r.id, r.project_id, r.subject_id, r.kind, r.text, r.promotion_reason, r.status, r.version, r.trust,
	r.expires_at, r.paused, r.last_used_at, r.use_count, COALESCE(r.supersedes, 0), COALESCE(r.superseded_by, 0),
	r.findings, r.fingerprint, r.created_at, r.updated_at`

func scanRule(r pgx.Row, extra ...any) (*governance.Rule, error) {
	var (
		rule              governance.Rule
		expires, lastUsed *time.Time
		findings          string
	)
	dest := append([]any{&rule.ID, &rule.ProjectID, &rule.SubjectID, &rule.Kind, &rule.Text, &rule.PromotionReason, &rule.Status,
		&rule.Version, &rule.Trust, &expires, &rule.Paused, &lastUsed, &rule.UseCount, &rule.Supersedes, &rule.SupersededBy,
		&findings, &rule.Fingerprint, &rule.CreatedAt, &rule.UpdatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	rule.ExpiresAt, rule.LastUsedAt = utcPtr(expires), utcPtr(lastUsed)
	_ = json.Unmarshal([]byte(findings), &rule.Findings)
	rule.CreatedAt, rule.UpdatedAt = rule.CreatedAt.UTC(), rule.UpdatedAt.UTC()
	return &rule, nil
}

// FindRuleByID returns one rule or ENOTFOUND.
func (s *Store) FindRuleByID(ctx context.Context, id int64) (*governance.Rule, error) {
	return findRuleIn(ctx, s.pool, id, "")
}

// findRuleIn reads one rule on q; lock is "" or a locking clause (FOR
// UPDATE) for a change that writes it.
func findRuleIn(ctx context.Context, q dbtx, id int64, lock string) (*governance.Rule, error) {
	r, err := scanRule(q.QueryRow(ctx, `SELECT `+ruleColumns+` FROM rules r WHERE r.id = $1 `+lock, id))
	if isNoRows(err) {
		return nil, governance.Errorf(governance.ENOTFOUND, "Rule not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find rule: %w", err)
	}
	return r, nil
}

// FindRules lists rules matching the filter, by id, and how many match.
// With a Limit it reads a page: ids in index order and a separate count.
func (s *Store) FindRules(ctx context.Context, f governance.RuleFilter) ([]*governance.Rule, int, error) {
	return findRules(ctx, s.pool, f)
}

func findRules(ctx context.Context, q dbtx, f governance.RuleFilter) ([]*governance.Rule, int, error) {
	w := ruleWhere(f)
	order := outcome.RuleOrder(f.Sort)
	if f.Limit <= 0 && f.Sort == governance.RuleSortID {
		out, err := findRulesIn(ctx, q, w)
		return out[min(max(f.Offset, 0), len(out)):], len(out), err
	}
	if f.Limit <= 0 {
		ids, err := queryIDs(ctx, q, `SELECT r.id FROM rules r WHERE `+w.String()+` ORDER BY `+order, w.args)
		if err != nil {
			return nil, 0, err
		}
		rules, err := findRulesByIDs(ctx, q, ids)
		rules = outcome.InOrder(rules, ids)
		return rules[min(max(f.Offset, 0), len(rules)):], len(rules), err
	}
	total, err := countRows(ctx, q, "rules r", w, f.Offset, f.Limit, f.CountCap)
	if err != nil {
		return nil, 0, err
	}
	limit, args := page(w.args, f.Limit, f.Offset)
	ids, err := queryIDs(ctx, q, `SELECT r.id FROM rules r WHERE `+w.String()+` ORDER BY `+order+limit, args)
	if err != nil {
		return nil, 0, err
	}
	rules, err := findRulesByIDs(ctx, q, ids)
	return outcome.InOrder(rules, ids), total, err
}

// ruleWhere builds the conditions of a rule filter, as the SQLite store
// reads it.
func ruleWhere(f governance.RuleFilter) *where {
	w := &where{}
	if f.ID != nil {
		w.add("r.id = ?", *f.ID)
	}
	switch {
	case f.ProjectID != nil && f.ProjectIDs != nil && !slices.Contains(f.ProjectIDs, *f.ProjectID):
		w.add("false")
	case f.ProjectID != nil:
		w.add("r.project_id = ?", *f.ProjectID)
	case f.ProjectIDs != nil:
		w.add("r.project_id = ANY(?)", f.ProjectIDs)
	}
	if f.SubjectID != nil {
		w.add("r.subject_id = ?", *f.SubjectID)
	}
	if f.ForSubject != nil {
		w.add("(r.subject_id = '' OR r.subject_id = ?)", *f.ForSubject)
	}
	if f.Kind != nil {
		w.add("r.kind = ?", string(*f.Kind))
	}
	if len(f.Statuses) > 0 {
		w.add("r.status = ANY(?)", strs(f.Statuses))
	}
	if f.Reason != nil {
		w.add("r.promotion_reason = ?", string(*f.Reason))
	}
	if f.Paused != nil {
		w.add("r.paused = ?", *f.Paused)
	}
	if f.ExpiringBefore != nil {
		w.add("r.expires_at IS NOT NULL AND r.expires_at < ?", utc(*f.ExpiringBefore))
	}
	// Every word of the query must occur in the text, in any case: the
	// SQLite store's contract (its trigram and pair indexes find
	// substrings, not only whole words). ILIKE decides; the trigram index
	// (migration 0016) serves it for a word of three or more characters,
	// and a Chinese word first needs all its character pairs (or its one
	// character) in words, through rules_words.
	for _, t := range searchquery.Terms(f.Query) {
		if q := cjkQuery(t); q != "" {
			w.add(`r.words @@ ?::tsquery`, q)
		}
		w.add(`r.text ILIKE ?`, "%"+likeEscape(t)+"%")
	}
	return w
}

// cjkQuery is the tsquery every text holding the Chinese (CJK) word t
// matches: its character pairs, or its one character, all of them (the
// tokenizer indexes both); "" when t is not all CJK.
func cjkQuery(t string) string {
	rs := []rune(t)
	if len(rs) == 0 {
		return ""
	}
	for _, r := range rs {
		if !tokenizer.IsCJK(r) {
			return ""
		}
	}
	if len(rs) == 1 {
		return quoteLexeme(t)
	}
	parts := make([]string, len(rs)-1)
	for i := range parts {
		parts[i] = quoteLexeme(string(rs[i : i+2]))
	}
	return strings.Join(parts, " & ")
}

func findRulesIn(ctx context.Context, q dbtx, w *where) ([]*governance.Rule, error) {
	var out []*governance.Rule
	err := queryAll(ctx, q, `SELECT `+ruleColumns+` FROM rules r WHERE `+w.String()+` ORDER BY r.id`, w.args, rowscan.AppendV[pgx.Row](scanRule, &out))
	return out, err
}

// FindRulesByIDs returns the rules with these ids (missing ones are left out), by id.
func (s *Store) FindRulesByIDs(ctx context.Context, ids []int64) ([]*governance.Rule, error) {
	return findRulesByIDs(ctx, s.pool, ids)
}

func findRulesByIDs(ctx context.Context, q dbtx, ids []int64) ([]*governance.Rule, error) {
	if len(ids) == 0 {
		return []*governance.Rule{}, nil
	}
	w := &where{}
	w.add("r.id = ANY(?)", ids)
	return findRulesIn(ctx, q, w)
}

// FindRuleVersions returns a rule's history, oldest first.
func (s *Store) FindRuleVersions(ctx context.Context, ruleID int64) ([]*governance.RuleVersion, error) {
	var out []*governance.RuleVersion
	err := queryAll(ctx, s.pool, `SELECT rule_id, version, text, kind, actor, reason, created_at FROM rule_versions
		WHERE rule_id = $1 ORDER BY version`, []any{ruleID}, func(r pgx.Row) error {
		var v governance.RuleVersion
		if err := r.Scan(&v.RuleID, &v.Version, &v.Text, &v.Kind, &v.Actor, &v.Reason, &v.CreatedAt); err != nil {
			return err
		}
		v.CreatedAt = v.CreatedAt.UTC()
		out = append(out, &v)
		return nil
	})
	return out, err
}

// FindRuleEvidence returns the evidence chain of a rule: its candidates, each
// with the events that support it.
func (s *Store) FindRuleEvidence(ctx context.Context, ruleID int64) ([]*governance.EvidenceLink, error) {
	cands, err := candidatesByIDs(ctx, s.pool, "rule_id", []int64{ruleID})
	if err != nil {
		return nil, err
	}
	return s.FindCandidateEvidence(ctx, cands)
}

// InsertRule writes a new rule, its first version and the audit row.
func (tx ruleTx) InsertRule(ctx context.Context, r *governance.Rule, actor, reason string) (int64, error) {
	if err := governance.CheckRuleText(r.Text); err != nil {
		return 0, err
	}
	var id int64
	err := tx.QueryRow(ctx, `
		INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, version, trust, expires_at, paused,
			supersedes, findings, fingerprint, created_at, updated_at, words)
		VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, false, $9, $10, $11, $12, $12, $13::tsvector) RETURNING id`,
		r.ProjectID, r.SubjectID, string(r.Kind), r.Text, string(r.PromotionReason), string(r.Status), r.Trust, utcPtr(r.ExpiresAt),
		nullInt(r.Supersedes), jsonList(r.Findings), governance.Fingerprint(r.Text), tx.now, tsvectorOf(r.Text)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("postgres: write rule: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) VALUES ($1, 1, $2, $3, $4, $5, $6)`,
		id, r.Text, string(r.Kind), actor, reason, tx.now); err != nil {
		return 0, fmt.Errorf("postgres: write rule version: %w", err)
	}
	if err := appendAudit(ctx, tx.Tx, rulerows.Written(actor, id, r)); err != nil {
		return 0, err
	}
	return id, nil
}
