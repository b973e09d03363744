// Command console runs the Mnemo memory governance console and its tools.
//
//	console [serve] [flags]                 start the console (default)
//	console user add|passwd|list ...        manage accounts
//	console import FILE --project SLUG      import JSON Lines events
//	console heartbeat --once                run one heartbeat and print what it did
//	console audit verify                    verify the audit hash chain
//	console export --project SLUG           export a project (JSON Lines or MEMORY.md/USER.md)
//	console eval list|run NAME|FILE         list or run eval suites (non-zero exit on failure)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
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

const usage = `Mnemo console — memory governance for LLM agents.

Usage:
  console [serve] [flags]                      start the console (the default command)
  console user list
  console user add NAME [--admin] [--reviewer PROJECT] [--member PROJECT --subject ID]
  console user passwd NAME
  console import FILE --project SLUG [--format F] [--skip-malformed]
                                               import events: Mnemo JSON Lines, seed events, Claude Code
                                               transcripts, Codex CLI rollouts, a Hermes state.db, OpenAI
                                               chat messages (detected unless --format); all or nothing
  console import FILE --export [--project S]   restore a full project export as a new project
  console export --project SLUG [--format jsonl|hermes] [--subject ID] [--out PATH]
  console watch DIR --project SLUG [--format F] follow a directory of session files (new files, appended lines)
  console sync --project SLUG --to DIR         write approved memory into AGENTS.md, CLAUDE.md,
                                               .claude/rules/*.md, MEMORY.md, USER.md (managed blocks)
  console heartbeat --once                     run one heartbeat and print what it did
  console audit verify                         verify the audit log's hash chain
  console eval list                            list the eval suites (built-in and uploaded)
  console eval run NAME|FILE                   run a suite, print a summary, exit non-zero on failure

Every command takes the flags below; run "console COMMAND --help" for its own.
The model API key is read only from the environment: MNEMO_LLM_API_KEY (or OPENAI_API_KEY).
`

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	env := &cmdEnv{ctx: ctx, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
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
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// cmdEnv carries what every subcommand needs.
type cmdEnv struct {
	ctx            context.Context
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// flags builds a flag set with the shared configuration flags.
func (e *cmdEnv) flags(name, synopsis string) (*flag.FlagSet, *Config, error) {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: console %s\n\nFlags (environment variables in brackets):\n", synopsis)
		printFlags(e.stderr, fs)
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
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, help)
		if def := f.DefValue; def != "" && def != "false" {
			if f.Name == "database" {
				def = redactURL(def) // the URL may hold a password
			}
			fmt.Fprintf(w, " (default %q)", def)
		}
		fmt.Fprintln(w)
	})
}
