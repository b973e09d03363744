package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// exportFixture fills a project with events, an episode, rules (one
// superseded by another), candidates with evidence, a suppression and a
// checkpoint, all through SQL or the ingest path.
func exportFixture(t *testing.T, s *store.Store, slug string) *governance.Project {
	t.Helper()
	ctx := context.Background()
	p := MustCreateProject(t, s, slug)
	at := time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC)
	var events []*governance.Event
	for i, text := range []string{"帮我规划北京三日游，女儿五岁。", "故宫和环球影城排在同一天。", "FAILED", "以后每天 14:00–16:00 留给孩子午睡。"} {
		e := &governance.Event{ID: fmt.Sprintf("e%d", i+1), SessionID: "s1", SubjectID: "family-1", Turn: i + 1,
			Role: governance.RoleUser, Text: text, OccurredAt: at.Add(time.Duration(i) * time.Minute)}
		if text == "FAILED" {
			e.Role, e.Tool, e.Status, e.Text = governance.RoleTool, "route_checker", governance.StatusFailed, `{"ok":false}`
		}
		events = append(events, e)
	}
	events = append(events, &governance.Event{ID: "e5", SessionID: "s1", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Hour)})
	if _, err := s.IngestEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) int64 {
		t.Helper()
		res, err := s.DB().ExecContext(ctx, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	now := at.Format(time.RFC3339)
	exec(`INSERT INTO episodes (project_id, session_id, subject_id, summary, first_seq, last_seq, event_count, extractor, created_at, updated_at)
		VALUES (?, 's1', 'family-1', '北京三日游：路线检查失败后重排。', ?, ?, 4, 'test', ?, ?)`, p.ID, events[0].Seq, events[4].Seq, now, now)
	old := MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Text: "每天最多三个景点。"})
	lesson := MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Text: "远距离的大型景点单独安排一天。"})
	nap := MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Subject: "family-1", Kind: governance.TypePreference,
		Reason: governance.ReasonExplicit, Text: "每天 14:00–16:00 留给孩子午睡。"})
	exec(`UPDATE rules SET status = 'superseded', superseded_by = ? WHERE id = ?`, lesson, old)
	exec(`UPDATE rules SET supersedes = ?, use_count = 3 WHERE id = ?`, old, lesson)
	for _, id := range []int64{old, lesson, nap} {
		exec(`INSERT INTO rule_versions (rule_id, version, text, kind, actor, reason, created_at) SELECT id, 1, text, kind, 'heartbeat', 'x', ? FROM rules WHERE id = ?`, now, id)
	}
	c1 := exec(`INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, group_id, rule_id, fingerprint, created_at, updated_at)
		VALUES (?, 's1', 'family-1', 'lesson', '远距离的大型景点单独安排一天。', 0, 'test', 'promoted', 0, ?, 'fp1', ?, ?)`, p.ID, lesson, now, now)
	c2 := exec(`INSERT INTO candidates (project_id, session_id, subject_id, type, statement, durable, extractor, status, group_id, rule_id, fingerprint, created_at, updated_at)
		VALUES (?, 's1', 'family-1', 'user_preference', '每天 14:00–16:00 留给孩子午睡。', 1, 'test', 'promoted', 0, ?, 'fp2', ?, ?)`, p.ID, nap, now, now)
	exec(`UPDATE candidates SET group_id = ? WHERE id IN (?, ?)`, c1, c1, c2)
	exec(`INSERT INTO evidence (candidate_id, event_seq) VALUES (?, ?), (?, ?), (?, ?)`, c1, events[1].Seq, c1, events[2].Seq, c2, events[3].Seq)
	exec(`INSERT INTO suppressions (project_id, fingerprint, subject_id, created_at) VALUES (?, 'forgotten-fp', 'family-1', ?)`, p.ID, now)
	exec(`INSERT INTO checkpoints (project_id, seq, updated_at) VALUES (?, ?, ?)`, p.ID, events[4].Seq, now)
	return p
}

