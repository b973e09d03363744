// Command console runs the Mnemo memory governance console and its tools.
//
//	console [serve] [flags]                 start the console (default)
//	console user add|passwd|list ...        manage accounts
//	console import FILE --project SLUG      import JSON Lines events
//	console heartbeat --once                run one heartbeat and print what it did
//	console audit verify                    verify the audit hash chain
//	console export --project SLUG           export a project (JSON Lines or MEMORY.md/USER.md)
//	console eval list|run NAME|FILE         list or run eval suites (non-zero exit on failure)
//	console backup --out FILE               online copy of the SQLite database
//	console restore BACKUP --data DIR ...   restore into an empty data directory, replaying later forgets
//	console restore --database URL ...      replay onto a pg_restored PostgreSQL dump the forgets made after it
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errSilent) {
			fmt.Fprintln(os.Stderr, "console:", err)
		}
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(1)
	}
}

// errSilent is returned when the command already explained its failure.
var errSilent = errors.New("failed")

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	env := &cmdEnv{ctx: ctx, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, loc: locale.For(cliLanguage(getenv))}
	return env.translate(env.dispatch(cmd, args))
}

// dispatch runs one command.
func (env *cmdEnv) dispatch(cmd string, args []string) error {
	stdout, stderr := env.stdout, env.stderr
	switch cmd {
	case "serve":
		return env.serve(args)
	case "user":
		return env.user(args)
	case "import":
		return env.importEvents(args)
	case "heartbeat":
		return env.heartbeat(args)
	case "audit":
		return env.audit(args)
	case "export":
		return env.export(args)
	case "sync":
		return env.sync(args)
	case "watch":
		return env.watch(args)
	case "eval":
		return env.eval(args)
	case "skills":
		return env.skills(args)
	case "backup":
		return env.backup(args)
	case "restore":
		return env.restore(args)
	case "help":
		fmt.Fprint(stdout, env.usage())
		return nil
	}
	fmt.Fprint(stderr, env.usage())
	return env.fail("unknown command %q", cmd)
}

// cliLanguage is the language of the command line's messages, from the
// environment as POSIX programs read it: LC_ALL, else LC_MESSAGES, else
// LANG ("zh_CN.UTF-8" is Simplified Chinese; unset, C or POSIX English).
func cliLanguage(getenv func(string) string) string {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if i := strings.IndexAny(v, ".@"); i >= 0 {
			v = v[:i]
		}
		if v == "C" || v == "POSIX" {
			return locale.English
		}
		return locale.Match("", strings.ReplaceAll(v, "_", "-"))
	}
	return locale.English
}

// usage is the command overview in the user's language.
func (e *cmdEnv) usage() string { return e.loc.T("cli.usage") }

// say prints one sentence of the command line in the user's language: the
// catalogs hold it under its English fmt format.
func (e *cmdEnv) say(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, e.loc.Phrasef(format, args...))
}

// fail is an error whose message is a sentence in the user's language.
func (e *cmdEnv) fail(format string, args ...any) error {
	return errors.New(e.loc.Phrasef(format, args...))
}

// sentence is an error made where no localizer is at hand (configuration,
// flags, the store's setup): an English fmt format and its values, which
// run translates before the error reaches the user (the catalogs hold the
// format). Error is the English sentence, for logs and tests.
type sentence struct {
	format string
	args   []any
}

// errorf is a sentence error. Values that are errors stay reachable by
// errors.Is and errors.As; give them a %v verb, not %w.
func errorf(format string, args ...any) error { return &sentence{format: format, args: args} }

func (s *sentence) Error() string { return fmt.Sprintf(s.format, s.args...) }

func (s *sentence) Unwrap() []error {
	var errs []error
	for _, a := range s.args {
		if err, ok := a.(error); ok {
			errs = append(errs, err)
		}
	}
	return errs
}

// translated is an error whose message was put in the user's language; it
// still wraps the original for errors.Is (errSilent, flag.ErrHelp).
type translated struct {
	msg string
	err error
}

func (t *translated) Error() string { return t.msg }
func (t *translated) Unwrap() error { return t.err }

// translate says err in the user's language: sentence errors (also inside
// errors.Join) through their formats, the domain's errors through their
// formats too, and other errors by their English text when the catalogs
// hold it (the operating system's file errors by their kind).
func (e *cmdEnv) translate(err error) error {
	if err == nil || errors.Is(err, errSilent) || errors.Is(err, flag.ErrHelp) {
		return err
	}
	if msg := e.message(err); msg != err.Error() {
		return &translated{msg: msg, err: err}
	}
	return err
}

