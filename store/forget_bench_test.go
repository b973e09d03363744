package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/store"
)

// BenchmarkForgetSubject forgets "everything about me" for a subject with
// 100,000 events in 10,000 sessions (each with its episode summary), 2,000
// candidates and 400 rules (half of them project-wide rules learned only
// from this subject), next to 10,000 events of other subjects. The data is
// built once, outside the timer, and each iteration forgets in a fresh
// copy of that file. Sub-benchmarks, in the same run: Forget is
// ForgetSubject as it is (redaction, tombstones, one raise of the forget
// generation, the word index rebuilt once); RowTrigger the same with
// migration 0032's word-index update trigger put back, which re-indexes
// every changed event although the index is rebuilt after (what 0037
// changed).
//
//	go test ./store -run '^$' -bench ForgetSubject -benchtime 3x
func BenchmarkForgetSubject(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	template := filepath.Join(dir, "template")
	{
		s, err := store.Open(ctx, template)
		if err != nil {
			b.Fatal(err)
		}
		p := MustCreateProject(b, s, "big")
		start := time.Now()
		buildForgetBench(b, s, p, 100_000)
		b.Logf("built in %s", time.Since(start).Round(time.Millisecond))
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	fresh := func(b *testing.B) *store.Store {
		b.Helper()
		n++
		path := filepath.Join(dir, fmt.Sprintf("copy-%d", n))
		data, err := os.ReadFile(template)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		s, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close(); os.Remove(path) })
		return s
	}
	forget := func(b *testing.B, s *store.Store) {
		rep, err := s.ForgetSubject(ctx, "bench", 1, "user-big")
		if err != nil {
			b.Fatal(err)
		}
		if rep.Events != 100_000 || len(rep.RuleIDs) != 400 || len(rep.CandidateIDs) != 2000 {
			b.Fatalf("forgot %d events, %d rules, %d candidates", rep.Events, len(rep.RuleIDs), len(rep.CandidateIDs))
		}
	}
	b.Run("Forget", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			s := fresh(b)
			b.StartTimer()
			forget(b, s)
		}
	})
	b.Run("RowTrigger", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			s := fresh(b)
			if _, err := s.DB().ExecContext(ctx, `DROP TRIGGER events_words_update;
				CREATE TRIGGER events_words_update AFTER UPDATE OF text, project_id, subject_id ON events BEGIN
					INSERT INTO events_words (events_words, rowid, scope, terms)
					VALUES ('delete', old.seq, old.project_id || '_s' || hex(old.subject_id) || '0', mnemo_scoped_terms(old.project_id, old.text));
					INSERT INTO events_words (rowid, scope, terms)
					VALUES (new.seq, new.project_id || '_s' || hex(new.subject_id) || '0', mnemo_scoped_terms(new.project_id, new.text));
					INSERT INTO event_index_versions (project_id, version) VALUES (old.project_id, 1)
					ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
					INSERT INTO event_index_versions (project_id, version) VALUES (new.project_id, 1)
					ON CONFLICT (project_id) DO UPDATE SET version = version + 1;
				END`); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			forget(b, s)
		}
	})
}

func buildForgetBench(b *testing.B, s *store.Store, p *governance.Project, n int) {
	b.Helper()
	ctx := context.Background()
	big := seed.SyntheticEvents(n, 1)
	for _, e := range big {
		e.SubjectID = "user-big"
	}
	others := seed.SyntheticEvents(10_000, 2)
	for _, e := range others {
		e.SessionID = "o-" + e.SessionID
	}
	for _, batch := range [][]*governance.Event{big, others} {
		for len(batch) > 0 {
			k := min(len(batch), 5000)
			if _, err := s.IngestEvents(ctx, p.ID, batch[:k]); err != nil {
				b.Fatal(err)
			}
			batch = batch[k:]
		}
	}
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format(time.RFC3339)
	exec := func(q string, args ...any) int64 {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	// One episode per session of the subject.
	for k := 0; k < len(big); k += 10 {
		exec(`INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
			VALUES (?, ?, 'user-big', ?, ?, ?, 10, 'bench', ?, ?)`,
			p.ID, big[k].SessionID, "用户请求："+big[k].Text, big[k].Seq, big[k+9].Seq, now, now)
	}
	// 400 rules, five candidates each, each candidate resting on two events.
	for r := 0; r < 400; r++ {
		subject, kind := "user-big", "user_preference"
		if r%2 == 1 {
			subject, kind = "", "lesson"
		}
		text := fmt.Sprintf("规则 %d：出行安排的要求 rule %d", r, r)
		id := exec(`INSERT INTO rules (project_id, subject_id, kind, text, promotion_reason, status, version, trust, fingerprint, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'repeated_across_sessions', 'active', 1, 0.8, ?, ?, ?)`,
			p.ID, subject, kind, text, governance.Fingerprint(text), now, now)
		exec(`INSERT INTO rule_versions (rule_id, version, text, kind, actor, created_at) VALUES (?, 1, ?, ?, 'heartbeat', ?)`, id, text, kind, now)
		for c := 0; c < 5; c++ {
			e := big[(r*5+c)*40]
			stmt := fmt.Sprintf("候选 %d-%d：%s", r, c, text)
			cid := exec(`INSERT INTO candidates (project_id, session_id, subject_id, type, statement, extractor, status, group_id, rule_id, fingerprint, created_at, updated_at)
				VALUES (?, ?, 'user-big', ?, ?, 'bench', 'promoted', 0, ?, ?, ?, ?)`,
				p.ID, e.SessionID, kind, stmt, id, governance.Fingerprint(stmt), now, now)
			exec(`INSERT INTO evidence (candidate_id, event_seq) VALUES (?, ?), (?, ?)`, cid, e.Seq, cid, e.Seq+1)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if err := s.Checkpoint(ctx); err != nil {
		b.Fatal(err)
	}
}