// ruleShape is what must survive an export and import.
func ruleShape(t *testing.T, s *store.Store, projectID int64) []string {
	t.Helper()
	rules, _, err := s.FindRules(context.Background(), governance.RuleFilter{ProjectID: &projectID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rules {
		ev, err := s.FindRuleEvidence(context.Background(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		var evids []string
		for _, l := range ev {
			for _, e := range l.Events {
				evids = append(evids, e.ID)
			}
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s|%.2f|sup=%v|by=%v|use=%d|ev=%v",
			r.Text, r.Kind, r.Status, r.SubjectID, r.PromotionReason, r.Trust, r.Supersedes != 0, r.SupersededBy != 0, r.UseCount, evids))
	}
	return out
}

func TestExportImport(t *testing.T) {
	ctx := context.Background()
	src := MustOpenStore(t)
	MustCreateProject(t, src, "other") // so ids and seqs differ between the two databases
	p := exportFixture(t, src, "travel")

	var buf bytes.Buffer
	stats, err := src.ExportJSONL(ctx, p.ID, &buf, governance.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *stats, (governance.ExportStats{Events: 5, Episodes: 1, Rules: 3, Candidates: 2, Suppressions: 1}); got != want {
		t.Fatalf("stats = %+v, want %+v", got, want)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.Contains(lines[0], `"format":"mnemo-export/1"`) || !strings.Contains(lines[len(lines)-1], `"after_event_id":"e5"`) {
		t.Fatalf("export:\n%s", buf.String())
	}

	t.Run("EventsReimportable", func(t *testing.T) {
		var events []string
		for _, l := range lines {
			var rec struct {
				Type  string          `json:"type"`
				Event json.RawMessage `json:"event"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Type == "event" {
				events = append(events, string(rec.Event))
			}
		}
		parsed, err := governance.ParseEventsJSONL(strings.NewReader(strings.Join(events, "\n")))
		if err != nil || len(parsed) != 5 {
			t.Fatalf("event payloads do not re-import: %v (%d)", err, len(parsed))
		}
	})

	dst := MustOpenStore(t)
	MustCreateProject(t, dst, "a")
	MustCreateProject(t, dst, "b")
	np, istats, err := dst.ImportExport(ctx, bytes.NewReader(buf.Bytes()), governance.ImportOptions{Actor: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if *istats != *stats || np.Slug != "travel" {
		t.Fatalf("import stats = %+v, project %+v", istats, np)
	}

	t.Run("SameRules", func(t *testing.T) {
		got, want := ruleShape(t, dst, np.ID), ruleShape(t, src, p.ID)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("rules after import:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("SameRecall", func(t *testing.T) {
		src.Now = func() time.Time { return time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC) }
		dst.Now = src.Now
		req := governance.RecallRequest{Task: "带女儿去上海玩两天", SubjectID: "family-1", Preview: true}
		req.ProjectID = p.ID
		a, err := src.Recall(ctx, "t", req)
		if err != nil {
			t.Fatal(err)
		}
		req.ProjectID = np.ID
		b, err := dst.Recall(ctx, "t", req)
		if err != nil {
			t.Fatal(err)
		}
		strip := func(pkg *governance.RecallPackage) string {
			var parts []string
			for _, it := range pkg.Items {
				parts = append(parts, fmt.Sprintf("%s %s %.3f %v", it.Kind, it.Text, it.Score, it.Source.SessionIDs))
			}
			return strings.Join(parts, "\n")
		}
		if strip(a) != strip(b) || a.Used != b.Used || len(a.Items) != 2 {
			t.Fatalf("recall differs:\n%s\nvs\n%s", strip(a), strip(b))
		}
	})
	t.Run("CheckpointAndSuppression", func(t *testing.T) {
		cp, err := dst.FindCheckpoint(ctx, np.ID)
		if err != nil {
			t.Fatal(err)
		}
		var last int64
		if err := dst.DB().QueryRowContext(ctx, `SELECT MAX(seq) FROM events WHERE project_id = ?`, np.ID).Scan(&last); err != nil || cp != last {
			t.Fatalf("checkpoint %d, last seq %d, %v", cp, last, err)
		}
		var n int
		dst.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM suppressions WHERE project_id = ? AND fingerprint = 'forgotten-fp'`, np.ID).Scan(&n)
		if n != 1 {
			t.Fatal("suppression not imported")
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		_, _, err := dst.ImportExport(ctx, bytes.NewReader(buf.Bytes()), governance.ImportOptions{})
		if governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrBadLineWritesNothing", func(t *testing.T) {
		bad := strings.Replace(buf.String(), `{"type":"episode"`, `{"type":"episodes"`, 1)
		_, _, err := dst.ImportExport(ctx, strings.NewReader(bad), governance.ImportOptions{Slug: "travel-2"})
		var ie *governance.ImportError
		if !errors.As(err, &ie) || ie.Lines[0].Line != 7 {
			t.Fatalf("err = %v", err)
		}
		if _, err := dst.FindProjectBySlug(ctx, "travel-2"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("project created despite bad file: %v", err)
		}
	})
	t.Run("SubjectOnly", func(t *testing.T) {
		for subject, want := range map[string]governance.ExportStats{
			"family-1": {Events: 4, Episodes: 1, Rules: 1, Candidates: 2, Suppressions: 1},
			"family-2": {},
		} {
			var out bytes.Buffer
			stats, err := src.ExportJSONL(ctx, p.ID, &out, governance.ExportOptions{SubjectID: &subject})
			if err != nil {
				t.Fatal(err)
			}
			if *stats != want {
				t.Errorf("%s: stats %+v, want %+v", subject, *stats, want)
			}
			if strings.Contains(out.String(), "checkpoint") {
				t.Errorf("%s: a subject export carries the checkpoint", subject)
			}
		}
	})
}

func TestExportHermes(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	p := MustCreateProject(t, s, "travel")
	for i := range 40 {
		MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Trust: 0.5 + float64(i)/100,
			Text: fmt.Sprintf("项目规则 %02d：%s", i, strings.Repeat("长", 60))})
	}
	for i := range 12 {
		MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Subject: "u1", Kind: governance.TypePreference,
			Text: fmt.Sprintf("User preference %02d %s", i, strings.Repeat("x", 100))})
	}
	MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Subject: "u2", Kind: governance.TypePreference, Text: "other subject"})
	MustInsertRecallRule(t, s, recallRuleRow{Project: p.ID, Paused: true, Text: "paused rule"})
	h, err := s.ExportHermes(ctx, p.ID, "u1")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		file  governance.HermesFile
		limit int
		total int
	}{{h.Memory, 2200, 40}, {h.User, 1375, 12}} {
		if n := utf8.RuneCountInString(f.file.Text); n > f.limit || n != f.file.Used {
			t.Errorf("%s: %d runes (used %d), limit %d", f.file.Name, n, f.file.Used, f.limit)
		}
		if len(f.file.Included)+len(f.file.Omitted) != f.total || len(f.file.Omitted) == 0 {
			t.Errorf("%s: %d included + %d omitted, want %d with some omitted", f.file.Name, len(f.file.Included), len(f.file.Omitted), f.total)
		}
		if got := strings.Count(f.file.Text, governance.HermesSeparator); got != len(f.file.Included)-1 {
			t.Errorf("%s: %d separators for %d entries", f.file.Name, got, len(f.file.Included))
		}
		for i := 1; i < len(f.file.Included); i++ {
			if f.file.Included[i].Score > f.file.Included[i-1].Score {
				t.Errorf("%s: not highest-ranked first", f.file.Name)
			}
		}
	}
	if !strings.HasPrefix(h.Memory.Text, "项目规则 39") {
		t.Errorf("MEMORY.md does not start with the most trusted rule: %.20s", h.Memory.Text)
	}
	if strings.Contains(h.User.Text, "other subject") || strings.Contains(h.Memory.Text, "paused") {
		t.Error("USER.md holds another subject's rule or MEMORY.md a paused one")
	}
}
