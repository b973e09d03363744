// Package rulerows is the part of rule storage both stores share that is
// not SQL: how a query's rows with columns beside the rule's own (the
// review queue's stored rank and its epoch) and the evidence spread of
// rules are read and collected, the rank reasons' JSON column, and the audit entry of a
// rule's first write. Each store keeps its SQL and its scanRule, the
// reader of the rule's own columns.
package rulerows

import (
	"encoding/json"
	"fmt"

	"github.com/mnemo-console/mnemo/governance"
)

// Scanner reads one row's columns (a database/sql row, a pgx row).
type Scanner interface{ Scan(dest ...any) error }

// ScanRule is a store's reader of a rule's columns, scanning extra into
// the columns its query selects after them.
type ScanRule[R Scanner] func(row R, extra ...any) (*governance.Rule, error)

// Stale is what FindStaleRanks reads: the proposals whose rank is not
// known, and the epoch of each one's inputs by rule id.
type Stale struct {
	Rules  []*governance.Rule
	Epochs map[int64]int64
}

// StaleRows collects rows of a rule and its rank epoch into st.
func StaleRows[R Scanner](scan ScanRule[R], st *Stale) func(R) error {
	st.Epochs = map[int64]int64{}
	return func(row R) error {
		var epoch int64
		rule, err := scan(row, &epoch)
		if err != nil {
			return err
		}
		st.Rules = append(st.Rules, rule)
		st.Epochs[rule.ID] = epoch
		return nil
	}
}

// Ranked collects rows of a rule, its stored rank score (NULL when not
// known: zero) and its rank reasons (Reasons) into rules and ranks, in
// step: the rows of FindRankedProposals.
func Ranked[R Scanner](scan ScanRule[R], rules *[]*governance.Rule, ranks *[]governance.Rank) func(R) error {
	return func(row R) error {
		var score *float64
		var reasons string
		rule, err := scan(row, &score, &reasons)
		if err != nil {
			return err
		}
		rk := governance.Rank{}
		if score != nil {
			rk.Score = *score
		}
		_ = json.Unmarshal([]byte(reasons), &rk.Reasons)
		*rules, *ranks = append(*rules, rule), append(*ranks, rk)
		return nil
	}
}

// Reasons is the rank_reasons column of a rank.
func Reasons(rk governance.Rank) string {
	b, _ := json.Marshal(rk.Reasons)
	return string(b)
}

// Spread collects (rule id, sessions, subjects) rows into out: the rows
// of FindEvidenceSpread.
func Spread[R Scanner](out map[int64]governance.EvidenceSpread) func(R) error {
	return func(row R) error {
		var id int64
		var sp governance.EvidenceSpread
		if err := row.Scan(&id, &sp.Sessions, &sp.Subjects); err != nil {
			return err
		}
		out[id] = sp
		return nil
	}
}

// Written is the audit entry of a rule's first write as id: proposed, or
// active at once when its status says so.
func Written(actor string, id int64, r *governance.Rule) *governance.AuditEntry {
	action := "rule.propose"
	if r.Status == governance.RuleActive {
		action = "rule.activate"
	}
	return &governance.AuditEntry{
		Actor: actor, Action: action, ObjectType: "rule", ObjectID: fmt.Sprint(id), ProjectID: r.ProjectID,
		Reason: string(r.PromotionReason), Details: fmt.Sprintf(`{"kind":%q,"status":%q}`, r.Kind, r.Status),
	}
}
