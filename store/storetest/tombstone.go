package storetest

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mnemo-console/mnemo/governance"
)

// rawRow is one row of a store's own table, its text columns by name.
type rawRow struct {
	table string
	cols  map[string]string
}

// rawRows reads every row of every table of s (not the internals of
// SQLite's full-text indexes), keeping the text and byte columns: what a
// forget must leave no identifier in, whatever the store's API shows.
func rawRows(t *testing.T, s Store) []rawRow {
	t.Helper()
	var (
		query  func(q string) ([]string, [][]any, error)
		tables string
	)
	switch db := s.(type) {
	case interface{ DB() *sql.DB }:
		query = func(q string) ([]string, [][]any, error) { return sqlRows(db.DB(), q) }
		tables = `SELECT name FROM sqlite_master WHERE type = 'table'
			AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_data' AND name NOT LIKE '%_idx' AND name NOT LIKE '%_docsize'
			AND name NOT LIKE '%_config' AND name NOT LIKE '%_content' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`
	case interface{ Pool() *pgxpool.Pool }:
		query = func(q string) ([]string, [][]any, error) { return pgRows(db.Pool(), q) }
		tables = `SELECT table_name::text FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`
	default:
		t.Fatalf("%T: no way to read its tables", s)
	}
	_, names, err := query(tables)
	if err != nil {
		t.Fatal(err)
	}
	var out []rawRow
	for _, name := range names {
		table := name[0].(string)
		cols, rows, err := query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
		for _, vals := range rows {
			out = append(out, textRow(table, cols, vals))
		}
	}
	return out
}

// rawExec runs statement q (no arguments) on the database of s, for what
// no method of a store may do.
func rawExec(t *testing.T, s Store, q string) error {
	t.Helper()
	switch db := s.(type) {
	case interface{ DB() *sql.DB }:
		_, err := db.DB().ExecContext(context.Background(), q)
		return err
	case interface{ Pool() *pgxpool.Pool }:
		_, err := db.Pool().Exec(context.Background(), q)
		return err
	}
	t.Fatalf("%T: no way to run a statement", s)
	return nil
}

// sqlRows runs q on db and returns its columns and rows.
func sqlRows(db *sql.DB, q string) ([]string, [][]any, error) {
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}

// pgRows runs q on pool and returns its columns and rows.
func pgRows(pool *pgxpool.Pool, q string) ([]string, [][]any, error) {
	rows, err := pool.Query(context.Background(), q)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	var out [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, nil, err
		}
		out = append(out, vals)
	}
	return cols, out, rows.Err()
}

func textRow(table string, names []string, vals []any) rawRow {
	r := rawRow{table: table, cols: map[string]string{}}
	for i, v := range vals {
		switch v := v.(type) {
		case string:
			r.cols[names[i]] = v
		case []byte:
			r.cols[names[i]] = string(v)
		}
	}
	return r
}

