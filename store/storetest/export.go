package storetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-console/mnemo/governance"
)

// NormalizeExport returns an export's records as JSON lines with what
// legitimately differs between two exports of the same memories left out:
// the time of the export, the project's slug and name, and the rule and
// candidate refs (ids of the exporting database), which become their
// ordinal positions.
func NormalizeExport(tb testing.TB, data []byte) []string {
	tb.Helper()
	var recs []*governance.ExportRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 4<<20)
	ruleRef, candRef := map[int64]int64{}, map[int64]int64{}
	for sc.Scan() {
		var r governance.ExportRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("export line %q: %v", sc.Text(), err)
		}
		switch r.Type {
		case "rule":
			ruleRef[r.Rule.Ref] = int64(len(ruleRef) + 1)
		case "candidate":
			candRef[r.Candidate.Ref] = int64(len(candRef) + 1)
		}
		recs = append(recs, &r)
	}
	var out []string
	for _, r := range recs {
		switch r.Type {
		case "project":
			r.ExportedAt, r.Project.Slug, r.Project.Name = nil, "", ""
		case "rule":
			r.Rule.Ref, r.Rule.Supersedes, r.Rule.SupersededBy = ruleRef[r.Rule.Ref], ruleRef[r.Rule.Supersedes], ruleRef[r.Rule.SupersededBy]
		case "candidate":
			c := r.Candidate
			c.Ref, c.GroupRef, c.RuleRef = candRef[c.Ref], candRef[c.GroupRef], ruleRef[c.RuleRef]
		}
		b, _ := json.Marshal(r)
		out = append(out, string(b))
	}
	return out
}

// ExportOf is project p's export from s (a subject's with subject != "").
func ExportOf(tb testing.TB, s Store, projectID int64, subject string) ([]byte, *governance.ExportStats) {
	tb.Helper()
	var opts governance.ExportOptions
	if subject != "" {
		opts.SubjectID = &subject
	}
	var buf bytes.Buffer
	stats, err := s.ExportJSONL(context.Background(), projectID, &buf, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), stats
}

