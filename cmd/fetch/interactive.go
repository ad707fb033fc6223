package main

import (
	"context"
	"fmt"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/telnet"
	"github.com/rfc1738/fetch/uri"
)

// interactive opens a telnet session for u on the terminal (--interactive),
// under the client's safety policy and dialer. Nothing from the URL is
// typed for the user.
func interactive(ctx context.Context, c *fetch.Client, u *uri.URL, e *env) error {
	req, _, err := c.Prepare(u, nil)
	if err != nil {
		return err
	}
	if e.stdin == nil || e.stdout == nil || !e.stdinTTY {
		return &fetch.Error{Op: "get", URL: u.Redacted(), Err: fmt.Errorf("--interactive needs a terminal: %w", proto.ErrNeedInput)}
	}
	tty, err := telnet.NewTTY(e.stdin, e.stdout, e.getenv("TERM"))
	if err != nil {
		return &fetch.Error{Op: "get", URL: u.Redacted(), Err: err}
	}
	defer tty.Close()
	if err := telnet.Interactive(ctx, u, req, tty, e.err); err != nil {
		return &fetch.Error{Op: "get", URL: u.Redacted(), Err: err}
	}
	return nil
}