// TestForgetSubjectTombstones: forgetting everything about a subject of the
// demo leaves none of its identifiers in any table — the subject id, its
// events' and sessions' ids, its events' tools and statuses — and the
// audit names the subject only by its keyed reference; the subject's
// events sent again are recognised by their tombstones and skipped, while
// a new event of the same person is stored.
func TestForgetSubjectTombstones(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	s := d.Store
	const subject = "family-chen"
	events, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &d.Travel.ID, SubjectID: ptr(subject)})
	if err != nil || len(events) == 0 {
		t.Fatalf("events = %d, %v", len(events), err)
	}
	lesson := d.Rule(t, "单独安排一天") // project-wide, but learned from this family only
	preview, err := s.PreviewForgetSubject(ctx, d.Travel.ID, subject)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(preview.SharedRuleIDs, lesson.ID) {
		t.Fatalf("shared rules = %v, want the lesson %d listed", preview.SharedRuleIDs, lesson.ID)
	}
	if preview.EventCount != len(events) || len(preview.Events) != min(len(events), governance.PreviewEventLimit) {
		t.Fatalf("preview events = %d (%d listed), want %d", preview.EventCount, len(preview.Events), len(events))
	}
	rep, err := s.ForgetSubject(ctx, "admin", d.Travel.ID, subject)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != len(events) || len(rep.RuleIDs) != len(preview.Rules) || len(rep.CandidateIDs) != len(preview.Candidates) {
		t.Fatalf("report = %+v", rep)
	}
	t.Run("AuditVerifies", func(t *testing.T) {
		v, err := s.VerifyAudit(ctx)
		if err != nil || !v.OK {
			t.Fatalf("verify = %+v, %v", v, err)
		}
		rows, _, _ := s.FindAudit(ctx, governance.AuditFilter{Action: "subject.forget"})
		if len(rows) != 1 || !strings.HasPrefix(rows[0].ObjectID, "subject:") || !strings.Contains(rows[0].Details, rep.ContentHash) {
			t.Fatalf("audit = %+v; want the subject named by its keyed reference", rows)
		}
	})
	t.Run("NoIdentifierLeft", func(t *testing.T) {
		needles := []string{subject}
		for _, e := range events {
			needles = append(needles, e.ID, e.SessionID)
		}
		for _, r := range rawRows(t, s) {
			if r.table == "accounts" {
				continue // the member's account stays; its username is the subject id in the demo (README)
			}
			for col, text := range r.cols {
				for _, n := range needles {
					if n != "" && (text == n || strings.Contains(text, `"`+n+`"`)) {
						t.Errorf("%s.%s still holds %q", r.table, col, n)
					}
				}
			}
			if r.table == "events" && strings.HasPrefix(r.cols["subject_id"], "forgotten-subject:") && (r.cols["tool"] != "" || r.cols["status"] != "") {
				t.Errorf("forgotten event %q keeps tool %q, status %q", r.cols["id"], r.cols["tool"], r.cols["status"])
			}
		}
	})
	t.Run("MembershipRemoved", func(t *testing.T) {
		a, err := s.FindAccountByUsername(ctx, subject)
		if err != nil {
			t.Fatalf("the member's account: %v; want it kept", err)
		}
		for _, m := range a.Memberships {
			if m.ProjectID == d.Travel.ID {
				t.Errorf("the account keeps its membership of the project: %+v", m)
			}
		}
		forgot, _, _ := s.FindAudit(ctx, governance.AuditFilter{Action: "subject.forget"})
		removed, _, err := s.FindAudit(ctx, governance.AuditFilter{Action: "membership.remove", ObjectType: "subject"})
		if err != nil || len(removed) != 1 || len(forgot) != 1 || removed[0].ObjectID != forgot[0].ObjectID ||
			!strings.Contains(removed[0].Details, `"accounts":1`) {
			t.Fatalf("membership.remove rows = %+v, %v; want one, naming the subject as its forget does, one account", removed, err)
		}
	})
	t.Run("NothingLeftToForget", func(t *testing.T) {
		again, err := s.ForgetSubject(ctx, "admin", d.Travel.ID, subject)
		if err != nil || len(again.RuleIDs)+len(again.CandidateIDs)+again.Events+len(again.AuditIDs) != 0 {
			t.Fatalf("second forget = %+v, %v; want nothing done", again, err)
		}
	})
	t.Run("NotResurrectedByReimport", func(t *testing.T) {
		for _, e := range events {
			e.Seq = 0
		}
		res, err := s.ImportStream(ctx, "admin", d.Travel.ID, func(emit func(*governance.Event) error) error {
			for _, e := range events {
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Inserted != 0 || res.Skipped != len(events) {
			t.Fatalf("re-import inserted %d, skipped %d; want 0, %d", res.Inserted, res.Skipped, len(events))
		}
		if res, err := s.IngestEvents(ctx, d.Travel.ID, events[:1]); err != nil || res.Inserted != 0 || res.Skipped != 1 {
			t.Fatalf("re-ingest = %+v, %v; want it skipped", res, err)
		}
		again, _, err := s.FindEvents(ctx, governance.EventFilter{ProjectID: &d.Travel.ID, SubjectID: ptr(subject)})
		if err != nil || len(again) != 0 {
			t.Fatalf("the subject has %d events again (%v)", len(again), err)
		}
		// A new event of the same person is new memory, and is stored.
		fresh := &governance.Event{ID: "chen-new-1", SessionID: "chen-new", SubjectID: subject, Role: governance.RoleUser,
			Text: "hello again", OccurredAt: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
		if res, err := s.IngestEvents(ctx, d.Travel.ID, []*governance.Event{fresh}); err != nil || res.Inserted != 1 {
			t.Fatalf("new event: %+v, %v", res, err)
		}
	})
}

// TestForgetRuleRedactsRestatements: forgetting the demo's nap rule with
// its lines also redacts the assistant's three restatements of it (in its
// own sessions and in another session of the same family), and keeps a
// line that only mentions one of its times.
func TestForgetRuleRedactsRestatements(t *testing.T, open Opener) {
	ctx := context.Background()
	d := LoadDemo(t, open)
	s := d.Store
	nap := d.Rule(t, "午睡")
	restatements := []string{
		"记住了，每天14:00到16:00都留给她午睡。",
		"每天下午两点到四点都空着，让孩子回酒店午睡。",
		"14:00到16:00回酒店午睡。",
	}
	const unrelated = "下午两点去断桥、白堤散步"
	count := func(needle string) int {
		n := 0
		for _, r := range rawRows(t, s) {
			if r.table == "events" && strings.Contains(r.cols["text"], needle) {
				n++
			}
		}
		return n
	}
	// found counts the restatements a search for the rule's key word shows.
	found := func() int {
		res, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &d.Travel.ID, Query: "午睡"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, h := range res {
			for _, r := range restatements {
				if strings.Contains(h.Event.Text, r) {
					n++
				}
			}
		}
		return n
	}
	if found() != len(restatements) {
		t.Fatalf("precondition: search finds %d of the restatements", found())
	}
	for _, r := range append(restatements, unrelated) {
		if count(r) != 1 {
			t.Fatalf("precondition: %q is not in one demo line", r)
		}
	}
	preview, err := s.PreviewForgetRule(ctx, nap.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.ForgetRule(ctx, "family-chen", nap.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if preview.EventCount != rep.Events || rep.Events != 5 {
		t.Fatalf("preview %d, forgot %d lines; want 5 (2 evidence, 3 restatements)", preview.EventCount, rep.Events)
	}
	for _, r := range restatements {
		if n := count(r); n != 0 {
			t.Errorf("restatement %q is still stored", r)
		}
	}
	if n := found(); n != 0 {
		t.Errorf("search still finds %d restatements", n)
	}
	if count(unrelated) != 1 {
		t.Error("a line that only shares a time with the rule was redacted")
	}
}
