package postgres_test

import (
	"bytes"
	"context"
	"math"
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
					'embeddings', 'audit', 'audit_reasons', 'eval_results', 'recall_traces', 'sessions', 'suppressions',
					'subject_keys', 'memberships'])),
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
// every forgotten text. Nor do the vectors of the forgotten rule, episodes
// and events remain (the triggers of migration 0017 delete them; the
// embeddings table is rewritten too), nor the subject's plain id: not in
// its membership (removed) nor in an audit row written before keyed
// references (re-chained, and the audit rewritten).
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
	// The subject's member account, and a row as the audit held it before
	// keyed references (migration 0014): the plain id in its details.
	member := &governance.Account{Username: "member-of-3", PasswordHash: "x"}
	if err := s.CreateAccount(ctx, member); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMembershipBy(ctx, "admin", governance.Membership{AccountID: member.ID, ProjectID: p.ID,
		Role: governance.ProjectMember, SubjectID: "family-3"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendAudit(ctx, &governance.AuditEntry{Actor: "admin", Action: "membership.set", ObjectType: "account",
		ObjectID: "member-of-3", ProjectID: p.ID, Details: `{"role":"member","subject":"family-3"}`}); err != nil {
		t.Fatal(err)
	}
	vectors := embedAll(t, s, p.ID)
	var secretSeq int64
	if err := s.Pool().QueryRow(ctx, `SELECT seq FROM events WHERE project_id = $1 AND id = 'q1'`, p.ID).Scan(&secretSeq); err != nil {
		t.Fatal(err)
	}
	forgotten := []string{lesson, "故宫和环球影城排在同一天，路线太远。", "red notebook", secret, "family-3"}
	before := relationFiles(t, s)
	for _, text := range forgotten {
		if !bytes.Contains(before, []byte(text)) {
			t.Fatalf("precondition: %q is not in the relation files", text)
		}
	}
	for item, vec := range vectors {
		if !bytes.Contains(before, vec) {
			t.Fatalf("precondition: the vector of %s is not in the relation files", item)
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
	// The forgotten memories' vectors went (their rows and their bytes);
	// the others' stay.
	kept := map[string]bool{}
	rows, err := s.Pool().Query(ctx, `SELECT kind || ':' || item_id FROM embeddings`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var item string
		if err := rows.Scan(&item); err != nil {
			t.Fatal(err)
		}
		kept[item] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	gone := 0
	for item, vec := range vectors {
		switch {
		case kept[item] && !bytes.Contains(after, vec):
			t.Errorf("the vector of %s, kept, is not in the relation files", item)
		case !kept[item]:
			gone++
			if bytes.Contains(after, vec) {
				t.Errorf("the vector of %s, forgotten, is still in a relation file", item)
			}
		}
	}
	for _, item := range []string{"rule:" + strconv.FormatInt(f.Rules[storetest.RuleFar], 10), "event:" + strconv.FormatInt(secretSeq, 10)} {
		if _, ok := vectors[item]; !ok || kept[item] {
			t.Errorf("%s was forgotten but keeps its vector", item)
		}
	}
	if gone == 0 || gone == len(vectors) {
		t.Errorf("%d of %d vectors went; want the forgotten memories' only", gone, len(vectors))
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

// embedAll stores a vector for every memory of the project the backfill
// would embed (rules, episodes, message events), each of its own
// direction, and returns their stored bytes by "kind:id".
func embedAll(t *testing.T, s *postgres.Store, projectID int64) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	b, err := s.PendingEmbeddings(ctx, projectID, "fake-embed", 1000)
	if err != nil {
		t.Fatal(err)
	}
	vectors := make([][]float32, len(b.Items))
	for i := range vectors {
		vectors[i] = make([]float32, 16)
		for j := range vectors[i] {
			vectors[i][j] = float32(math.Sin(float64(i*16+j) * 1.7))
		}
	}
	if err := s.SaveEmbeddings(ctx, b, vectors); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	rows, err := s.Pool().Query(ctx, `SELECT kind || ':' || item_id, vector FROM embeddings WHERE project_id = $1`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			item string
			vec  []byte
		)
		if err := rows.Scan(&item, &vec); err != nil {
			t.Fatal(err)
		}
		out[item] = vec
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(b.Items) || len(out) < 3 {
		t.Fatalf("stored %d vectors for %d items", len(out), len(b.Items))
	}
	return out
}
