package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/consolidate"
	"github.com/mnemo-console/mnemo/governance/heuristic"
)

// correctionCase is one scenario of the correction batch: a standing
// instruction a reviewer approved, then a later session that corrects it
// (want: what the replacement says) or does not (want "-").
type correctionCase struct {
	name, lang, rule, later, want string
	plain                         bool // worded without a durability word
}

// readCorrections reads the offline extractor's correction batch
// (governance/heuristic/testdata/corrections.tsv).
func readCorrections(tb testing.TB) []correctionCase {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("no source path for the correction batch")
	}
	path := filepath.Join(filepath.Dir(file), "..", "..", "governance", "heuristic", "testdata", "corrections.tsv")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []correctionCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 6 {
			tb.Fatalf("%s: %d columns, want 6: %q", path, len(cols), line)
		}
		out = append(out, correctionCase{name: cols[0], lang: cols[1], plain: cols[2] == "plain", rule: cols[3], later: cols[4], want: cols[5]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestHeartbeatCorrectionBatch: through the heartbeat with the offline
// consolidator, every correction of the batch (half worded without any
// durability word: "actually make that 30, not 50", "we moved it to 9:30",
// 改周二, 换成…) is proposed as the approved rule's replacement carrying the
// new value, the rule gains no evidence from it, and a later one-off,
// report or question about the same rule replaces nothing.
func TestHeartbeatCorrectionBatch(t *testing.T, open Opener) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	cases := readCorrections(t)
	if len(cases) < 16 {
		t.Fatalf("the correction batch holds %d scenarios, want at least 16", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.lang+"/"+tc.name, func(t *testing.T) {
			s := OpenMemory(t, open)
			p := MustCreateProject(t, s, "support")
			hb := &consolidate.Heartbeat{Store: s, Idle: time.Hour, Consolidator: heuristic.NewConsolidator(nil)}
			if _, err := s.IngestEvents(ctx, p.ID, Session("s1", now.Add(-48*time.Hour), true, tc.rule)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			first, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			if len(first) != 1 {
				t.Fatalf("rules after the first beat = %d, want 1", len(first))
			}
			activate(t, s, first[0])
			if _, err := s.IngestEvents(ctx, p.ID, Session("s2", now.Add(-24*time.Hour), true, tc.later)); err != nil {
				t.Fatal(err)
			}
			if _, err := hb.Beat(ctx, "test"); err != nil {
				t.Fatal(err)
			}
			rules, _, _ := s.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
			var texts []string
			var replacement *governance.Rule
			for _, r := range rules {
				texts = append(texts, fmt.Sprintf("%q (%s, supersedes %d)", r.Text, r.Status, r.Supersedes))
				if r.Supersedes == first[0].ID {
					replacement = r
				}
			}
			if tc.want == "-" {
				if replacement != nil {
					t.Fatalf("rules %s: %q is no correction, want no replacement", strings.Join(texts, "; "), tc.later)
				}
				return
			}
			if replacement == nil || !strings.Contains(replacement.Text, tc.want) {
				t.Fatalf("rules %s, want a replacement of rule %d that says %q", strings.Join(texts, "; "), first[0].ID, tc.want)
			}
			if replacement.Status != governance.RuleProposed {
				t.Fatalf("replacement %s, want proposed", replacement.Status)
			}
			if old, _ := s.FindRuleByID(ctx, first[0].ID); old == nil || old.Status != governance.RuleActive {
				t.Fatalf("the corrected rule is no longer active before review")
			}
			if links, _ := s.FindRuleEvidence(ctx, first[0].ID); len(links) != 1 {
				t.Fatalf("the corrected rule gained evidence from the correction: %d links", len(links))
			}
		})
	}
}
