package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// idTables are the tables whose ids audit rows and links name.
var idTables = []string{"projects", "rules", "candidates", "episodes"}

// insertRows inserts one row into each of idTables (a rule, a candidate and
// an episode of project p, or of a new project when p is 0) and returns the
// new ids by table.
func insertRows(t *testing.T, db *sql.DB, p int64, tag string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	now := formatTime(time.Now())
	ids := map[string]int64{}
	exec := func(table, query string, args ...any) {
		t.Helper()
		res, err := db.ExecContext(ctx, query, args...)
		if err != nil {
			t.Fatalf("insert into %s: %v", table, err)
		}
		ids[table], _ = res.LastInsertId()
	}
	if p == 0 {
		exec("projects", `INSERT INTO projects (slug, name, created_at) VALUES (?, ?, ?)`, "p-"+tag, "p "+tag, now)
		p = ids["projects"]
	}
	exec("rules", `INSERT INTO rules (project_id, kind, text, promotion_reason, status, created_at, updated_at)
		VALUES (?, 'fact', ?, 'explicit', 'active', ?, ?)`, p, "rule about the "+tag+" bathtub 带浴缸的房间", now, now)
	exec("candidates", `INSERT INTO candidates (project_id, session_id, type, statement, extractor, status, rule_id, created_at, updated_at)
		VALUES (?, ?, 'fact', ?, 'test', 'promoted', ?, ?, ?)`, p, "s-"+tag, "statement "+tag, ids["rules"], now, now)
	exec("episodes", `INSERT INTO episodes (project_id, session_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
		VALUES (?, ?, ?, 1, 1, 1, 'test', ?, ?)`, p, "s-"+tag, "summary "+tag+" 孩子喜欢泡澡", now, now)
	return ids
}

// deleteRows deletes the rows of ids, children first.
func deleteRows(t *testing.T, db *sql.DB, ids map[string]int64) {
	t.Helper()
	for _, table := range []string{"candidates", "episodes", "rules", "projects"} {
		if id, ok := ids[table]; ok {
			if _, err := db.Exec(`DELETE FROM `+table+` WHERE id = ?`, id); err != nil {
				t.Fatalf("delete from %s: %v", table, err)
			}
		}
	}
}

// After the newest rows of each table are deleted and the store is closed
// and opened again, new rows get new ids: AUTOINCREMENT keeps the highest
// id used in sqlite_sequence, where nothing else needs to raise it.
func TestIDsNotReusedAfterReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	keep := insertRows(t, s.db, 0, "keep")
	newest := insertRows(t, s.db, 0, "newest")
	deleteRows(t, s.db, newest)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	next := insertRows(t, s.db, keep["projects"], "next")
	next["projects"] = MustCreateProjectID(t, s, "after")
	for _, table := range idTables {
		if next[table] <= newest[table] {
			t.Errorf("%s: new id %d reuses the deleted newest id %d", table, next[table], newest[table])
		}
	}
}

// MustCreateProjectID creates a project through the store and returns its id.
func MustCreateProjectID(t *testing.T, s *Store, slug string) int64 {
	t.Helper()
	p := &governance.Project{Slug: slug, Name: slug}
	if err := s.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// Migration 0025 rebuilds the four tables with AUTOINCREMENT: every row
// keeps its id, the full-text index of rules still finds them, the triggers
// work on the new tables, and the floors id_floors kept become the tables'
// sequence, so an id deleted before the upgrade is not handed out after it.
func TestAutoincrementMigration(t *testing.T) {
	ctx := context.Background()
	old, path := openBefore(t, "migrations/0025")
	db := old.db
	// Before 0025, code gave ids past the floors by hand; here the floors
	// stand above rows that were deleted.
	kept := insertRows(t, db, 0, "kept")
	floors := map[string]int64{}
	for _, table := range idTables {
		floors[table] = kept[table] + 5
		if _, err := db.Exec(`INSERT INTO id_floors (tbl, id) VALUES (?, ?)`, table, floors[table]); err != nil {
			t.Fatal(err)
		}
	}
	var before int
	if err := db.QueryRow(`SELECT COUNT(*) FROM rules_fts WHERE rules_fts MATCH 'bathtub'`).Scan(&before); err != nil || before != 1 {
		t.Fatalf("rules_fts before: %d, %v", before, err)
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, table := range idTables {
		var sqlText string
		if err := s.db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&sqlText); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sqlText, "AUTOINCREMENT") {
			t.Errorf("%s is not AUTOINCREMENT: %s", table, sqlText)
		}
		var n int
		if err := s.db.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE id = ?`, kept[table]).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s lost row %d: %d, %v", table, kept[table], n, err)
		}
	}
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'id_floors'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("id_floors still there: %d, %v", n, err)
	}
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{Query: "bathtub"})
	if err != nil || len(rules) != 1 || rules[0].ID != kept["rules"] {
		t.Fatalf("search after the migration: %v, %v", rules, err)
	}
	ev, err := s.FindRuleEvidence(ctx, kept["rules"])
	if err != nil || len(ev) != 1 || ev[0].Candidate.ID != kept["candidates"] {
		t.Fatalf("evidence after the migration: %v, %v", ev, err)
	}
	next := insertRows(t, s.db, kept["projects"], "next")
	next["projects"] = MustCreateProjectID(t, s, "after")
	for _, table := range idTables {
		if next[table] <= floors[table] {
			t.Errorf("%s: new id %d is not past the floor %d", table, next[table], floors[table])
		}
	}
	if rules, _, err := s.FindRules(ctx, governance.RuleFilter{Query: "浴缸"}); err != nil || len(rules) != 2 {
		t.Fatalf("CJK search after the migration: %v, %v", rules, err)
	}
	// The triggers were created again: the new rule is in the index.
	if rules, _, err := s.FindRules(ctx, governance.RuleFilter{Query: "next bathtub"}); err != nil || len(rules) != 1 {
		t.Fatalf("search for a rule written after the migration: %v, %v", rules, err)
	}
	var ok string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %s, %v", ok, err)
	}
	for _, ix := range []string{"rules_fts", "rules_cjk", "episodes_recall"} {
		if _, err := s.db.Exec(`INSERT INTO ` + ix + ` (` + ix + `) VALUES ('integrity-check')`); err != nil {
			t.Errorf("%s integrity-check: %v", ix, err)
		}
	}
	// Foreign keys are on again on every connection.
	conns := make([]*sql.Conn, 3)
	for i := range conns {
		if conns[i], err = s.db.Conn(ctx); err != nil {
			t.Fatal(err)
		}
		var on int
		if err := conns[i].QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
			t.Errorf("connection %d: foreign_keys = %d, %v", i, on, err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
}