// TestExportImport: an export imported into a new project exports the
// same records again; a member's export holds only their subject; a bad
// file or a taken slug writes nothing.
func TestExportImport(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	MustCreateProject(t, s, "other") // ids of the fixture differ from its refs
	f := LoadMemoryFixture(t, s, "travel")
	first, stats := ExportOf(t, s, f.Project.ID, "")
	// The forgotten rule is not exported.
	want := governance.ExportStats{Events: 8, Episodes: 2, Rules: 8, Candidates: 4, Suppressions: 1}
	if *stats != want {
		t.Fatalf("export stats = %+v, want %+v", *stats, want)
	}

	t.Run("RoundTrip", func(t *testing.T) {
		p, istats, err := s.ImportExport(ctx, bytes.NewReader(first), governance.ImportOptions{Slug: "copy", Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if *istats != want {
			t.Fatalf("import stats = %+v, want %+v", *istats, want)
		}
		second, _ := ExportOf(t, s, p.ID, "")
		if a, b := NormalizeExport(t, first), NormalizeExport(t, second); !slices.Equal(a, b) {
			t.Fatalf("the copy exports differently:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
		// Rules keep their links: the active lesson supersedes the old one.
		rules, _, err := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
		if err != nil {
			t.Fatal(err)
		}
		byText := map[string]*governance.Rule{}
		for _, r := range rules {
			byText[r.Text] = r
		}
		far, old := byText[FixtureRuleTexts[RuleFar]], byText[FixtureRuleTexts[RuleSuperseded]]
		if far == nil || old == nil || far.Supersedes != old.ID || old.SupersededBy != far.ID || far.UseCount != 3 {
			t.Fatalf("links after import: %+v / %+v", far, old)
		}
	})
	t.Run("EventsReimportable", func(t *testing.T) {
		// An export's event objects are what the ingest API accepts.
		var events []string
		for _, l := range strings.Split(strings.TrimSpace(string(first)), "\n") {
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
		if err != nil || len(parsed) != want.Events {
			t.Fatalf("event payloads do not re-import: %v (%d)", err, len(parsed))
		}
	})
	t.Run("SameRecallAndCheckpoint", func(t *testing.T) {
		p, _, err := s.ImportExport(ctx, bytes.NewReader(first), governance.ImportOptions{Slug: "copy2", Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		// The same items in the same order (the scores differ a little:
		// the forgotten rule is not exported, and the rules' corpus, which
		// relevance is relative to, is one smaller in the copy).
		strip := func(pkg *governance.RecallPackage) string {
			var parts []string
			for _, it := range pkg.Items {
				parts = append(parts, fmt.Sprintf("%s %s %v %d", it.Kind, it.Text, it.Source.SessionIDs, it.Source.EvidenceEvents))
			}
			return strings.Join(parts, "\n")
		}
		req := governance.RecallRequest{Task: "带女儿去北京玩三天，景点怎么安排", SubjectID: "family-1", Preview: true, IncludeEvents: true}
		req.ProjectID = f.Project.ID
		a, err := s.Recall(ctx, "t", req)
		if err != nil {
			t.Fatal(err)
		}
		req.ProjectID = p.ID
		b, err := s.Recall(ctx, "t", req)
		if err != nil {
			t.Fatal(err)
		}
		if strip(a) != strip(b) || a.Used != b.Used || len(a.Items) < 2 {
			t.Fatalf("recall differs:\n%s\nvs\n%s", strip(a), strip(b))
		}
		cp, err := s.FindCheckpoint(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		evs, _, _ := s.FindEvents(ctx, governance.EventFilter{ProjectID: &p.ID, SessionID: ptr("s1")})
		var e5 int64
		for _, e := range evs {
			if e.ID == "e5" {
				e5 = e.Seq
			}
		}
		if cp == 0 || cp != e5 {
			t.Fatalf("checkpoint of the copy = %d, want e5's seq %d", cp, e5)
		}
	})
	t.Run("Subject", func(t *testing.T) {
		data, stats := ExportOf(t, s, f.Project.ID, "family-2")
		if *stats != (governance.ExportStats{Events: 2, Episodes: 1, Rules: 1, Candidates: 2}) {
			t.Fatalf("family-2's export stats = %+v", *stats)
		}
		text := string(data)
		for _, leak := range []string{"family-1", "环球影城", "checkpoint", "王府井"} {
			if strings.Contains(text, leak) {
				t.Errorf("family-2's export holds %q", leak)
			}
		}
	})
	t.Run("Rejected", func(t *testing.T) {
		bad := strings.Replace(string(first), `"type":"episode"`, `"type":"nonsense"`, 1)
		var lines *governance.ImportError
		if _, _, err := s.ImportExport(ctx, strings.NewReader(bad), governance.ImportOptions{Slug: "bad"}); !errors.As(err, &lines) || lines.Lines[0].Line != 10 {
			t.Fatalf("bad line: %v, want an ImportError naming line 10", err)
		}
		if _, err := s.FindProjectBySlug(ctx, "bad"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("a rejected import left project bad: %v", err)
		}
		dangling := strings.Replace(string(first), `"after_event_id":"e5"`, `"after_event_id":"nope"`, 1)
		if _, _, err := s.ImportExport(ctx, strings.NewReader(dangling), governance.ImportOptions{Slug: "dangling"}); governance.ErrorCode(err) != governance.EINVALID {
			t.Fatalf("dangling checkpoint: %v, want EINVALID", err)
		}
		if _, err := s.FindProjectBySlug(ctx, "dangling"); governance.ErrorCode(err) != governance.ENOTFOUND {
			t.Fatalf("a rejected import left project dangling: %v", err)
		}
		if _, _, err := s.ImportExport(ctx, bytes.NewReader(first), governance.ImportOptions{Slug: "travel"}); governance.ErrorCode(err) != governance.ECONFLICT {
			t.Fatalf("taken slug: %v, want ECONFLICT", err)
		}
	})
}

// TestExportMemoryFiles: the Hermes files and the coding agents' files
// hold the usable rules of their scope only.
func TestExportMemoryFiles(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	f := LoadMemoryFixture(t, s, "travel")
	texts := func(entries []governance.HermesEntry) string {
		var out []string
		for _, e := range entries {
			out = append(out, e.Text)
		}
		return strings.Join(out, "|")
	}
	h, err := s.ExportHermes(ctx, f.Project.ID, "family-1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := texts(h.Memory.Included), FixtureRuleTexts[RuleFar]; got != want {
		t.Errorf("MEMORY.md holds %q, want %q", got, want)
	}
	user := texts(h.User.Included)
	for ref, in := range map[int64]bool{RuleNap: true, RuleCheck: true, RuleOther: false} {
		if strings.Contains(user, FixtureRuleTexts[ref]) != in {
			t.Errorf("USER.md = %q: rule %d included %v, want %v", user, ref, !in, in)
		}
	}
	files, h2, err := s.ExportAgentFiles(ctx, f.Project.ID, "family-1")
	if err != nil {
		t.Fatal(err)
	}
	if h2.Memory.Text != h.Memory.Text || h2.User.Text != h.User.Text {
		t.Errorf("agent files' Hermes export differs from ExportHermes")
	}
	var all strings.Builder
	for _, file := range files {
		fmt.Fprintln(&all, file.Block)
	}
	for ref, in := range map[int64]bool{RuleFar: true, RuleNap: true, RulePaused: false, RuleExpired: false, RuleProposed: false,
		RuleOther: false, RuleSuperseded: false} {
		if strings.Contains(all.String(), FixtureRuleTexts[ref]) != in {
			t.Errorf("agent files: rule %d included %v, want %v", ref, !in, in)
		}
	}
	if _, _, err := s.ExportAgentFiles(ctx, f.Project.ID+100, ""); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Errorf("unknown project: %v, want ENOTFOUND", err)
	}
}

// TestExportHermes: the Hermes files stay within their limits, highest
// ranked first, one separator between entries, what does not fit listed
// as omitted; another subject's and paused rules stay out.
func TestExportHermes(t *testing.T, open Opener) {
	ctx := context.Background()
	s := OpenMemory(t, open)
	var recs []governance.ExportRecord
	rule := func(ref int64, subject string, trust float64, paused bool, text string) {
		recs = append(recs, governance.ExportRecord{Type: "rule", Rule: &governance.ExportRule{Ref: ref, SubjectID: subject,
			Kind: governance.TypeLesson, Text: text, PromotionReason: governance.ReasonToolFailure, Status: governance.RuleActive,
			Version: 1, Trust: trust, Paused: paused, Fingerprint: governance.Fingerprint(text), CreatedAt: FixtureAt, UpdatedAt: FixtureAt}})
	}
	for i := range 40 {
		rule(int64(i+1), "", 0.5+float64(i)/100, false, fmt.Sprintf("项目规则 %02d：%s", i, strings.Repeat("长", 60)))
	}
	for i := range 12 {
		rule(int64(100+i), "u1", 0.8, false, fmt.Sprintf("User preference %02d %s", i, strings.Repeat("x", 100)))
	}
	rule(200, "u2", 0.8, false, "other subject")
	rule(201, "", 0.8, true, "paused rule")
	p := ImportRecords(t, s, "travel", recs...)
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
