package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// env is what a command may touch outside its options: the standard
// streams, whether they are terminals, the environment, and the network
// hooks tests replace. Tests build one with buffers; run builds the real
// one.
type env struct {
	in       io.Reader
	out, err io.Writer

	// stdinTTY and stderrTTY report terminals: prompts need the first,
	// progress bars the second.
	stdinTTY, stderrTTY bool

	// getenv reads environment variables (FETCH_EMAIL, NNTPSERVER, HOME).
	getenv func(string) string

	// prompt asks the person at the terminal; nil when there is none.
	prompt proto.Prompter

	// resolver and dial replace the client's network hooks; nil means the
	// system's.
	resolver fetch.Resolver
	dial     proto.DialFunc

	// registry replaces the default registry of drivers; nil means
	// fetch.DefaultRegistry.
	registry *fetch.Registry

	// stdin and stdout are the files behind in and out when they are
	// files (the telnet session needs them); nil otherwise.
	stdin, stdout *os.File

	// args is the command line (without the program name), for the
	// warcinfo record of --warc-file.
	args []string

	// kept collects what an interrupted run leaves behind, said at
	// the end (interrupted). Shared by the copies of env that -Z makes.
	kept *notes
}

// notes is a list of lines that several goroutines may add to.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) add(line string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, line)
}

// exitInterrupted is the exit code after Ctrl-C (SIGINT): 128 + 2, as a
// shell reports a command killed by it.
const exitInterrupted = 130

// interrupted says that the run was interrupted, and what it kept (a
// .part file and how to resume it), and returns exitInterrupted.
func interrupted(e *env) int {
	e.kept.mu.Lock()
	defer e.kept.mu.Unlock()
	switch len(e.kept.lines) {
	case 0:
		fmt.Fprintln(e.err, "fetch: interrupted")
	case 1:
		fmt.Fprintf(e.err, "fetch: interrupted; %s\n", e.kept.lines[0])
	default:
		fmt.Fprintln(e.err, "fetch: interrupted")
		for _, l := range e.kept.lines {
			fmt.Fprintf(e.err, "fetch: %s\n", l)
		}
	}
	return exitInterrupted
}

// run is the whole program: it parses args, runs the command, and returns
// the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{in: stdin, out: stdout, err: stderr, getenv: os.Getenv}
	if f, ok := stdin.(*os.File); ok {
		e.stdin = f
		e.stdinTTY = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := stdout.(*os.File); ok {
		e.stdout = f
	}
	if f, ok := stderr.(*os.File); ok {
		e.stderrTTY = term.IsTerminal(int(f.Fd()))
	}
	if e.stdinTTY && e.stdin != nil {
		e.prompt = &ttyPrompt{in: e.stdin, out: stderr}
	}
	return execute(ctx, args, e)
}

// execute runs the command line args in e and returns the exit code.
func execute(ctx context.Context, args []string, e *env) int {
	e.args = args
	if e.kept == nil {
		e.kept = &notes{}
	}
	root := newRootCmd(e)
	if err := unknownCommand(root, args); err != nil {
		return exitCode(err, e, root)
	}
	root.SetArgs(withDefaultCommand(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		return interrupted(e)
	}
	return exitCode(err, e, cmd)
}

// exitCode reports err on stderr (unless a command already did) and maps
// it to an exit code. A usage error names the help of cmd, the command
// that failed.
func exitCode(err error, e *env, cmd *cobra.Command) int {
	var (
		fe *FlagError
		xe *exitError
	)
	switch {
	case err == nil:
		return fetch.ExitOK
	case errors.As(err, &xe):
		return xe.code
	case errors.As(err, &fe):
		path := "fetch"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(e.err, "fetch: %v\nRun '%s --help' for usage.\n", fe.err, path)
		return fetch.ExitUsage
	}
	fmt.Fprintf(e.err, "fetch: %s\n", termtext.Listing(message(err)))
	return codeOf(err)
}

// codeOf is the exit code of err: a usage error is ExitUsage, a failure
// to write the output ExitError (a pipe's reader gone, EPIPE, is no
// network failure), a listing not known to be whole ExitPartial, the rest
// as fetch.ExitCode says.
func codeOf(err error) int {
	var (
		fe *FlagError
		we *writeError
		le *listingError
	)
	switch {
	case errors.As(err, &fe):
		return fetch.ExitUsage
	case errors.As(err, &we):
		return fetch.ExitError
	case errors.As(err, &le):
		return fetch.ExitPartial
	}
	return fetch.ExitCode(err)
}

// FlagError is a usage error: bad flags or arguments. The program prints
// it with a hint to the help and exits with ExitUsage.
type FlagError struct{ err error }

func (e *FlagError) Error() string { return e.err.Error() }
func (e *FlagError) Unwrap() error { return e.err }

func flagErrorf(format string, args ...any) error {
	return &FlagError{err: fmt.Errorf(format, args...)}
}

// exitError ends a command whose failures were already reported.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
