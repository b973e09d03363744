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
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

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

// phrases translates problems (an import's, a suite's) and joins them.
func (e *cmdEnv) phrases(problems []string) string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = e.loc.Phrase(p)
	}
	return strings.Join(out, "; ")
}

// cmdEnv carries what every subcommand needs.
type cmdEnv struct {
	ctx            context.Context
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	loc            *locale.Localizer
}

// flags builds a flag set with the shared configuration flags.
func (e *cmdEnv) flags(name, synopsis string) (*flag.FlagSet, *Config, error) {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
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
func parse(fs *flag.FlagSet, cfg *Config, envErr error, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
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

// printFlags lists the flags GNU-style (--name), with their defaults.
func (e *cmdEnv) printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, e.loc.Phrase(help))
		if def := f.DefValue; def != "" && def != "false" {
			if f.Name == "database" {
				def = redactURL(def) // the URL may hold a password
			}
			fmt.Fprint(w, " "+e.loc.Phrasef("(default %q)", def))
		}
		fmt.Fprintln(w)
	})
}
