package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/agentfile"
	"github.com/mnemo-console/mnemo/seed"
	"github.com/mnemo-console/mnemo/transcript"
)

// cliActor is the actor of the command line's use cases: an administrator
// named "cli" in audit rows (the CLI runs with the database's owner's
// rights).
var cliActor = governance.AccountActor(&governance.Account{Username: "cli", IsAdmin: true})

// user runs "console user add|passwd|list".
func (e *cmdEnv) user(args []string) error {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	fs, cfg, envErr := e.flags("user "+sub, "user add NAME [--admin] [--reviewer PROJECT] [--member PROJECT --subject ID] | user passwd NAME | user list")
	admin := fs.Bool("admin", false, "make the account an admin")
	reviewer := fs.String("reviewer", "", "make the account a reviewer of this project (slug)")
	member := fs.String("member", "", "make the account a member of this project (slug), linked to --subject")
	subject := fs.String("subject", "", "the subject id a member is linked to")
	fromStdin := fs.Bool("password-stdin", false, "read the password from standard input instead of generating one")
	m, pos, err := e.open(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	defer m.Close()
	st := m.Store
	password := func() (string, bool, error) {
		if *fromStdin {
			line, err := bufio.NewReader(e.stdin).ReadString('\n')
			if err != nil && line == "" {
				return "", false, errorf("read password: %v", err)
			}
			pw := strings.TrimRight(line, "\r\n")
			if len(pw) < 8 {
				return "", false, e.fail("the password must have at least 8 characters")
			}
			return pw, false, nil
		}
		return auth.GeneratePassword(), true, nil
	}
	switch sub {
	case "list":
		accounts, err := st.FindAccounts(e.ctx)
		if err != nil {
			return err
		}
		rows := [][]string{strings.Split(e.loc.Phrase("USERNAME\tROLE\tPROJECTS"), "\t")}
		for _, a := range accounts {
			var ps []string
			for _, ms := range a.Memberships {
				p := ms.ProjectSlug + ":" + e.loc.Enum("account_role", string(ms.Role))
				if ms.SubjectID != "" {
					p += "(" + ms.SubjectID + ")"
				}
				ps = append(ps, p)
			}
			rows = append(rows, []string{a.Username, e.loc.Enum("account_role", a.RoleName()), strings.Join(ps, ", ")})
		}
		return table(e.stdout, rows)
	case "add":
		if len(pos) != 1 {
			fs.Usage()
			return e.fail("user add needs exactly one NAME")
		}
		if err := app.ValidUsername(pos[0]); err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
		a := &governance.Account{Username: pos[0], IsAdmin: *admin}
		if *reviewer != "" {
			p, err := st.FindProjectBySlug(e.ctx, *reviewer)
			if err != nil {
				return e.fail("--reviewer %s: %s", *reviewer, e.loc.ErrorMessage(err))
			}
			a.Memberships = append(a.Memberships, governance.Membership{ProjectID: p.ID, Role: governance.ProjectReviewer})
		}
		if *member != "" {
			p, err := st.FindProjectBySlug(e.ctx, *member)
			if err != nil {
				return e.fail("--member %s: %s", *member, e.loc.ErrorMessage(err))
			}
			if *subject == "" {
				return e.fail("--member needs --subject")
			}
			a.Memberships = append(a.Memberships, governance.Membership{ProjectID: p.ID, Role: governance.ProjectMember, SubjectID: *subject})
		}
		pw, generated, err := password()
		if err != nil {
			return err
		}
		if a.PasswordHash, err = auth.HashPassword(pw); err != nil {
			return err
		}
		if err := st.CreateAccount(e.ctx, a); err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
		if err := st.AppendAudit(e.ctx, &governance.AuditEntry{Actor: "cli", Action: "account.create", ObjectType: "account", ObjectID: a.Username}); err != nil {
			return err
		}
		e.say(e.stdout, "Created %s (%s).", a.Username, a.RoleName())
		if generated {
			e.say(e.stdout, "Password (shown once): %s", pw)
		}
		return nil
	case "passwd":
		if len(pos) != 1 {
			fs.Usage()
			return e.fail("user passwd needs exactly one NAME")
		}
		a, err := st.FindAccountByUsername(e.ctx, pos[0])
		if err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
		pw, generated, err := password()
		if err != nil {
			return err
		}
		hash, err := auth.HashPassword(pw)
		if err != nil {
			return err
		}
		if err := st.SetPasswordHash(e.ctx, a.ID, hash); err != nil {
			return err
		}
		if err := st.AppendAudit(e.ctx, &governance.AuditEntry{Actor: "cli", Action: "account.passwd", ObjectType: "account", ObjectID: a.Username}); err != nil {
			return err
		}
		e.say(e.stdout, "Changed the password of %s.", a.Username)
		if generated {
			e.say(e.stdout, "Password (shown once): %s", pw)
		}
		return nil
	}
	fs.Usage()
	return e.fail("unknown user command %q (want add, passwd or list)", sub)
}

// importEvents runs "console import FILE --project SLUG [--format F]".
func (e *cmdEnv) importEvents(args []string) error {
	fs, cfg, envErr := e.flags("import", "import FILE --project SLUG [--format auto|"+formatNames()+"] [--skip-malformed] [--subject ID]")
	project := fs.String("project", "", "project slug to import into (required, except for seed files, whose project_id selects it)")
	create := fs.Bool("create", false, "create the project if it does not exist")
	full := fs.Bool("export", false, "FILE is a full project export (console export): restore it as a new project (--project renames it)")
	formatName := fs.String("format", "auto", "")
	e.textHelp(fs, "format", governance.Say("source format: auto detects it; %s", formatNames()))
	skip := fs.Bool("skip-malformed", false, "skip malformed lines and list them (default: a file with any malformed line is rejected whole)")
	subject := fs.String("subject", "", "subject id for events whose source names none")
	pos, err := e.parse(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	if len(pos) == 1 && *full {
		return e.importExport(*cfg, pos[0], *project)
	}
	format, err := transcript.ParseFormat(*formatName)
	if err != nil {
		return errors.New(e.loc.ErrorMessage(err))
	}
	if len(pos) != 1 {
		fs.Usage()
		return e.fail("import needs FILE and --project")
	}
	slug := *project
	if slug == "" {
		slug = seedProject(pos[0], format)
	}
	if slug == "" {
		fs.Usage()
		return e.fail("import needs FILE and --project")
	}
	if *create {
		if err := governance.ValidateSlug(slug); err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	opts := transcript.Options{Format: format, Name: pos[0], Project: slug, Subject: *subject, SkipMalformed: *skip}
	rejected := func(rep *transcript.Report, err error) error {
		var ie *governance.ImportError
		if !errors.As(err, &ie) {
			return errors.New(e.loc.ErrorMessage(err))
		}
		e.importError(pos[0], ie)
		if rep != nil && rep.MalformedCount > len(rep.Malformed) {
			e.say(e.stderr, "(%d malformed lines in all; the first %d are listed)", rep.MalformedCount, len(rep.Malformed))
		}
		if !*skip {
			e.say(e.stderr, "Use --skip-malformed to import the good lines and list the bad ones.")
		}
		return errSilent
	}
	p, err := m.Store.FindProjectBySlug(e.ctx, slug)
	if governance.ErrorCode(err) == governance.ENOTFOUND && *create {
		// Read the file once before creating the project, so that a
		// rejected file leaves no empty project behind.
		if rep, err := transcript.ParseFile(e.ctx, pos[0], opts, func(*governance.Event) error { return nil }); err != nil {
			return rejected(rep, err)
		}
		p = &governance.Project{Slug: slug, Name: slug}
		err = m.Store.CreateProject(e.ctx, p)
	}
	if err != nil {
		return e.fail("project %s: %s (use --create to create it)", slug, e.loc.ErrorMessage(err))
	}
	res, err := m.App.Imports.TranscriptFile(e.ctx, cliActor, p.ID, pos[0], opts)
	if err != nil {
		if res != nil {
			return rejected(&res.Report, err)
		}
		return rejected(nil, err)
	}
	e.say(e.stdout, "Imported %d event(s) into %s from %s (%s); skipped %d already present, %d line(s) ignored on purpose.",
		res.Inserted, p.Slug, pos[0], res.Format, res.Skipped, res.Ignored)
	if res.Cleaned > 0 {
		e.say(e.stdout, "Read terminal control sequences in %d event(s): the text kept is what the terminal showed.", res.Cleaned)
	}
	if res.MalformedCount > 0 {
		e.say(e.stdout, "Skipped %d malformed line(s):", res.MalformedCount)
		for _, l := range res.Malformed {
			e.say(e.stdout, "  line %d: %s", l.Line, e.phrases(l.Sentences()))
		}
	}
	if res.Clipped > 0 {
		e.say(e.stdout, "%d text(s) longer than %d KiB were cut to it: line(s) %s", res.Clipped, governance.MaxEventTextBytes>>10, transcript.LineList(res.ClippedLines))
	}
	return nil
}

// formatNames lists the import formats for usage texts.
func formatNames() string {
	var names []string
	for _, f := range transcript.Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, "|")
}

// seedProject reads the project_id a seed-format file names, when the
// format is (or may be) seed; "" otherwise.
func seedProject(path string, format transcript.Format) string {
	if format != transcript.FormatAuto && format != transcript.FormatSeed {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if format == transcript.FormatAuto {
		if detected, err := transcript.Detect(br); err != nil || detected != transcript.FormatSeed {
			return ""
		}
	}
	return transcript.PeekProject(br)
}

// sync runs "console sync --project P --to DIR": it writes the project's
// approved memory into the files the agents read (AGENTS.md, CLAUDE.md,
// .claude/rules/<topic>.md, MEMORY.md and USER.md), each inside a managed
// block; what surrounds the block is kept byte for byte. Its active
// skills go to .claude/skills (or --skills-dir) as managed folders.
func (e *cmdEnv) sync(args []string) error {
	fs, cfg, envErr := e.flags("sync", "sync --project SLUG --to DIR [--subject ID] [--skills-dir DIR|none] [--skills-layout claude|codex|hermes]")
	project := fs.String("project", "", "project slug (required)")
	to := fs.String("to", "", "directory to write into, usually the repository root (required)")
	subject := fs.String("subject", "", "also write this subject's memories (USER.md and the agent files)")
	skillsDir := fs.String("skills-dir", "", "where to write the active skills (default: the layout's folder under --to; none: write no skills)")
	skillsLayout := fs.String("skills-layout", "claude", "layout of the skills folder: claude, codex or hermes")
	if _, err := e.parse(fs, cfg, envErr, args); err != nil {
		return err
	}
	if *project == "" || *to == "" {
		fs.Usage()
		return e.fail("sync needs --project and --to")
	}
	if _, err := transcript.ParseSkillLayout(*skillsLayout); err != nil {
		return e.fail("unknown skills layout %q (want claude, codex or hermes)", *skillsLayout)
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	files, h, err := m.App.Exports.AgentFiles(e.ctx, cliActor, *project, *subject)
	if err != nil {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return e.fail("project %s: %s", *project, e.loc.ErrorMessage(err))
		}
		return err
	}
	for _, hf := range []governance.HermesFile{h.Memory, h.User} {
		files = append(files, governance.AgentFile{Path: hf.Name, Limit: hf.Limit, Used: hf.Used, Block: hf.Text,
			Included: hf.Included, Omitted: hf.Omitted})
	}
	for _, f := range files {
		path := filepath.Join(*to, filepath.FromSlash(f.Path))
		if err := writeManaged(path, f.Block); err != nil {
			return errors.New(e.loc.T("msg.labelled", "Label", path, "Text", e.loc.ErrorMessage(err)))
		}
		e.say(e.stdout, "Wrote %s: %d of %d characters, %d entries.", path, f.Used, f.Limit, len(f.Included))
		for _, o := range f.Omitted {
			e.say(e.stdout, "  did not fit: rule %d (%d characters)", o.RuleID, o.Runes)
		}
	}
	return e.syncSkills(m, *project, *to, *skillsDir, *skillsLayout)
}

// writeManaged puts block inside the managed block of the file at path,
// creating it (and its directory) if needed, through a rename so a reader
// never sees half a file.
func writeManaged(path, block string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, err := agentfile.MergeManagedBlock(old, block)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mnemo-sync-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// watch runs "console watch DIR --project P [--format F]": it follows a
// directory of session files, ingesting new files and appended lines
// every --interval, with per-file checkpoints in the database.
func (e *cmdEnv) watch(args []string) error {
	fs, cfg, envErr := e.flags("watch", "watch DIR --project SLUG [--format auto|claude-code|codex|hermes|openai|seed|mnemo] [--interval 1s] [--once]")
	project := fs.String("project", "", "project slug to ingest into (required)")
	formatName := fs.String("format", "auto", "format of the files (auto detects each file's)")
	subject := fs.String("subject", "", "subject id for events whose source names none")
	interval := fs.Duration("interval", time.Second, "how often to look for new lines")
	once := fs.Bool("once", false, "poll once and exit")
	create := fs.Bool("create", false, "create the project if it does not exist")
	pos, err := e.parse(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *project == "" {
		fs.Usage()
		return e.fail("watch needs DIR and --project")
	}
	format, err := transcript.ParseFormat(*formatName)
	if err != nil {
		return errors.New(e.loc.ErrorMessage(err))
	}
	dir, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return e.fail("%s is not a directory", pos[0])
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	p, err := m.Store.FindProjectBySlug(e.ctx, *project)
	if governance.ErrorCode(err) == governance.ENOTFOUND && *create {
		p = &governance.Project{Slug: *project, Name: *project}
		err = m.Store.CreateProject(e.ctx, p)
	}
	if err != nil {
		return e.fail("project %s: %s (use --create to create it)", *project, e.loc.ErrorMessage(err))
	}
	src, err := m.App.Sources.Ensure(e.ctx, cliActor, app.SourceInput{Project: p.Slug, Dir: dir, Format: string(format), SubjectID: *subject})
	if err != nil {
		return errors.New(e.loc.ErrorMessage(err))
	}
	f := &transcript.Follower{Store: m.Store, SourceID: src.ID, ProjectID: p.ID, Dir: dir,
		Options: transcript.Options{Format: format, Project: p.Slug, Subject: *subject}}
	report := func(res *transcript.PollResult, err error) {
		if err != nil {
			fmt.Fprintf(e.stderr, "watch: %s\n", e.loc.ErrorMessage(err))
			return
		}
		if res.Inserted > 0 {
			e.say(e.stdout, "%s: %d new event(s) from %d file(s).", time.Now().Format("15:04:05"), res.Inserted, res.Files)
		}
		for _, p := range res.Problems {
			fmt.Fprintf(e.stderr, "watch: %s\n", e.loc.Text(p))
		}
	}
	if *once {
		res, err := f.Poll(e.ctx)
		if err != nil {
			return err
		}
		e.say(e.stdout, "Followed %d file(s) in %s: %d new event(s).", res.Files, dir, res.Inserted)
		for _, p := range res.Problems {
			fmt.Fprintf(e.stdout, "  %s\n", e.loc.Text(p))
		}
		return nil
	}
	e.say(e.stdout, "Following %s into %s every %s (Ctrl-C stops).", dir, p.Slug, *interval)
	return f.Run(e.ctx, *interval, report)
}

// heartbeat runs "console heartbeat --once".
func (e *cmdEnv) heartbeat(args []string) error {
	fs, cfg, envErr := e.flags("heartbeat", "heartbeat --once")
	once := fs.Bool("once", false, "run one beat and print what it did (required)")
	if _, err := e.parse(fs, cfg, envErr, args); err != nil {
		return err
	}
	if !*once {
		fs.Usage()
		return e.fail("heartbeat needs --once (the server runs the heartbeat in the background)")
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	// With several instances on PostgreSQL the beat runs on the one that
	// leads, never beside it: this command leads for one beat when none
	// does, else hands the request to the leader.
	var rec *governance.BeatRecord
	forwarded, err := m.leadOnce(e.ctx, "cli", func() error {
		var err error
		rec, err = m.Heartbeat.RunNow(e.ctx, "cli")
		return err
	})
	if forwarded && err == nil {
		e.say(e.stdout, "Another console instance leads the heartbeat: it was asked to beat now (see the Heartbeat page).")
		return nil
	}
	if rec != nil {
		e.say(e.stdout, "Beat %d: %d new event(s), %d episode(s), %d candidate(s), %d proposal(s), %d held, %d blocked, %d token(s).",
			rec.ID, rec.NewEvents, rec.Episodes, rec.Candidates, rec.Proposals, rec.Held, rec.Blocked, rec.Tokens)
		if rec.NextBeatAt != nil {
			e.say(e.stdout, "Next beat (when the server runs): %s", rec.NextBeatAt.Format("2006-01-02 15:04:05 MST"))
		}
	}
	return err
}

// audit runs "console audit verify [--expect-head ROWS:HASH]" and
// "console audit head".
func (e *cmdEnv) audit(args []string) error {
	fs, cfg, envErr := e.flags("audit", "audit verify [--expect-head ROWS:HASH] | audit head")
	expect := fs.String("expect-head", "", "a head printed or logged before (rows:hash): verify fails unless the chain still holds it as it was")
	pos, err := e.parse(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "verify" && pos[0] != "head" {
		fs.Usage()
		return e.fail("audit needs the verify or head command")
	}
	var want *governance.AuditHead
	if *expect != "" {
		h, err := governance.ParseAuditHead(*expect)
		if err != nil {
			return errors.New(e.loc.ErrorMessage(err))
		}
		want = &h
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	if pos[0] == "head" {
		head, err := m.App.AuditLog.Head(e.ctx, cliActor)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, head.String())
		return nil
	}
	v, err := m.App.AuditLog.VerifyHead(e.ctx, cliActor, want)
	if err != nil {
		return err
	}
	if !v.OK {
		if v.BadID == 0 {
			e.say(e.stdout, "Audit chain BROKEN: %s.", e.loc.Text(v.Problem))
		} else {
			e.say(e.stdout, "Audit chain BROKEN at row %d: %s (%d rows).", v.BadID, e.loc.Text(v.Problem), v.Rows)
		}
		return errSilent
	}
	e.say(e.stdout, "Audit chain verified: %d rows, intact.", v.Rows)
	e.say(e.stdout, "Head: %s", v.Head.String())
	return nil
}

// export runs "console export --project SLUG [--format jsonl|hermes]".
func (e *cmdEnv) export(args []string) error {
	fs, cfg, envErr := e.flags("export", "export --project SLUG [--format jsonl|hermes] [--subject ID] [--out PATH]")
	project := fs.String("project", "", "project slug to export (required)")
	format := fs.String("format", "jsonl", "jsonl: everything in the project, re-importable with import --export; hermes: MEMORY.md and USER.md")
	subject := fs.String("subject", "", "limit to one subject (jsonl) or build USER.md for it (hermes)")
	out := fs.String("out", "", "output file (jsonl; default standard output) or directory (hermes; default current)")
	if _, err := e.parse(fs, cfg, envErr, args); err != nil {
		return err
	}
	if *project == "" {
		fs.Usage()
		return e.fail("export needs --project")
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	notFound := func(err error) error {
		if governance.ErrorCode(err) == governance.ENOTFOUND {
			return e.fail("project %s: %s", *project, e.loc.ErrorMessage(err))
		}
		return err
	}
	switch *format {
	case "jsonl":
		var sub *string
		if *subject != "" {
			sub = subject
		}
		// The file is created once the export is authorized and audited.
		var (
			f         *os.File
			createErr error
		)
		stats, err := m.App.Exports.JSONL(e.ctx, cliActor, *project, sub, func(string) io.Writer {
			if *out == "" {
				return e.stdout
			}
			if f, createErr = os.Create(*out); createErr != nil {
				return io.Discard
			}
			return f
		})
		if f != nil {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err == nil {
			err = createErr
		}
		if err != nil {
			return notFound(err)
		}
		e.say(e.stderr, "Exported %s: %d events, %d episodes, %d candidates, %d rules, %d suppressions.",
			*project, stats.Events, stats.Episodes, stats.Candidates, stats.Rules, stats.Suppressions)
		return nil
	case "hermes":
		h, err := m.App.Exports.Hermes(e.ctx, cliActor, *project, *subject)
		if err != nil {
			return notFound(err)
		}
		dir := *out
		if dir == "" {
			dir = "."
		}
		for _, f := range []governance.HermesFile{h.Memory, h.User} {
			path := filepath.Join(dir, f.Name)
			if err := os.WriteFile(path, []byte(f.Text), 0o644); err != nil {
				return err
			}
			e.say(e.stdout, "Wrote %s: %d of %d characters, %d entries.", path, f.Used, f.Limit, len(f.Included))
			for _, o := range f.Omitted {
				e.say(e.stdout, "  did not fit: rule %d (%d characters)", o.RuleID, o.Runes)
			}
		}
		return nil
	}
	return e.fail("--format %q: want jsonl or hermes", *format)
}

// importExport restores a full project export into a new project.
func (e *cmdEnv) importExport(cfg Config, path, slug string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := openMain(e.ctx, cfg, e.stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	p, stats, err := m.App.Imports.ProjectExport(e.ctx, cliActor, f, slug)
	if err != nil {
		var ie *governance.ImportError
		if errors.As(err, &ie) {
			e.importError(path, ie)
			return errSilent
		}
		return errors.New(e.loc.ErrorMessage(err))
	}
	e.say(e.stdout, "Restored %s: %d events, %d episodes, %d candidates, %d rules, %d suppressions.",
		p.Slug, stats.Events, stats.Episodes, stats.Candidates, stats.Rules, stats.Suppressions)
	return nil
}

// eval runs "console eval list" and "console eval run NAME|FILE".
func (e *cmdEnv) eval(args []string) error {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	fs, cfg, envErr := e.flags("eval "+sub, "eval list | eval run NAME|FILE")
	m, pos, err := e.open(fs, cfg, envErr, args)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := evals.InstallBuiltins(e.ctx, m.Store, seed.BuiltinSuites()); err != nil {
		return err
	}
	switch sub {
	case "list":
		suites, err := evals.List(e.ctx, m.Store)
		if err != nil {
			return err
		}
		rows := [][]string{strings.Split(e.loc.Phrase("NAME\tORIGIN\tCASES\tKINDS"), "\t")}
		for _, s := range suites {
			var kinds []string
			for _, k := range append(slices.Clone(evals.Kinds), evals.KindBenchmark) {
				if n := s.Kinds[k]; n > 0 {
					kinds = append(kinds, e.loc.Number(n)+" "+e.loc.Enum("eval_kind", string(k)))
				}
			}
			rows = append(rows, []string{s.Name, e.loc.Enum("eval_origin", string(s.Origin)), e.loc.Number(s.Cases), strings.Join(kinds, e.loc.T("msg.list_separator"))})
		}
		return table(e.stdout, rows)
	case "run":
		if len(pos) != 1 {
			fs.Usage()
			return e.fail("eval run needs one suite NAME or FILE")
		}
		suite, err := evals.Find(e.ctx, m.Store, pos[0])
		if err != nil {
			if v, ok := evals.IsValidation(err); ok {
				fmt.Fprintln(e.stderr, e.loc.Text(v.Sentence()))
				return errSilent
			}
			return errors.New(e.loc.ErrorMessage(err))
		}
		rep, err := evals.RunSuite(e.ctx, m.EvalDeps, suite)
		if rep != nil {
			if werr := rep.WriteTextIn(e.stdout, e.loc); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
		if rep.Failed() {
			return errSilent
		}
		return nil
	}
	fs.Usage()
	return e.fail("unknown eval command %q (want list or run)", sub)
}

// open parses a command's flags and opens the console's store.
func (e *cmdEnv) open(fs *flag.FlagSet, cfg *Config, envErr error, args []string) (*Main, []string, error) {
	pos, err := e.parse(fs, cfg, envErr, args)
	if err != nil {
		return nil, nil, err
	}
	m, err := openMain(e.ctx, *cfg, e.stderr)
	return m, pos, err
}

// importError lists why a file was rejected, line by line, in the user's
// language.
func (e *cmdEnv) importError(path string, ie *governance.ImportError) {
	e.say(e.stderr, "%s: import rejected: %d invalid line(s), nothing written", path, ie.Count())
	for _, l := range ie.Lines {
		e.say(e.stderr, "line %d: %s", l.Line, e.phrases(l.Sentences()))
	}
	if more := ie.Count() - len(ie.Lines); more > 0 {
		e.say(e.stderr, "… and %d more", more)
	}
}
