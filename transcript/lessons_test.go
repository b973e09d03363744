package transcript_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
	"github.com/mnemo-console/mnemo/governance/readability"
	"github.com/mnemo-console/mnemo/store/sqlitetest"
	"github.com/mnemo-console/mnemo/transcript"
)

// lessonSession is one session file of testdata/lessons (see its README)
// and what a heartbeat over it proposes as a lesson: none, or one whose
// check, cause and change hold one of the alternatives of each line, and
// none of the case data in absent.
type lessonSession struct {
	file          string
	check         []string
	cause, change [][]string
	absent        []string
}

func (l lessonSession) want() bool { return l.check != nil }

var lessonSessions = []lessonSession{
	// Tool calls whose arguments say what changed, and nothing said about it.
	{file: "cc-calendar-start.jsonl", check: []string{"create_event"},
		cause: [][]string{{"ISO 8601"}}, change: [][]string{{"start"}, {"ISO 8601", "offset"}},
		absent: []string{"Nadia", "04/02", "2026-02-04", "Petrova"}},
	{file: "cc-search-filters.jsonl", check: []string{"search"},
		cause: [][]string{{"object"}}, change: [][]string{{"filters"}, {"object"}},
		absent: []string{"locale", "refund", "annual"}},
	{file: "cc-email-recipients.jsonl", check: []string{"send_email"},
		cause: [][]string{{"array"}}, change: [][]string{{"to"}, {"list", "array"}},
		absent: []string{"harbor", "invoice", "March"}},
	{file: "cc-ledger-cents.jsonl", check: []string{"request"},
		cause: [][]string{{"integer"}}, change: [][]string{{"amount"}, {"integer", "cents"}},
		absent: []string{"120", "ACC-3391", "Oakridge", "ledger.example"}},
	{file: "cc-feishu-due.jsonl", check: []string{"create_task"},
		cause: [][]string{{"Unix", "时间戳"}}, change: [][]string{{"due"}, {"Unix", "时间戳", "整数", "integer"}},
		absent: []string{"王磊", "1763107200", "下周五", "季度报表"}},
	// The change said by the assistant.
	{file: "cc-django-settings.jsonl", check: []string{"manage.py", "python", "migrate"},
		cause: [][]string{{"settings"}}, change: [][]string{{"DJANGO_SETTINGS_MODULE"}},
		absent: []string{"shop.settings.dev", "0007"}},
	{file: "cx-cargo-dependency.jsonl", check: []string{"cargo build"},
		cause: [][]string{{"unresolved import"}}, change: [][]string{{"serde_json"}, {"dependenc", "Cargo.toml"}},
		absent: []string{"invoicer", "export.rs"}},
	{file: "cx-pnpm-alias.jsonl", check: []string{"pnpm run build"},
		cause: [][]string{{"cannot find module"}}, change: [][]string{{"alias", "别名"}},
		absent: []string{"Orders.vue", "@/utils/format"}},
	// Nothing to learn: transient failures retried unchanged, fixes the
	// user made, a corrected value of the same shape, a failure never
	// fixed, a change said only as "fix".
	{file: "cc-transient-503.jsonl"},
	{file: "cx-timeout-retry.jsonl"},
	{file: "cc-rate-limit-wait.jsonl"},
	{file: "cc-user-supplies-email.jsonl"},
	{file: "cx-user-branch.jsonl"},
	{file: "cc-typo-recipient.jsonl"},
	{file: "cc-wrong-sku.jsonl"},
	{file: "cx-never-fixed.jsonl"},
	{file: "cc-generic-fix.jsonl"},
	{file: "cc-user-gives-date.jsonl"},
	{file: "cc-adjust-generic.jsonl"},
	{file: "cc-wrong-id-said.jsonl"},
	{file: "cx-rerun-transient.jsonl"},
}

// Session files as the agents write them (Claude Code transcripts with MCP
// and built-in tool calls, Codex rollouts with shell calls and patches),
// each imported into a project of its own and consolidated by one real
// heartbeat: the lessons they teach are proposed with their check, cause
// and change and no case data; the sessions that teach nothing give none.
func TestLessonSessions(t *testing.T) {
	ctx := context.Background()
	s := sqlitetest.Open(t)
	projects := map[string]int64{}
	for _, ls := range lessonSessions {
		slug := strings.TrimSuffix(ls.file, ".jsonl")
		p := &governance.Project{Slug: slug, Name: slug}
		if err := s.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		projects[ls.file] = p.ID
		res, err := transcript.ImportFile(ctx, s, "test", p.ID, filepath.Join("testdata/lessons", ls.file), transcript.Options{Subject: "dev"})
		if err != nil || res.Inserted == 0 {
			t.Fatalf("%s: %+v, %v", ls.file, res, err)
		}
	}
	now := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	hb := &consolidate.Heartbeat{Store: s, Consolidator: heuristic.NewConsolidator(nil), Idle: time.Hour, Now: func() time.Time { return now }}
	if _, err := hb.Beat(ctx, "test"); err != nil {
		t.Fatal(err)
	}
	var right, wrongNeg, expected int
	for _, ls := range lessonSessions {
		id := projects[ls.file]
		cands, _, err := s.FindCandidates(ctx, governance.CandidateFilter{ProjectID: id, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var lessons []string // held or proposed
		for _, c := range cands {
			if p := readability.Check(c.Statement); p != readability.OK || strings.Contains(c.Statement, "{") {
				t.Errorf("%s: unreadable candidate %q: %s", ls.file, c.Statement, p)
			}
			if c.Type == governance.TypeLesson {
				lessons = append(lessons, c.Statement)
			}
		}
		if !ls.want() {
			if len(lessons) > 0 {
				wrongNeg++
				t.Errorf("%s: lessons %q, want none", ls.file, lessons)
			}
			continue
		}
		expected++
		if len(lessons) != 1 {
			t.Errorf("%s: lessons %q, want one", ls.file, lessons)
			continue
		}
		l := lessons[0]
		check, cause, change := splitLesson(l)
		ok := holdsAny(check, ls.check)
		for _, alts := range ls.cause {
			ok = ok && holdsAny(cause, alts)
		}
		for _, alts := range ls.change {
			ok = ok && holdsAny(change, alts)
		}
		for _, a := range ls.absent {
			if strings.Contains(l, a) {
				ok = false
				t.Errorf("%s: lesson %q holds case data %q", ls.file, l, a)
			}
		}
		if p := readability.Check(l); p != readability.OK {
			ok = false
			t.Errorf("%s: lesson %q is not readable: %s", ls.file, l, p)
		}
		if ok {
			right++
		} else {
			t.Errorf("%s: lesson %q does not name check %v, cause %v, change %v", ls.file, l, ls.check, ls.cause, ls.change)
		}
	}
	t.Logf("lessons right %d of %d; sessions that teach nothing with a lesson %d of %d", right, expected, wrongNeg, len(lessonSessions)-expected)
}

func holdsAny(s string, alts []string) bool {
	s = strings.ToLower(s)
	for _, a := range alts {
		if strings.Contains(s, strings.ToLower(a)) {
			return true
		}
	}
	return false
}

// splitLesson cuts a lesson into its check, cause and change, in either
// language's frame.
func splitLesson(s string) (check, cause, change string) {
	if rest, ok := strings.CutPrefix(s, "When "); ok {
		check, rest, _ = strings.Cut(rest, " fails because ")
		cause, change, _ = strings.Cut(rest, ", ")
		return
	}
	check, rest, _ := strings.Cut(s, " 因“")
	cause, change, _ = strings.Cut(rest, "”未通过时，")
	return
}
