package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/store"
	"github.com/mnemo-console/mnemo/store/postgres"
	"github.com/mnemo-console/mnemo/store/postgres/postgrestest"
)

// restoreFixture is what the restore tests forget after their backup: a
// rule with the events it came from (quokka), everything about a subject
// the backup knows by its events (u2: wombat), and about a subject that is
// also a member's link (u4: kookaburra; the backup holds its key); u3
// (kiwi) is never forgotten and must stay.
type restoreFixture struct {
	project *governance.Project
	ruleID  int64
	// linksGo says the backend's subject forget removes members' links
	// to the subject (checked on the live database after its forgets).
	linksGo bool
}

// seedRestoreFixture fills m's database with the fixture's project,
// events, the rules one beat learns from them, and the member linked to u4.
func seedRestoreFixture(t *testing.T, ctx context.Context, m *Main) restoreFixture {
	t.Helper()
	p := &governance.Project{Slug: "ops", Name: "ops", AutoActivate: true} // recall serves active rules
	if err := m.Store.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	var events []*governance.Event
	for i, s := range []struct{ subject, text string }{
		{"u1", "From now on, always tag every release with the quokka build number."},
		{"u2", "From now on, always call me Captain Wombat in every reply."},
		{"u3", "From now on, always end each reply with a kiwi emoji."},
		{"u4", "From now on, always sign my letters with a kookaburra."},
	} {
		session := "s-" + s.subject
		events = append(events,
			&governance.Event{ID: "e" + s.subject, SessionID: session, SubjectID: s.subject, Turn: 1, Role: governance.RoleUser,
				Text: s.text, OccurredAt: at.Add(time.Duration(i) * time.Hour)},
			&governance.Event{ID: "end" + s.subject, SessionID: session, SubjectID: s.subject, Kind: governance.KindSessionEnd,
				OccurredAt: at.Add(time.Duration(i)*time.Hour + time.Minute)})
	}
	if _, err := m.Store.IngestEvents(ctx, p.ID, events); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Heartbeat.BeatProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	rules, _, err := m.Store.FindRules(ctx, governance.RuleFilter{ProjectID: &p.ID})
	if err != nil {
		t.Fatal(err)
	}
	fx := restoreFixture{project: p}
	for _, r := range rules {
		if strings.Contains(r.Text, "quokka") {
			fx.ruleID = r.ID
		}
	}
	if fx.ruleID == 0 {
		t.Fatalf("rules = %v; want the quokka rule", rules)
	}
	// Linking a member makes the subject's key: the backup holds it.
	member := &governance.Account{Username: "dana", PasswordHash: "x"}
	if err := m.Store.CreateAccountBy(ctx, "cli", member); err != nil {
		t.Fatal(err)
	}
	if err := m.Store.SetMembershipBy(ctx, "cli", governance.Membership{AccountID: member.ID, ProjectID: p.ID,
		Role: governance.ProjectMember, SubjectID: "u4"}); err != nil {
		t.Fatal(err)
	}
	return fx
}

// forget forgets, through the console's use cases, the rule with its
// events and the subjects u2 and u4, and checks they are gone.
func (fx *restoreFixture) forget(t *testing.T, ctx context.Context, m *Main) {
	t.Helper()
	if _, err := m.App.Forget.Rule(ctx, cliActor, fx.ruleID, true); err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"u2", "u4"} {
		if _, err := m.App.Forget.Subject(ctx, cliActor, fx.project.Slug, subject); err != nil {
			t.Fatal(err)
		}
	}
	links, err := fx.links(ctx, m.Store)
	if err != nil {
		t.Fatal(err)
	}
	fx.linksGo = links == 0
	if got := fx.leftovers(t, ctx, m.Store); len(got) > 0 {
		t.Fatalf("the live database after the forgets holds %v", got)
	}
}

