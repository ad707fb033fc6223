// Command fetch retrieves, mirrors and lints the URLs of RFC 1738: ftp,
// http(s), gopher, news, nntp, file, telnet, mailto, wais and prospero.
//
//	fetch [get] [flags] URL...
//	fetch lint [--json] [--strict] [URL... | -]
//	fetch parse [--json] URL...
//	fetch resolve [--rfc 1808|2396|3986] BASE REF...
//	fetch extract [FILE...]
//	fetch completion bash|zsh|fish
//
// Exit codes are listed in package fetch (ExitOK ... ExitPartial).
package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/internal/gctune"
)

func main() {
	// A fixed room above the live heap instead of Go's default of one live
	// heap: fewer collections for a run that allocates a little per file
	// (see package gctune). GOGC in the environment turns it off.
	gctune.Start(os.Getenv)
	// Ctrl-C, and SIGTERM (systemd, Kubernetes), stop the run as the
	// command's interruption: partial files kept, the manifest saved, the
	// WARC file closed. After SIGTERM the process still ends by it, the
	// status its sender and the shell (143) expect. A SIGTERM ignored
	// when fetch started stays ignored, as SIGINT does.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	if !signal.Ignored(syscall.SIGTERM) {
		signal.Notify(sigs, syscall.SIGTERM)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var term atomic.Bool
	go func() {
		term.Store(<-sigs == syscall.SIGTERM)
		cancel()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if term.Load() {
		signal.Reset(syscall.SIGTERM)
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(syscall.SIGTERM) == nil {
			time.Sleep(10 * time.Second) // the signal ends the process first
		}
	}
	os.Exit(code)
}
