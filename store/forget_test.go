package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/tokenizer"
	"github.com/mnemo-console/mnemo/store"
)

// fileBytes checkpoints the WAL and returns the database file and whatever
// is left of its log.
func fileBytes(tb testing.TB, s *store.Store) []byte {
	tb.Helper()
	if err := s.Checkpoint(context.Background()); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(s.Path())
	if err != nil {
		tb.Fatal(err)
	}
	if wal, err := os.ReadFile(s.Path() + "-wal"); err == nil {
		b = append(b, wal...)
	}
	return b
}

// forgottenTexts gathers every text a forget of rule r (and its lines)
// must remove: the rule, its candidates and their events.
func forgottenTexts(tb testing.TB, d *demo, r *governance.Rule) []string {
	tb.Helper()
	texts := []string{r.Text}
	chain, err := d.Store.FindRuleEvidence(context.Background(), r.ID)
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range chain {
		texts = append(texts, l.Candidate.Statement)
		for _, e := range l.Events {
			texts = append(texts, e.Text)
		}
	}
	return texts
}

// reconsolidate makes the next beat read every session of the project
// again, as if it had never seen them.
func reconsolidate(tb testing.TB, d *demo) {
	tb.Helper()
	ctx := context.Background()
	for _, q := range []string{`DELETE FROM episodes WHERE project_id = ?`, `UPDATE checkpoints SET seq = 0 WHERE project_id = ?`} {
		if _, err := d.Store.DB().ExecContext(ctx, q, d.Travel.ID); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := d.Beat.Beat(ctx, "test"); err != nil {
		tb.Fatal(err)
	}
}

// learned reports whether any live rule or candidate of the project carries
// one of the fingerprints.
func learned(tb testing.TB, d *demo, fps map[string]bool) []string {
	tb.Helper()
	ctx := context.Background()
	var out []string
	rules, _, _ := d.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &d.Travel.ID,
		Statuses: []governance.RuleStatus{governance.RuleProposed, governance.RuleActive}})
	for _, r := range rules {
		if fps[governance.Fingerprint(r.Text)] {
			out = append(out, "rule: "+r.Text)
		}
	}
	cands, _, _ := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: d.Travel.ID})
	for _, c := range cands {
		if fps[c.Fingerprint] {
			out = append(out, "candidate: "+c.Statement)
		}
	}
	return out
}

