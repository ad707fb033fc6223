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

	"github.com/rfc1738/fetch/internal/gctune"
)

func main() {
	// A fixed room above the live heap instead of Go's default of one live
	// heap: fewer collections for a run that allocates a little per file
	// (see package gctune). GOGC in the environment turns it off.
	gctune.Start(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
