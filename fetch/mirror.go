package fetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/rfc1738/fetch/internal/mirror"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// Mirror types, defined in the mirror engine and named here so that
// programs using this package can spell them.
type (
	// MirrorOptions controls Client.Mirror: parallel jobs, --delete,
	// include and exclude globs, dry run, progress callback.
	MirrorOptions = mirror.Options
	// MirrorSummary is what a mirror run did, entry by entry.
	MirrorSummary = mirror.Summary
	// MirrorEntry is one line of a MirrorSummary.
	MirrorEntry = mirror.EntryReport
	// MirrorEvent reports the progress of one transfer.
	MirrorEvent = mirror.Event
	// MirrorStatus is what happened to one entry: new, updated, unchanged,
	// skipped, failed or deleted.
	MirrorStatus = mirror.Status
)

// Mirror errors, for errors.Is.
var (
	// ErrMirrorPartial: the run finished but some entries failed.
	ErrMirrorPartial = mirror.ErrPartial
	// ErrMirrorUnsupported: the scheme cannot be mirrored.
	ErrMirrorUnsupported = mirror.ErrUnsupported
)

// Mirror copies the FTP directory, gopher menu or HTTP index page named by
// rawURL, and everything below it on the same host and port, into dir. Every
// URL the mirror derives goes through the client's safety policy; a
// redirect that leaves the starting host and port is refused. See package
// internal/mirror for the guarantees: nothing is written outside dir, no
// partial file stands under its final name, and a second run fetches only
// what changed.
//
// The summary is returned even with an error. The error wraps
// ErrMirrorPartial when some entries failed, is ctx.Err() after a
// cancellation, and is an *Error for a URL that could not be walked.
func (c *Client) Mirror(ctx context.Context, rawURL, dir string, opts MirrorOptions) (*MirrorSummary, error) {
	u, err := uri.Parse(rawURL)
	if err != nil {
		return &MirrorSummary{Source: safety.Redact(rawURL), Target: dir}, &Error{Op: "mirror", URL: safety.Redact(rawURL), Err: err}
	}
	if _, err := c.Policy.Evaluate(u); err != nil {
		return &MirrorSummary{Source: u.Redacted(), Target: dir}, &Error{Op: "mirror", URL: u.Redacted(), Err: err}
	}
	sum, err := mirror.Run(ctx, &mirrorFetcher{c: c, start: u}, u, dir, opts)
	if errors.Is(err, mirror.ErrUnsupported) {
		err = fmt.Errorf("%w: %w", ErrUnsupportedScheme, err)
	}
	var fe *Error
	if err != nil && ctx.Err() == nil && !errors.Is(err, mirror.ErrPartial) && !errors.As(err, &fe) {
		err = &Error{Op: "mirror", URL: u.Redacted(), Err: err}
	}
	return sum, err
}

// mirrorFetcher gives the mirror engine the client's checked fetch, and
// keeps it on the starting server.
type mirrorFetcher struct {
	c     *Client
	start *uri.URL
}

func (f *mirrorFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	resp, err := f.c.FetchURL(ctx, u, req)
	if err != nil {
		return nil, err
	}
	if got := resp.URL; got != nil && !sameServer(f.start, got) {
		resp.Body.Close()
		return nil, fmt.Errorf("fetch: mirror: %s redirected to %s, another server: %w", u.Redacted(), got.Redacted(), safety.ErrRefused)
	}
	return &resp.Response, nil
}

func sameServer(a, b *uri.URL) bool {
	return a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && a.PortNumber() == b.PortNumber()
}
