package store

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/mnemo-console/mnemo/governance/tokenizer"
)

// Project-scoped index terms (migrations 0032 and 0033). The word indexes
// of events (events_words) and of recall's episodes (episodes_recall) hold
// every term of a text as <project id>_<term>, and a row's scope column as
// <project id>_s<hex of subject id>0: a term's list of rows is its
// project's alone, so a query for one project reads and ranks only that
// project's rows, however many projects the database holds. Every MATCH
// expression over those indexes is built here.

// scopedTerm is term as the index rows of a project hold it.
func scopedTerm(projectID int64, term string) string {
	return strconv.FormatInt(projectID, 10) + "_" + term
}

// scopedIndex returns the terms of text (tokenizer.Tokens) in projectID's
// rows, joined by spaces: what mnemo_scoped_terms gives the indexes.
func scopedIndex(projectID int64, text string) string {
	prefix := strconv.FormatInt(projectID, 10) + "_"
	var b strings.Builder
	tokenizer.Tokens(text, func(t string, _ int) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prefix)
		b.WriteString(t)
	})
	return b.String()
}

// scopedPhrase is the FTS5 phrase of consecutive terms in projectID's rows.
func scopedPhrase(projectID int64, terms []string) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = scopedTerm(projectID, t)
	}
	return ftsPhrase(strings.Join(parts, " "))
}

// subjectScope is the scope column's term of a subject's rows in a project
// ("" names the project-wide rows).
func subjectScope(projectID int64, subject string) string {
	return ftsPhrase(scopedTerm(projectID, "s"+strings.ToUpper(hex.EncodeToString([]byte(subject)))+"0"))
}

// scopeMatch selects the rows of projectID belonging to any of subjects.
func scopeMatch(projectID int64, subjects []string) string {
	parts := make([]string, len(subjects))
	for i, s := range subjects {
		parts[i] = subjectScope(projectID, s)
	}
	return "scope: (" + strings.Join(parts, " OR ") + ")"
}

// anyTermMatch selects the rows of projectID, of one of subjects, holding
// any of terms (tokenizer terms). "" when terms is empty.
func anyTermMatch(projectID int64, subjects, terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = ftsPhrase(scopedTerm(projectID, t))
	}
	return scopeMatch(projectID, subjects) + " AND " + inTerms("("+strings.Join(parts, " OR ")+")", termLists(terms)...)
}

// inTerms restricts group, an FTS5 expression of phrases of the terms
// lists, to the terms column when it has to: only when one of them is a
// single term shaped like a scope column's term ("s", pairs of hex digits,
// "0" — the scope column holds one term a row, so a phrase of several
// terms never matches there). Any other phrase can only match in terms,
// and the filter would cost every match FTS5 reads — in the query and in
// bm25's count of each phrase's rows, a fifth of a common word's search —
// the extraction of the column from its positions. The rows and their
// bm25 scores are the same either way: bm25 counts a row's instances of
// the phrase and its size over all columns.
func inTerms(group string, phrases ...[]string) string {
	for _, ph := range phrases {
		if len(ph) == 1 && scopeShaped(ph[0]) {
			return "terms: " + group
		}
	}
	return group
}

// scopeShaped reports whether a term could be a scope column's term in a
// project (subjectScope; the index's tokenizer folds case).
func scopeShaped(t string) bool {
	hexPart, ok := strings.CutPrefix(strings.ToLower(t), "s")
	if !ok || !strings.HasSuffix(hexPart, "0") {
		return false
	}
	_, err := hex.DecodeString(hexPart[:len(hexPart)-1])
	return err == nil
}

// termLists is each of terms as a phrase of its own.
func termLists(terms []string) [][]string {
	out := make([][]string, len(terms))
	for i, t := range terms {
		out[i] = []string{t}
	}
	return out
}

// recallSubjects are the subjects whose rows a recall for subject sees: the
// project-wide ones and, when it names one, the subject's own.
func recallSubjects(subject string) []string {
	if subject == "" {
		return []string{""}
	}
	return []string{"", subject}
}
