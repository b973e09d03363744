package postgres_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/storetest"
)

// relationFiles returns the bytes of every file of the tables a forget
// rewrites: each table (each partition of a partitioned one), its TOAST
// table, and all their indexes (every segment), read from the server's data directory after a checkpoint has
// written every dirty page out.
func relationFiles(t *testing.T, s *postgres.Store) []byte {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Pool().Exec(ctx, `CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	var dataDir string
	if err := s.Pool().QueryRow(ctx, `SHOW data_directory`).Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Pool().Query(ctx, `
		WITH named AS (SELECT c.oid FROM pg_class c
			WHERE c.relnamespace = 'public'::regnamespace
				AND c.relname = ANY(ARRAY['rules', 'rule_versions', 'candidates', 'evidence', 'episodes', 'events',
					'audit_reasons', 'eval_results', 'recall_traces'])),
		t AS (SELECT c.oid, c.reltoastrelid FROM pg_class c
			WHERE c.relkind = 'r' AND (c.oid IN (SELECT oid FROM named)
				OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent IN (SELECT oid FROM named))))
		SELECT pg_relation_filepath(r) FROM (
			SELECT oid AS r FROM t
			UNION ALL SELECT reltoastrelid FROM t WHERE reltoastrelid <> 0
			UNION ALL SELECT i.indexrelid FROM pg_index i JOIN t ON i.indrelid = t.oid OR i.indrelid = t.reltoastrelid
		) rels WHERE pg_relation_filepath(r) IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var (
		all   bytes.Buffer
		files int
	)
	for rows.Next() {
		var rel string
		if err := rows.Scan(&rel); err != nil {
			t.Fatal(err)
		}
		base := filepath.Join(dataDir, rel)
		for seg := 0; ; seg++ {
			name := base
			if seg > 0 {
				name += "." + strconv.Itoa(seg)
			}
			b, err := os.ReadFile(name)
			if os.IsNotExist(err) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			all.Write(b)
			files++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("read %d relation files; the query misses tables or indexes", files)
	}
	return all.Bytes()
}

// TestForgetLeavesNoBytes: after a forget (a rule with its events, then
// everything about a subject) no file of the affected tables, their TOAST
// tables or their indexes — the GIN indexes of the words columns included
// — holds the forgotten text or a forgotten word: the store rewrites them
// (VACUUM FULL) after the commit. With a plain VACUUM instead, this test
// finds the rule's text, the event's words and the forgotten word still
// in the files (old row bytes in reused pages, and the GIN entry tree,
// which keeps a lexeme's entry after its last row goes); with no vacuum,
// every forgotten text.
func TestForgetLeavesNoBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := MustOpenStore(t)
	f := storetest.LoadMemoryFixture(t, s, "travel")
	p := f.Project
	const secret = "zyxquokka"
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		{ID: "q1", SessionID: "s9", SubjectID: "family-3", Turn: 1, Role: governance.RoleUser,
			Text: "Our " + secret + " password hint lives in the red notebook.", OccurredAt: time.Now()},
	}); err != nil {
		t.Fatal(err)
	}
	lesson := storetest.FixtureRuleTexts[storetest.RuleFar]
	if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "rita", Action: "rule.approve", ObjectType: "rule",
		ObjectID: strconv.FormatInt(f.Rules[storetest.RuleFar], 10), ProjectID: p.ID, Reason: "keep: " + lesson}); err != nil {
		t.Fatal(err)
	}
	forgotten := []string{lesson, "故宫和环球影城排在同一天，路线太远。", "red notebook", secret}
	before := relationFiles(t, s)
	for _, text := range forgotten {
		if !bytes.Contains(before, []byte(text)) {
			t.Fatalf("precondition: %q is not in the relation files", text)
		}
	}
	files, episodes := partitionFiles(t, s, "events"), partitionFiles(t, s, "episodes")
	if _, err := s.ForgetRule(ctx, "rita", f.Rules[storetest.RuleFar], true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "family-3"); err != nil {
		t.Fatal(err)
	}
	// Only the partition of events that holds the project was rewritten:
	// the others keep their files; so do the other partitions of episodes.
	var own string
	if err := s.Pool().QueryRow(ctx, `SELECT tableoid::regclass::text FROM events WHERE project_id = $1 LIMIT 1`, p.ID).Scan(&own); err != nil {
		t.Fatal(err)
	}
	for part, file := range partitionFiles(t, s, "events") {
		if rewritten := file != files[part]; rewritten != (part == own) {
			t.Errorf("events partition %s: rewritten %v, holds the project %v", part, rewritten, part == own)
		}
	}
	if err := s.Pool().QueryRow(ctx, `SELECT tableoid::regclass::text FROM episodes WHERE project_id = $1 LIMIT 1`, p.ID).Scan(&own); err != nil {
		t.Fatal(err)
	}
	for part, file := range partitionFiles(t, s, "episodes") {
		if file != episodes[part] && part != own {
			t.Errorf("episodes partition %s of other projects was rewritten", part)
		}
	}
	after := relationFiles(t, s)
	for _, text := range forgotten {
		if bytes.Contains(after, []byte(text)) {
			t.Errorf("%q is still in a relation file after the forget", text)
		}
	}
	// Unrelated memories are still there: the files were read, not emptied.
	if !bytes.Contains(after, []byte(storetest.FixtureRuleTexts[storetest.RuleNap])) {
		t.Error("an unrelated rule is missing from the relation files")
	}
}

// partitionFiles returns the file of each partition of table, by partition.
func partitionFiles(t *testing.T, s *postgres.Store, table string) map[string]string {
	t.Helper()
	rows, err := s.Pool().Query(context.Background(), `SELECT inhrelid::regclass::text, pg_relation_filepath(inhrelid)
		FROM pg_inherits WHERE inhparent = $1::regclass`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	files := map[string]string{}
	for rows.Next() {
		var part, file string
		if err := rows.Scan(&part, &file); err != nil {
			t.Fatal(err)
		}
		files[part] = file
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("%s has %d partitions", table, len(files))
	}
	return files
}