func TestForgetRule(t *testing.T) {
	ctx := context.Background()
	t.Run("WithLinesLeavesNoTrace", func(t *testing.T) {
		d := MustLoadDemo(t)
		nap := d.Rule(t, "午睡")
		if _, err := d.Store.ApproveRule(ctx, "rita", nap.ID, nil); err != nil {
			t.Fatal(err)
		}
		texts := forgottenTexts(t, d, nap)
		if len(texts) < 4 {
			t.Fatalf("evidence too thin for the test: %q", texts)
		}
		for _, text := range texts {
			if !bytes.Contains(fileBytes(t, d.Store), []byte(text)) {
				t.Fatalf("precondition: %q is not in the file", text)
			}
		}
		fps := map[string]bool{}
		for _, text := range texts {
			fps[governance.Fingerprint(text)] = true
		}

		preview, err := d.Store.PreviewForgetRule(ctx, nap.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := d.Store.ForgetRule(ctx, "family-chen", nap.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		// The preview showed exactly what went.
		var pr, pc []int64
		for _, r := range preview.Rules {
			pr = append(pr, r.ID)
		}
		for _, c := range preview.Candidates {
			pc = append(pc, c.ID)
		}
		if !slices.Equal(pr, rep.RuleIDs) || !slices.Equal(pc, rep.CandidateIDs) || preview.EventCount != rep.Events {
			t.Fatalf("preview rules %v cands %v events %d; forgot %v %v %d", pr, pc, preview.EventCount, rep.RuleIDs, rep.CandidateIDs, rep.Events)
		}
		if rep.Events == 0 || rep.Suppressions == 0 || !strings.HasPrefix(rep.ContentHash, "sha256:") {
			t.Fatalf("report = %+v", rep)
		}

		r, err := d.Store.FindRuleByID(ctx, nap.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != governance.RuleForgotten || r.Text != governance.RedactedText {
			t.Fatalf("rule after forget = %s %q", r.Status, r.Text)
		}
		if vs, _ := d.Store.FindRuleVersions(ctx, nap.ID); len(vs) == 0 || vs[0].Text != governance.RedactedText {
			t.Fatalf("versions keep their text: %+v", vs)
		}
		if chain, _ := d.Store.FindRuleEvidence(ctx, nap.ID); len(chain) != 0 {
			t.Fatalf("evidence links remain: %d", len(chain))
		}

		check := func(t *testing.T) {
			file := fileBytes(t, d.Store)
			for _, text := range texts {
				if bytes.Contains(file, []byte(text)) {
					t.Errorf("%q is still in the database file", text)
				}
			}
			// Full-text search finds none of the lines.
			for _, text := range texts[1:] {
				rs := []rune(text)
				q := string(rs[:min(6, len(rs))])
				hits, _, err := d.Store.SearchEvents(ctx, governance.EventFilter{ProjectID: &d.Travel.ID, Query: q})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if strings.Contains(h.Event.Text, q) {
						t.Errorf("search %q finds event %d", q, h.Event.Seq)
					}
				}
				var n int
				// The index holds words: no row has the whole line's terms in order.
				var toks []string
				tokenizer.PhraseTokens(text, func(t string, _ int) { toks = append(toks, fmt.Sprintf("%d_%s", d.Travel.ID, t)) })
				if err := d.Store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM events_words WHERE events_words MATCH ?`,
					`terms: "`+strings.Join(toks, " ")+`"`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 0 {
					t.Errorf("the FTS index still matches %q (%d rows)", text, n)
				}
			}
		}
		t.Run("GoneFromFileAndIndex", check)

		t.Run("NotLearnedAgain", func(t *testing.T) {
			reconsolidate(t, d)
			if got := learned(t, d, fps); len(got) > 0 {
				t.Fatalf("the next beat learned it again: %q", got)
			}
			check(t)
		})

		t.Run("AuditVerifiesWithoutContent", func(t *testing.T) {
			v, err := d.Store.VerifyAudit(ctx)
			if err != nil || !v.OK {
				t.Fatalf("verify = %+v, %v", v, err)
			}
			rows, _, _ := d.Store.FindAudit(ctx, governance.AuditFilter{Action: "rule.forget"})
			if len(rows) != 1 || rows[0].Actor != "family-chen" || !strings.Contains(rows[0].Details, rep.ContentHash) {
				t.Fatalf("forget audit = %+v", rows)
			}
		})
	})

	t.Run("WithoutLinesSuppresses", func(t *testing.T) {
		d := MustLoadDemo(t)
		lesson := d.Rule(t, "单独安排一天")
		chain, _ := d.Store.FindRuleEvidence(ctx, lesson.ID)
		fps := map[string]bool{governance.Fingerprint(lesson.Text): true}
		var seqs []int64
		for _, l := range chain {
			fps[l.Candidate.Fingerprint] = true
			for _, e := range l.Events {
				seqs = append(seqs, e.Seq)
			}
		}
		rep, err := d.Store.ForgetRule(ctx, "rita", lesson.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != 0 {
			t.Fatalf("events redacted without being asked: %d", rep.Events)
		}
		for _, seq := range seqs {
			e, err := d.Store.FindEventBySeq(ctx, seq)
			if err != nil || e.Redacted {
				t.Fatalf("event %d: %+v, %v", seq, e, err)
			}
		}
		// The summaries quoted the lesson; they do no longer.
		eps, _, _ := d.Store.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: d.Travel.ID})
		for _, e := range eps {
			if strings.Contains(e.Summary, lesson.Text) {
				t.Errorf("episode %d still quotes the lesson: %s", e.ID, e.Summary)
			}
		}
		if len(rep.EpisodeIDs) == 0 {
			t.Error("no episode summary rewritten")
		}
		if !bytes.Contains(fileBytes(t, d.Store), []byte("故宫")) {
			t.Error("the forget removed unrelated content")
		}
		reconsolidate(t, d)
		if got := learned(t, d, fps); len(got) > 0 {
			t.Fatalf("the next beat learned it again: %q", got)
		}
	})

	t.Run("AlreadyForgotten", func(t *testing.T) {
		d := MustLoadDemo(t)
		nap := d.Rule(t, "午睡")
		if _, err := d.Store.ForgetRule(ctx, "rita", nap.ID, false); err != nil {
			t.Fatal(err)
		}
		_, err := d.Store.ForgetRule(ctx, "rita", nap.ID, false)
		wantCode(t, err, governance.ECONFLICT)
		_, err = d.Store.ForgetRule(ctx, "rita", 99999, false)
		wantCode(t, err, governance.ENOTFOUND)
	})

	t.Run("Bulk", func(t *testing.T) {
		d := MustLoadDemo(t)
		a, b := d.Rule(t, "午睡"), d.Rule(t, "结论")
		rep, err := d.Store.ForgetRules(ctx, "rita", []int64{a.ID, b.ID}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.AuditIDs) != 2 || !slices.Contains(rep.RuleIDs, a.ID) || !slices.Contains(rep.RuleIDs, b.ID) {
			t.Fatalf("report = %+v", rep)
		}
	})
}

func TestForgetSubject(t *testing.T) {
	ctx := context.Background()
	d := MustLoadDemo(t)
	const subject = "family-chen"
	events, _, err := d.Store.FindEvents(ctx, governance.EventFilter{ProjectID: &d.Travel.ID, SubjectID: ptr(subject)})
	if err != nil {
		t.Fatal(err)
	}
	lesson := d.Rule(t, "单独安排一天") // project-wide, but learned from this family only
	expense, _ := d.Store.FindProjectBySlug(ctx, "expense-agent")
	expenseRules, _, _ := d.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &expense.ID})

	preview, err := d.Store.PreviewForgetSubject(ctx, d.Travel.ID, subject)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(preview.SharedRuleIDs, lesson.ID) {
		t.Fatalf("shared rules = %v, want the lesson %d listed", preview.SharedRuleIDs, lesson.ID)
	}
	if preview.EventCount != len(events) || len(preview.Events) != min(len(events), governance.PreviewEventLimit) {
		t.Fatalf("preview events = %d (%d listed), want %d", preview.EventCount, len(preview.Events), len(events))
	}
	rep, err := d.Store.ForgetSubject(ctx, "admin", d.Travel.ID, subject)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != len(events) || len(rep.RuleIDs) != len(preview.Rules) || len(rep.CandidateIDs) != len(preview.Candidates) {
		t.Fatalf("report = %+v", rep)
	}

	t.Run("NothingLeft", func(t *testing.T) {
		rules, _, _ := d.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &d.Travel.ID})
		for _, r := range rules {
			if (r.SubjectID == subject || r.ID == lesson.ID) && r.Status != governance.RuleForgotten {
				t.Errorf("rule %d (%s) = %s", r.ID, r.SubjectID, r.Status)
			}
		}
		cands, _, _ := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: d.Travel.ID, SubjectID: ptr(subject)})
		if len(cands) != 0 {
			t.Errorf("%d candidates remain", len(cands))
		}
		eps, _, _ := d.Store.FindEpisodes(ctx, governance.EpisodeFilter{ProjectID: d.Travel.ID, SubjectID: ptr(subject)})
		for _, e := range eps {
			if e.Summary != governance.RedactedText {
				t.Errorf("episode %d = %q", e.ID, e.Summary)
			}
		}
		file := fileBytes(t, d.Store)
		for _, e := range events {
			if e.Text != "" && bytes.Contains(file, []byte(e.Text)) {
				t.Errorf("event %d text is still in the file", e.Seq)
			}
		}
	})
	t.Run("OtherProjectsUntouched", func(t *testing.T) {
		after, _, _ := d.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &expense.ID})
		if len(after) != len(expenseRules) {
			t.Fatalf("expense rules %d → %d", len(expenseRules), len(after))
		}
		for i := range after {
			if after[i].Text != expenseRules[i].Text || after[i].Status == governance.RuleForgotten {
				t.Errorf("expense rule %d changed", after[i].ID)
			}
		}
	})
	// The audit's keyed reference, the tombstones and a re-import:
	// storetest.TestForgetSubjectTombstones, on both stores.
}

func TestForgetCandidate(t *testing.T) {
	ctx := context.Background()
	d := MustLoadDemo(t)
	cands, _, _ := d.Store.FindCandidates(ctx, governance.CandidateFilter{ProjectID: d.Travel.ID,
		Statuses: []governance.CandidateStatus{governance.CandidateHeld}})
	var held *governance.Candidate
	for _, c := range cands {
		if strings.Contains(c.Statement, "王府井") {
			held = c
		}
	}
	if held == nil {
		t.Fatal("no held Wangfujing candidate")
	}
	rep, err := d.Store.ForgetCandidate(ctx, "family-chen", held.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.CandidateIDs, held.ID) || rep.Suppressions == 0 {
		t.Fatalf("report = %+v", rep)
	}
	_, err = d.Store.FindCandidateByID(ctx, held.ID)
	wantCode(t, err, governance.ENOTFOUND)
	reconsolidate(t, d)
	if got := learned(t, d, map[string]bool{held.Fingerprint: true}); len(got) > 0 {
		t.Fatalf("learned again: %q", got)
	}
	if bytes.Contains(fileBytes(t, d.Store), []byte(held.Statement)) {
		t.Fatal("the statement is still in the file")
	}
}

// TestForgetSubjectBulk forgets a subject large enough for the bulk path
// (the full-text indexes are rewritten once instead of term by term): no
// term of its lines is left in any index, the other subject's lines are
// still found, and every index removes deleted terms at once again.
func TestForgetSubjectBulk(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "bulk")
	var events []*governance.Event
	for i := 0; i < 1500; i++ {
		e := ev(fmt.Sprintf("b%d", i), fmt.Sprintf("s%d", i/10), i%10, governance.RoleUser,
			fmt.Sprintf("麒麟鸵鸟 Zebraquokka 第%d次出行", i))
		e.SubjectID = "bulk-user"
		events = append(events, e)
	}
	keep := ev("k1", "keep", 1, governance.RoleUser, "长颈鹿 Marmotwhistle 要留下")
	keep.SubjectID = "other"
	events = append(events, keep)
	if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	rep, err := s.ForgetSubject(ctx, "admin", p.ID, "bulk-user")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 1500 {
		t.Fatalf("redacted %d events", rep.Events)
	}
	for _, term := range []string{"zebraquokka", "麒麟", "鸵鸟"} {
		for _, table := range []string{"events_words_data", "episodes_recall_data"} {
			var n int
			if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE instr(block, ?) > 0`, []byte(term)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s still holds %q in %d blocks", table, term, n)
			}
		}
	}
	if bytes.Contains(fileBytes(t, s), []byte("Zebraquokka")) {
		t.Error("the text is still in the file")
	}
	hits, _, err := s.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "Marmotwhistle"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("the other subject's line: %d hits, %v", len(hits), err)
	}
	// The row trigger stood aside during the UPDATE (migration 0037): the
	// rebuilt index agrees with the events, and the mode is off again.
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO events_words (events_words, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("events_words after the bulk forget: %v", err)
	}
	var batch int
	if err := s.DB().QueryRowContext(ctx, `SELECT batch FROM ingest_mode WHERE id = 1`).Scan(&batch); err != nil || batch != 0 {
		t.Errorf("ingest_mode.batch = %d (%v), want 0", batch, err)
	}
	for _, table := range []string{"events_words", "episodes_recall", "rules_fts", "rules_cjk"} {
		var v string
		if err := s.DB().QueryRowContext(ctx, `SELECT v FROM `+table+`_config WHERE k = 'secure-delete'`).Scan(&v); err != nil || v != "1" {
			t.Errorf("%s secure-delete = %q (%v)", table, v, err)
		}
	}
}

// TestForgetLeavesNoIndexTerms: the contentless indexes (the rules' CJK
// pairs, recall's episode index) cannot remove a deleted row's terms on
// their own; after a forget of a rule with its lines, neither an English
// word nor a Chinese pair found only in the forgotten texts is left in the
// database file.
func TestForgetLeavesNoIndexTerms(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := &governance.Project{Slug: "ops", Name: "ops"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	if _, err := s.IngestEvents(ctx, p.ID, []*governance.Event{
		{ID: "e1", SessionID: "s1", SubjectID: "u1", Turn: 1, Role: governance.RoleUser,
			Text: "From now on, always tag every release with the quokka build number.", OccurredAt: at},
		{ID: "e2", SessionID: "s1", SubjectID: "u1", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
		{ID: "e3", SessionID: "s2", SubjectID: "u1", Turn: 1, Role: governance.RoleUser,
			Text: "以后每次发布都要写上袋鼠编号。", OccurredAt: at.Add(time.Hour)},
		{ID: "e4", SessionID: "s2", SubjectID: "u1", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Hour + time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := newHeartbeat(s, heuristic.NewExtractor()).BeatProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 2 {
		t.Fatalf("rules = %d, %v; want the two release rules", len(rules), err)
	}
	for _, w := range []string{"quokka", "袋鼠"} {
		if !bytes.Contains(fileBytes(t, s), []byte(w)) {
			t.Fatalf("precondition: %q is not in the file", w)
		}
	}
	for _, r := range rules {
		if _, err := s.ForgetRule(ctx, "u1", r.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	file := fileBytes(t, s)
	for _, w := range []string{"quokka", "袋鼠"} {
		if bytes.Contains(file, []byte(w)) {
			t.Errorf("%q is still in the database file after the forget", w)
		}
	}
}

// TestForgetDoesNotWaitForReaders: a reader still on a snapshot from
// before a forget keeps the WAL's older frames in use, so the truncation
// cannot finish. The forget neither waits for the reader (with the
// connections' busy timeout it used to hold the writer up to 10 s an
// attempt, for 20 attempts, and then fail although committed) nor leaves
// the text behind: the background scrub truncates the log once the
// reader is done.
func TestForgetDoesNotWaitForReaders(t *testing.T) {
	ctx := context.Background()
	s, p := mustSubjectSession(t, "we always pack the zebraquokka umbrella")
	reader, err := s.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.ExecContext(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM events`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("reader saw %d events, %v", n, err)
	}
	start := time.Now()
	if _, err := s.ForgetSubject(ctx, "admin", p.ID, "u1"); err != nil {
		t.Fatalf("forget with an older reader open: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the forget waited %s for an older reader", took)
	}
	if _, err := reader.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	raw := func() []byte {
		b, _ := os.ReadFile(s.Path())
		wal, _ := os.ReadFile(s.Path() + "-wal")
		return append(b, wal...)
	}
	for deadline := time.Now().Add(30 * time.Second); bytes.Contains(raw(), []byte("zebraquokka")); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the forgotten line is still in the database file or its log 30 s after the reader ended")
		}
	}
}

// mustSubjectSession opens a store with project travel and one ended
// session of subject u1 holding line.
func mustSubjectSession(t *testing.T, line string) (*store.Store, *governance.Project) {
	t.Helper()
	s := MustOpenStore(t)
	p := &governance.Project{Slug: "travel", Name: "travel"}
	if err := s.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.IngestEvents(context.Background(), p.ID, session("s1", at, true, line)); err != nil {
		t.Fatal(err)
	}
	return s, p
}