func (e *cmdEnv) message(err error) string {
	var s *sentence
	var ge *governance.Error
	var pe *fs.PathError
	var st interface{ Sentence() governance.Text }
	switch {
	case errors.As(err, &s) && s == err:
		args := make([]any, len(s.args))
		for i, a := range s.args {
			if ae, ok := a.(error); ok {
				a = e.message(ae)
			}
			args[i] = a
		}
		return e.loc.Phrasef(s.format, args...)
	case isJoin(err):
		var out []string
		for _, one := range err.(interface{ Unwrap() []error }).Unwrap() {
			out = append(out, e.message(one))
		}
		return strings.Join(out, "\n")
	case errors.As(err, &ge):
		return e.loc.ErrorMessage(err)
	case errors.As(err, &st) && any(st) == any(err):
		return e.loc.Text(st.Sentence())
	case errors.As(err, &pe) && pe == err:
		for _, kind := range []error{fs.ErrNotExist, fs.ErrPermission, fs.ErrExist, syscall.EISDIR, syscall.ENOTDIR, syscall.ENOSPC} {
			if errors.Is(pe.Err, kind) {
				return e.loc.T("msg.labelled", "Label", pe.Path, "Text", e.loc.Phrase(kind.Error()))
			}
		}
	}
	return e.loc.Phrase(err.Error())
}

// isJoin reports whether err is an errors.Join of several errors.
func isJoin(err error) bool {
	_, ok := err.(interface{ Unwrap() []error })
	_, isSentence := err.(*sentence)
	return ok && !isSentence
}

// phrases translates problems (an import's, a suite's) and joins them.
func (e *cmdEnv) phrases(problems []governance.Text) string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = e.loc.Text(p)
	}
	return strings.Join(out, "; ")
}

// table prints rows as columns padded to their widest cell in terminal
// columns (a Chinese character takes two, which text/tabwriter ignores).
func table(w io.Writer, rows [][]string) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], locale.Width(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(locale.Pad(c, widths[i]+2))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cmdEnv carries what every subcommand needs.
type cmdEnv struct {
	ctx            context.Context
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	loc            *locale.Localizer
	// helps are the helps of flags that carry a value, as Texts
	// (textHelp); printFlags says them in the user's language.
	helps map[*flag.Flag]governance.Text
}

// textHelp sets the help of fs's flag name to help, a sentence with a
// value.
func (e *cmdEnv) textHelp(fs *flag.FlagSet, name string, help governance.Text) {
	f := fs.Lookup(name)
	f.Usage = help.String()
	if e.helps == nil {
		e.helps = map[*flag.Flag]governance.Text{}
	}
	e.helps[f] = help
}

// flags builds a flag set with the shared configuration flags.
func (e *cmdEnv) flags(name, synopsis string) (*flag.FlagSet, *Config, error) {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package's own messages are English: it prints none (parse
	// returns them as flagError sentences); Usage still prints on an error.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		e.say(e.stderr, "Usage: console %s", synopsis)
		fmt.Fprintln(e.stderr)
		e.say(e.stderr, "Flags (environment variables in brackets):")
		e.printFlags(e.stderr, fs)
	}
	err := cfg.bindFlags(fs, e.getenv)
	return fs, &cfg, err
}

// parse parses args (flags may follow positional arguments) and validates.
func (e *cmdEnv) parse(fs *flag.FlagSet, cfg *Config, envErr error, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if envErr != nil {
		return nil, envErr
	}
	return pos, cfg.Validate()
}

// The flag package's errors (Go 1.x wording), read back into sentences of
// the command line that name flags GNU-style.
var (
	flagUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)
	flagNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
	flagBadBool   = regexp.MustCompile(`^invalid boolean value "(.*)" for -+(\S+): `)
	flagBadValue  = regexp.MustCompile(`^invalid value "(.*)" for flag -+(\S+): (.*)$`)
	flagSyntax    = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError turns an error of fs.Parse into a sentence error.
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if m := flagUndefined.FindStringSubmatch(msg); m != nil {
		return errorf("unknown flag --%s (see --help)", m[1])
	}
	if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		return errorf("--%s needs a value", m[1])
	}
	if m := flagBadBool.FindStringSubmatch(msg); m != nil {
		return errorf("--%s=%q: want true or false", m[2], m[1])
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		if strings.Contains(m[3], "out of range") {
			return errorf("--%s %q: out of range", m[2], m[1])
		}
		kind := ""
		if f := fs.Lookup(m[2]); f != nil {
			kind, _ = flag.UnquoteUsage(f)
		}
		switch kind {
		case "duration":
			return errorf("--%s %q: not a duration (such as 90s, 5m or 1h30m)", m[2], m[1])
		case "int":
			return errorf("--%s %q: not a whole number", m[2], m[1])
		case "float":
			return errorf("--%s %q: not a number", m[2], m[1])
		}
		return errorf("--%s %q: not a valid value", m[2], m[1])
	}
	if m := flagSyntax.FindStringSubmatch(msg); m != nil {
		return errorf("bad flag syntax: %s", m[1])
	}
	return err
}

// printFlags lists the flags GNU-style (--name), with their defaults.
func (e *cmdEnv) printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + e.loc.Enum("flag_value", name)
		}
		if t, ok := e.helps[f]; ok {
			help = e.loc.Text(t)
		} else {
			help = e.loc.Phrase(help)
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, help)
		if def := f.DefValue; def != "" && def != "false" {
			if f.Name == "database" {
				def = redactURL(def) // the URL may hold a password
			}
			d := e.loc.Phrasef("(default %q)", def)
			if !strings.HasSuffix(help, "）") || !strings.HasPrefix(d, "（") {
				d = " " + d // no space between two full-width brackets
			}
			fmt.Fprint(w, d)
		}
		fmt.Fprintln(w)
	})
}
