package forgetplan

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// RestatementTerms bounds the terms of the full-text query that finds the
// lines which may restate a forgotten statement.
const RestatementTerms = 64

// restatements adds to seqs the lines that restate a forgotten statement
// (governance.RestatesAnyAmong): message lines, the user's or the
// assistant's, of the conversations of the same subject (a candidate's or
// a rule's) — for a project-wide candidate, of its own sessions. A
// subject's lines are first narrowed by the store's full-text index to
// those sharing a term with the statements; they are judged once all are
// read, with the share of the subject's lines each term occurs in (a term
// in most of them tells nothing).
func (p *Plan) restatements(ctx context.Context, q Reader, seqs map[int64]bool) error {
	if len(p.texts) == 0 {
		return nil
	}
	var terms []string
	seen := map[string]bool{}
	for _, t := range p.texts {
		tokenizer.PhraseTokens(t, func(term string, _ int) {
			if !seen[term] && len(terms) < RestatementTerms {
				seen[term] = true
				terms = append(terms, term)
			}
		})
	}
	type scope struct {
		project int64
		subject string
	}
	subjects := map[scope]bool{}
	for _, c := range p.Candidates {
		if c.SubjectID != "" {
			subjects[scope{c.ProjectID, c.SubjectID}] = true
		}
	}
	for _, r := range p.Rules {
		if r.SubjectID != "" {
			subjects[scope{r.ProjectID, r.SubjectID}] = true
		}
	}
	type line struct {
		seq  int64
		text string
	}
	var lines []line
	collect := func(seq int64, text string) error {
		lines = append(lines, line{seq, text})
		return nil
	}
	judge := func(stats *governance.LineStats) {
		for _, l := range lines {
			stats.Add(l.text)
		}
		for _, l := range lines {
			if !seqs[l.seq] && governance.RestatesAnyAmong(l.text, p.texts, stats) {
				seqs[l.seq] = true
			}
		}
		lines = lines[:0]
	}
	if len(terms) > 0 {
		list := make([]scope, 0, len(subjects))
		for sc := range subjects {
			list = append(list, sc)
		}
		slices.SortFunc(list, func(a, b scope) int {
			return cmp.Or(cmp.Compare(a.project, b.project), strings.Compare(a.subject, b.subject))
		})
		for _, sc := range list {
			if err := q.SubjectLines(ctx, sc.project, sc.subject, terms, collect); err != nil {
				return err
			}
			all, err := q.CountEvents(ctx, EventScope{ProjectID: sc.project, SubjectID: sc.subject})
			if err != nil {
				return err
			}
			judge(governance.NewLineStats(all))
		}
	}
	for projectID, ids := range p.sessionsOf(true) {
		if err := q.SessionLines(ctx, projectID, ids, collect); err != nil {
			return err
		}
		judge(governance.NewLineStats(len(lines)))
	}
	return nil
}

// Row is a row of either store's driver.
type Row interface{ Scan(dest ...any) error }

// ScanLine reads a row of (seq, text) and hands it to fn.
func ScanLine(row Row, fn func(seq int64, text string) error) error {
	var (
		seq  int64
		text string
	)
	if err := row.Scan(&seq, &text); err != nil {
		return err
	}
	return fn(seq, text)
}
