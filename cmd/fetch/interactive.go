package main

import (
	"context"
	"fmt"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// interactive opens u's session on the terminal with s, its driver
// (--interactive), under the client's safety policy and dialer. Nothing
// from the URL is typed for the user.
func interactive(ctx context.Context, c *fetch.Client, s proto.Sessioner, u *uri.URL, e *env) error {
	req, _, err := c.Prepare(u, nil)
	if err != nil {
		return err
	}
	if e.stdin == nil || e.stdout == nil || !e.stdinTTY {
		return &fetch.Error{Op: "get", URL: u.Redacted(), Err: fmt.Errorf("--interactive needs a terminal: %w", proto.ErrNeedInput)}
	}
	if err := s.Session(ctx, u, req, e.stdin, e.stdout, e.getenv("TERM"), e.err); err != nil {
		return &fetch.Error{Op: "get", URL: u.Redacted(), Err: err}
	}
	return nil
}