// links counts the members linked to u4.
func (fx restoreFixture) links(ctx context.Context, st Store) (int, error) {
	accounts, err := st.FindAccounts(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range accounts {
		for _, ms := range a.Memberships {
			if ms.ProjectID == fx.project.ID && ms.SubjectID == "u4" {
				n++
			}
		}
	}
	return n, nil
}

// leftovers lists where st holds what the fixture forgets, or lost what it
// keeps: in rules, events, search, recall and members' links.
func (fx restoreFixture) leftovers(t *testing.T, ctx context.Context, st Store) []string {
	t.Helper()
	var found []string
	pid := fx.project.ID
	if r, err := st.FindRuleByID(ctx, fx.ruleID); err == nil && strings.Contains(r.Text, "quokka") {
		found = append(found, "the quokka rule")
	}
	rules, _, err := st.FindRules(ctx, governance.RuleFilter{ProjectID: &pid})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if strings.Contains(r.Text, "Wombat") {
			found = append(found, "a rule about u2")
		}
	}
	for _, subject := range []string{"u2", "u3", "u4"} {
		events, _, err := st.FindEvents(ctx, governance.EventFilter{ProjectID: &pid, SubjectID: &subject, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if subject != "u3" && len(events) > 0 {
			found = append(found, fmt.Sprintf("%d event(s) of %s", len(events), subject))
		}
		if subject == "u3" && len(events) == 0 {
			found = append(found, "u3's events LOST")
		}
	}
	for _, word := range []string{"quokka", "wombat", "kookaburra", "kiwi"} {
		_, n, err := st.SearchEvents(ctx, governance.EventFilter{ProjectID: &pid, Query: word})
		if err != nil {
			t.Fatal(err)
		}
		if (n > 0) != (word == "kiwi") {
			found = append(found, fmt.Sprintf("search %q: %d hit(s)", word, n))
		}
	}
	for _, subject := range []string{"u1", "u2", "u4"} {
		pkg, err := st.Recall(ctx, "test", governance.RecallRequest{ProjectID: pid, SubjectID: subject, IncludeEvents: true,
			Task:   "tag the release with the quokka build number, greet Captain Wombat, sign with a kookaburra",
			Budget: governance.Budget{Total: 4000, PerItem: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ToLower(pkg.Text)
		if strings.Contains(text, "quokka") || strings.Contains(text, "wombat") || strings.Contains(text, "kookaburra") {
			found = append(found, "recall for "+subject)
		}
	}
	if fx.linksGo {
		n, err := fx.links(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			found = append(found, "a member linked to u4")
		}
	}
	return found
}

// TestBackupRestore: an online backup, then forgets of a rule (with its
// events) and of two subjects; restoring the backup while replaying the
// forgets made after it brings none of it back, while a restore with
// --no-replay does bring it back, as the README says. (That a forget
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
	fx := seedRestoreFixture(t, ctx, m)

	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, args, env(nil), nil, &out, &out)
		return out.String(), err
	}
	backup := filepath.Join(root, "backup.db")
	if out, err := cli("backup", "--data", live, "--out", backup); err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	fx.forget(t, ctx, m)
	if !fx.linksGo {
		t.Fatal("a subject forget on SQLite left the member linked to it")
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
			{[]string{"restore", backup, "--database", "postgres://h/db", "--replay-from", "postgres://h/old"}, "pg_restore the dump"},
			{[]string{"restore", "--database", "postgres://h/db", "--no-replay"}, "pg_restore the dump"},
			{[]string{"restore", "--database", "postgres://h/db", "--replay-from", filepath.Join(live, "mnemo.db")}, "want the postgres:// URL"},
			{[]string{"restore", "--database", "postgres://h/db", "--replay-from", "postgres://h/db"}, "names the database being restored"},
			{[]string{"restore", backup, "--data", filepath.Join(root, "x"), "--replay-from", "postgres://h/old"}, "want the SQLite database file"},
		} {
			if out, err := cli(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: err = %v, want %q\n%s", c.args, err, c.want, out)
			}
		}
	})

	t.Run("HelpShowsPostgres", func(t *testing.T) {
		for _, lang := range []string{"", "zh_CN.UTF-8"} {
			var out bytes.Buffer
			err := run(ctx, []string{"restore", "--help"}, env(map[string]string{"LANG": lang}), nil, &out, &out)
			if !errors.Is(err, flag.ErrHelp) {
				t.Fatal(err)
			}
			for _, want := range []string{"restore --database NEW_URL --replay-from OLD_URL", "pg_restore", "--replay-from"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("LANG=%q restore --help: no %q in\n%s", lang, want, out.String())
				}
			}
		}
	})

	// leftovers opens the restored data directory and lists what of the
	// forgotten content it holds.
	leftovers := func(t *testing.T, dir string) []string {
		t.Helper()
		st, err := store.Open(ctx, filepath.Join(dir, "mnemo.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		return fx.leftovers(t, ctx, st)
	}

	t.Run("ReplayKeepsTheForget", func(t *testing.T) {
		dir := filepath.Join(root, "restored")
		out, err := cli("restore", backup, "--data", dir, "--replay-from", filepath.Join(live, "mnemo.db"))
		if err != nil || !strings.Contains(out, "replayed 3 forget(s) made after the backup, 0 already absent") {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		if got := leftovers(t, dir); len(got) > 0 {
			t.Fatalf("the forgotten content came back: %v\n%s", got, out)
		}
		if out, err := cli("audit", "verify", "--data", dir); err != nil {
			t.Fatalf("audit verify: %v\n%s", err, out)
		}
	})
	t.Run("NoReplayBringsItBack", func(t *testing.T) {
		dir := filepath.Join(root, "unreplayed")
		if out, err := cli("restore", backup, "--data", dir, "--no-replay"); err != nil || !strings.Contains(out, "NOT replayed") {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		got := strings.Join(leftovers(t, dir), "; ")
		for _, want := range []string{"the quokka rule", "event(s) of u2", "event(s) of u4", `search "wombat"`, `search "kookaburra"`, "recall for u2", "recall for u4", "a member linked to u4"} {
			if !strings.Contains(got, want) {
				t.Errorf("without replay the backup's %s should be back (README); found %s", want, got)
			}
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

// TestRestorePostgres: a pg_dump of a PostgreSQL database, then forgets of
// a rule (with its events) and of two subjects on it; the dump
// pg_restored into a new database and "console restore --database NEW
// --replay-from OLD" leave none of the forgotten content in the new
// database (rows, search, recall, members' links), carry the
// suppressions over, keep an audit chain that verifies, and a second run
// changes nothing. Without the replay the new database holds it all
// again, so the test proves the tool; a console connected to the new
// database makes the command refuse.
func TestRestorePostgres(t *testing.T) {
	ctx := context.Background()
	oldURL := postgrestest.NewDatabase(t)
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Database, cfg.Heartbeat, cfg.LogLevel, cfg.NoDemo = t.TempDir(), oldURL, false, "error", true
	m, err := openMain(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	fx := seedRestoreFixture(t, ctx, m)
	dump := postgrestest.Tool(t, nil, "pg_dump", "-Fc", "-d", oldURL)
	fx.forget(t, ctx, m)

	// restored pg_restores the dump into a new database.
	restored := func(t *testing.T) string {
		t.Helper()
		url := postgrestest.NewEmptyDatabase(t)
		postgrestest.Tool(t, dump, "pg_restore", "--no-owner", "--exit-on-error", "-d", url)
		return url
	}
	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(ctx, args, env(nil), nil, &out, &out)
		return out.String(), err
	}
	open := func(t *testing.T, url string) *postgres.Store { // closed at the end of t
		t.Helper()
		st, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}

	oldSups, err := open(t, oldURL).FindSuppressions(ctx)
	if err != nil || len(oldSups) == 0 {
		t.Fatalf("old suppressions = %v, %v; want the forgets'", oldSups, err)
	}

	t.Run("NoReplayBringsItBack", func(t *testing.T) {
		got := strings.Join(fx.leftovers(t, ctx, open(t, restored(t))), "; ")
		want := []string{"the quokka rule", "event(s) of u2", "event(s) of u4", `search "wombat"`, `search "kookaburra"`, "recall for u2", "recall for u4"}
		if fx.linksGo {
			want = append(want, "a member linked to u4")
		}
		for _, want := range want {
			if !strings.Contains(got, want) {
				t.Errorf("the dump restored without replay should hold %s again; found %s", want, got)
			}
		}
	})
	t.Run("Replay", func(t *testing.T) {
		newURL := restored(t)
		out, err := cli("restore", "--database", newURL, "--replay-from", oldURL)
		if err != nil || !strings.Contains(out, "3 forget(s) replayed, 0 already absent") {
			t.Fatalf("restore: %v\n%s", err, out)
		}
		// inspect checks the restored database (and closes it again: the
		// command refuses to replay onto a database in use).
		inspect := func(t *testing.T) (head int64) {
			t.Helper()
			st, err := postgres.Open(ctx, newURL)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if got := fx.leftovers(t, ctx, st); len(got) > 0 {
				t.Fatalf("the forgotten content came back: %v\n%s", got, out)
			}
			sups, err := st.FindSuppressions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, x := range sups {
				have[fmt.Sprint(x.ProjectID, x.Fingerprint, x.SubjectID)] = true
			}
			for _, x := range oldSups {
				if !have[fmt.Sprint(x.ProjectID, x.Fingerprint, x.SubjectID)] {
					t.Errorf("suppression %s (project %d, subject %q) not carried over", x.Fingerprint, x.ProjectID, x.SubjectID)
				}
			}
			v, err := st.VerifyAudit(ctx)
			if err != nil || !v.OK {
				t.Fatalf("audit of the restored database: %+v, %v", v, err)
			}
			h, err := auditHead(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			return h.ID
		}
		head := inspect(t)
		out, err = cli("restore", "--database", newURL, "--replay-from", oldURL)
		if err != nil || !strings.Contains(out, "0 forget(s) replayed, 0 already absent; 0 suppression(s)") {
			t.Fatalf("second restore: %v\n%s", err, out)
		}
		if again := inspect(t); again != head {
			t.Errorf("the second replay wrote audit rows %d..%d", head+1, again)
		}

		// OLD kept serving: a forget made there after the first replay is
		// replayed by the next run, and only that one.
		if _, err := m.App.Forget.Subject(ctx, cliActor, fx.project.Slug, "u3"); err != nil {
			t.Fatal(err)
		}
		out, err = cli("restore", "--database", newURL, "--replay-from", oldURL)
		if err != nil || !strings.Contains(out, "1 forget(s) replayed, 0 already absent") {
			t.Fatalf("third restore: %v\n%s", err, out)
		}
		st := open(t, newURL)
		if _, n, err := st.SearchEvents(ctx, governance.EventFilter{ProjectID: &fx.project.ID, Query: "kiwi"}); err != nil || n != 0 {
			t.Errorf("search kiwi after the third replay: %d hit(s), %v", n, err)
		}
	})
	t.Run("RefusedWhileAConsoleUsesIt", func(t *testing.T) {
		newURL := restored(t)
		c := cfg
		c.Database = newURL
		busy, err := openMain(ctx, c, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		if err := busy.Store.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		out, err := cli("restore", "--database", newURL, "--replay-from", oldURL)
		if err == nil || !strings.Contains(err.Error(), "other session(s) use") {
			t.Fatalf("restore onto a database a console uses: %v\n%s", err, out)
		}
	})
	t.Run("OtherHistoryRefused", func(t *testing.T) {
		other := postgrestest.NewDatabase(t)
		if _, err := cli("user", "add", "someone", "--database", other); err != nil {
			t.Fatal(err)
		}
		out, err := cli("restore", "--database", restored(t), "--replay-from", other)
		if err == nil || !strings.Contains(err.Error(), "not an earlier state") {
			t.Fatalf("restore with another database's history: %v\n%s", err, out)
		}
	})
}
