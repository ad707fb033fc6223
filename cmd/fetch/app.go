package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/rfc1738/fetch/fetch"
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
	root := newRootCmd(e)
	root.SetArgs(withDefaultCommand(root, args))
	err := root.ExecuteContext(ctx)
	return exitCode(err, e)
}

// exitCode reports err on stderr (unless a command already did) and maps
// it to an exit code.
func exitCode(err error, e *env) int {
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
		fmt.Fprintf(e.err, "fetch: %v\nRun 'fetch --help' for usage.\n", fe.err)
		return fetch.ExitUsage
	}
	fmt.Fprintf(e.err, "fetch: %s\n", clean(message(err)))
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
