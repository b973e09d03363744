package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
)

// TestBackupRestore: an online backup, then a forget (with its events);
// restoring the backup while replaying the forgets made after it brings
// neither the rule nor the event text back, while a restore with
// --no-replay does bring them back, as the README says. (That a forget
// leaves no bytes in the file is the store's tests' concern.)
func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	live := filepath.Join(root, "live")
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Heartbeat, cfg.LogLevel, cfg.NoDemo = live, false, "error", true
	m, err := openMain(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p := &governance.Project{Slug: "ops", Name: "ops"}
	if err := m.Store.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	if _, err := m.Store.IngestEvents(ctx, p.ID, []*governance.Event{
		{ID: "e1", SessionID: "s1", SubjectID: "u1", Turn: 1, Role: governance.RoleUser,
			Text: "From now on, always tag every release with the quokka build number.", OccurredAt: at},
		{ID: "e2", SessionID: "s1", SubjectID: "u1", Kind: governance.KindSessionEnd, OccurredAt: at.Add(time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Heartbeat.BeatProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	rules, _, err := m.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil || len(rules) != 1 || !strings.Contains(rules[0].Text, "quokka") {
		t.Fatalf("rules = %v, %v; want the quokka rule", rules, err)
	}
	ruleID := rules[0].ID

	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, args, env(nil), nil, &out, &out)
		return out.String(), err
	}
	backup := filepath.Join(root, "backup.db")
	if out, err := cli("backup", "--data", live, "--out", backup); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	// Forgotten after the backup, events and all.
	if _, err := m.App.Forget.Rule(ctx, cliActor, ruleID, true); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	t.Run("Refusals", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"restore", backup, "--data", live, "--no-replay"}, "empty data directory"},
			{[]string{"restore", backup, "--data", filepath.Join(root, "x")}, "--replay-from"},
			{[]string{"backup", "--out", filepath.Join(root, "y.db"), "--database", "postgres://h/db"}, "pg_dump"},
			{[]string{"backup", "--data", live, "--out", backup}, "exists"},
		} {
			if out, err := cli(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: err = %v, want %q\n%s", c.args, err, c.want, out)
			}
		}
	})

	// contains reports whether the restored data directory still holds the
	// forgotten text: as a rule, or in a search.
	contains := func(t *testing.T, dir string) (rule, search bool) {
		t.Helper()
		st, err := store.Open(ctx, filepath.Join(dir, "mnemo.db"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.FindRuleByID(ctx, ruleID)
		rule = err == nil && strings.Contains(r.Text, "quokka")
		_, n, err := st.SearchEvents(ctx, governance.EventFilter{ProjectID: &p.ID, Query: "quokka"})
		if err != nil {
			t.Fatal(err)
		}
		search = n > 0
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		return rule, search
	}

	t.Run("ReplayKeepsTheForget", func(t *testing.T) {
		dir := filepath.Join(root, "restored")
		out, err := cli("restore", backup, "--data", dir, "--replay-from", filepath.Join(live, "mnemo.db"))
		if err != nil || !strings.Contains(out, "replayed 1 forget") {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		if rule, search := contains(t, dir); rule || search {
			t.Fatalf("the forgotten text came back: rule %t, search %t", rule, search)
		}
	})
	t.Run("NoReplayBringsItBack", func(t *testing.T) {
		dir := filepath.Join(root, "unreplayed")
		if out, err := cli("restore", backup, "--data", dir, "--no-replay"); err != nil || !strings.Contains(out, "NOT replayed") {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		if rule, search := contains(t, dir); !rule || !search {
			t.Fatalf("without replay the backup's rule and events should be back (README): rule %t, search %t", rule, search)
		}
	})
	t.Run("OtherHistoryRefused", func(t *testing.T) {
		other := filepath.Join(root, "other")
		if _, err := cli("user", "add", "someone", "--data", other); err != nil {
			t.Fatal(err)
		}
		out, err := cli("restore", backup, "--data", filepath.Join(root, "mixed"), "--replay-from", filepath.Join(other, "mnemo.db"))
		if err == nil || !strings.Contains(err.Error(), "not an earlier state") {
			t.Fatalf("restore with another database's history: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(root, "mixed", "mnemo.db")); !os.IsNotExist(err) {
			t.Fatalf("a refused restore left a database behind: %v", err)
		}
	})
}
