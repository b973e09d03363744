package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/recall"
	"github.com/mnemo-console/mnemo/store/internal/pagescrub"
)

// TestProjectTermsMigration: migrations 0032 and 0033 re-index a database
// written before them. Afterwards every term of the two word indexes
// carries its project, search still finds words, a two-character Chinese
// substring and an exact phrase, never in another project or subject,
// recall finds the episodes and events through the indexes, and rows
// written after the migration are indexed the same way.
func TestProjectTermsMigration(t *testing.T) {
	ctx := context.Background()
	old, path := openBefore(t, "migrations/0032")
	db := old.db
	// Projects as the code before 0032 wrote them (later migrations add
	// columns the store's CreateProject writes).
	oldProject := func(slug string) int64 {
		res, err := db.ExecContext(ctx, `INSERT INTO projects (slug, name, created_at) VALUES (?, ?, '2026-06-15T09:00:00Z')`, slug, slug)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	travel, expense := oldProject("travel"), oldProject("expense")
	ev := func(id, subject, text string) *governance.Event {
		return &governance.Event{ID: id, SessionID: "s-" + subject, SubjectID: subject, Turn: 1, Role: governance.RoleUser,
			Text: text, OccurredAt: time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)}
	}
	// Written as the code before 0032 wrote them: the row trigger indexes
	// each with unscoped terms.
	for _, e := range []struct {
		project int64
		id      string
		subject string
		text    string
	}{
		{travel, "t1", "family-1", "孩子每天下午两点到四点要午睡，以后行程都空出来"},
		{travel, "t2", "family-1", "Always run the linter before committing"},
		{travel, "t3", "family-2", "环球影城单独安排一天，午睡照旧"},
		{travel, "t4", "", "The hotel breakfast starts at seven"},
		{expense, "x1", "family-1", "午睡时间能报销吗？run the linter"},
	} {
		if _, err := db.ExecContext(ctx, `INSERT INTO events (id, project_id, session_id, subject_id, turn, role, text, occurred_at, ingested_at)
			VALUES (?, ?, ?, ?, 1, 'user', ?, '2026-06-15T09:00:00Z', '2026-06-15T09:00:00Z')`,
			e.id, e.project, "s-"+e.subject, e.subject, e.text); err != nil {
			t.Fatal(err)
		}
	}
	now := formatTime(time.Now())
	for _, e := range []struct {
		project int64
		subject string
		summary string
	}{{travel, "family-1", "Planned the nap: 午睡 every afternoon, and the terracotta tour"},
		{expense, "family-1", "Nap receipts 午睡报销 and terracotta invoices"}} {
		for i := range recall.ScanEpisodes + 1 { // more than recall offers without its index
			summary := "Small talk about the weather"
			if i == 0 {
				summary = e.summary
			}
			if _, err := db.ExecContext(ctx, `
				INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
				VALUES (?, ?, ?, ?, 1, 1, 1, 'test', ?, ?)`, e.project, fmt.Sprint("s", i), e.subject, summary, now, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, ix := range []string{"events_words", "episodes_recall"} {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO `+ix+` (`+ix+`) VALUES ('integrity-check')`); err != nil {
			t.Errorf("%s integrity-check: %v", ix, err)
		}
		if _, err := s.db.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.`+ix+`_v USING fts5vocab(main, `+ix+`, row)`); err != nil {
			t.Fatal(err)
		}
		var terms, unscoped int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE term NOT GLOB '[0-9]*_*') FROM temp.`+ix+`_v`).
			Scan(&terms, &unscoped); err != nil {
			t.Fatal(err)
		}
		if terms == 0 || unscoped != 0 {
			t.Errorf("%s: %d terms, %d without a project", ix, terms, unscoped)
		}
	}

	search := func(project int64, subject *string, q string) []string {
		t.Helper()
		hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &project, SubjectID: subject, Query: q,
			Order: governance.SearchNewest})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Event.ID)
		}
		return ids
	}
	family1 := "family-1"
	for _, tc := range []struct {
		project int64
		subject *string
		q       string
		want    string
	}{
		{travel, nil, "午睡", "[t3 t1]"},
		{travel, &family1, "午睡", "[t1]"},
		{expense, nil, "午睡", "[x1]"},
		{travel, nil, `"run the linter"`, "[t2]"},
		{travel, nil, "linters commit", "[t2]"},
		{travel, nil, "breakfast", "[t4]"},
		{expense, nil, "breakfast", "[]"},
	} {
		if got := fmtIDs(search(tc.project, tc.subject, tc.q)); got != tc.want {
			t.Errorf("search %q in project %d: got %s, want %s", tc.q, tc.project, got, tc.want)
		}
	}

	pkg, err := s.Recall(ctx, "t", governance.RecallRequest{Task: "午睡 terracotta", ProjectID: travel, SubjectID: "family-1",
		IncludeEvents: true, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	var episodes, events int
	for _, it := range pkg.Trace.Considered {
		switch it.Kind {
		case governance.RecallKindEpisode:
			if it.Score.Relevance > 0 {
				episodes++
			}
		case governance.RecallKindEvent:
			events++
		}
	}
	if episodes != 1 || events != 1 {
		t.Errorf("recall considered %d relevant episodes and %d events, want the project's and subject's 1 and 1", episodes, events)
	}

	// Written after the migration: indexed with the project's terms.
	if _, err := s.IngestEvents(ctx, expense, []*governance.Event{ev("x2", "", "环球影城的票能报销吗")}); err != nil {
		t.Fatal(err)
	}
	if got := fmtIDs(search(expense, nil, "环球")); got != "[x2]" {
		t.Errorf("search after the migration: %s", got)
	}
	if got := fmtIDs(search(travel, nil, "环球")); got != "[t3]" {
		t.Errorf("search in the other project after the migration: %s", got)
	}
}

// openBefore opens a new database migrated up to (not including) the
// migration named stop, and returns its store and path.
func openBefore(t *testing.T, stop string) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	registerFunctions()
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	old := &Store{db: db, read: &stmtCache{db: db}, path: path, Now: time.Now, writer: make(chan struct{}, 1), wal: pagescrub.NewLog(path)}
	if err := old.migrateBefore(context.Background(), stop); err != nil {
		t.Fatal(err)
	}
	return old, path
}

func fmtIDs(ids []string) string { return "[" + strings.Join(ids, " ") + "]" }
