package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"mime"
	"time"

	"github.com/rfc1738/fetch/mirror"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// Mirror types, defined in the mirror engine and named here so that
// programs using this package can spell them.
type (
	// MirrorOptions controls Client.Mirror: parallel jobs, --delete,
	// include and exclude globs, dry run, progress callback, VMS
	// versions.
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

// MirrorWarning is a problem with a directory's listing that stopped
// nothing but leaves the mirror unsure it has every entry: a listing line
// that fits no known layout, or a directory listed with NLST instead.
type MirrorWarning = mirror.Warning

// QuoteListingLine quotes a listing line for a message as strconv.Quote
// does (control characters escaped), cut to 300 bytes.
func QuoteListingLine(line string) string { return mirror.QuoteLine(line) }

// Mirror errors, for errors.Is.
var (
	// ErrMirrorPartial: the run finished but some entries failed, or some
	// lines of an FTP listing fit no known layout (Summary.Unparsed).
	ErrMirrorPartial = mirror.ErrPartial
	// ErrMirrorUnsupported: the scheme cannot be mirrored.
	ErrMirrorUnsupported = mirror.ErrUnsupported
	// ErrMirrorBound: the run stopped at a bound (MaxDepth, MaxFiles,
	// Quota; MirrorSummary.Bound names it). It comes with ErrMirrorPartial.
	ErrMirrorBound = mirror.ErrBound
)

// DefaultMirrorDepth is the depth bound of a mirror whose
// MirrorOptions.MaxDepth is zero.
const DefaultMirrorDepth = mirror.DefaultMaxDepth

// Mirror copies the FTP directory, gopher menu or HTTP index page named by
// rawURL, and everything below it on the same host and port, into dir; or
// the newsgroup or groups (a wildmat) named by an nntp or news URL, one
// file per article (see package mirror). Every
// URL the mirror derives goes through the client's safety policy; a
// redirect that leaves the starting scheme, host and port is refused
// before anything is sent to its target (a *RedirectError with
// RuleRedirectOffMirror, naming the target). See package
// mirror for the guarantees: nothing is written outside dir, no
// partial file stands under its final name, and a second run fetches only
// what changed. The client's politeness limits hold for every listing and
// file: LimitRate, LimitRateTotal, Wait (not for the articles of a news
// mirror), and MaxHostConns, which also bounds opts.Jobs.
//
// The summary is returned even with an error. The error wraps
// ErrMirrorPartial when some entries failed, is ctx.Err() after a
// cancellation, and is an *Error for a URL that could not be walked.
func (c *Client) Mirror(ctx context.Context, rawURL, dir string, opts MirrorOptions) (*MirrorSummary, error) {
	u, err := uri.Parse(rawURL)
	if err != nil {
		return &MirrorSummary{Source: safety.Redact(rawURL), Target: dir}, &Error{Op: "mirror", URL: safety.Redact(rawURL), Err: err}
	}
	if _, err := c.policy().Evaluate(u); err != nil {
		return &MirrorSummary{Source: u.Redacted(), Target: dir}, &Error{Op: "mirror", URL: u.Redacted(), Err: err}
	}
	if n := c.MaxHostConns; n > 0 && (opts.Jobs > n || opts.Jobs <= 0 && mirror.DefaultJobs > n) {
		opts.Jobs = n // the mirror's connections all go to one host
	}
	f := &mirrorFetcher{c: c, start: u}
	if d, ok := c.registry().Lookup(u.Scheme); ok {
		if r, ok := d.(proto.Runner); ok {
			// The run's own pool, closed at its end.
			f.own = r.ForRun(cmp.Or(max(opts.Jobs, 0), mirror.DefaultJobs), c.MaxHostConns)
			if ic, ok := f.own.(proto.IdleCloser); ok {
				defer ic.CloseIdleConnections()
			}
		}
	}
	var mf mirror.Fetcher = f
	if c.WARC != nil {
		// Loaded meanwhile, not by the first captures, which would
		// all wait for it (warcType).
		go mime.TypeByExtension(".txt")
		c.warcManifest(dir)
		mf = archivingFetcher{f}
	}
	sum, err := mirror.Run(ctx, mf, u, dir, opts)
	if errors.Is(err, mirror.ErrUnsupported) {
		err = fmt.Errorf("%w: %w", ErrUnsupportedScheme, err)
	}
	return sum, mirrorError(ctx, u, err)
}

// mirrorError is the error of a mirror run that ended with err: an *Error
// naming the URL once. The failure to list the starting URL is the
// client's own *Error when it is one (it names the URL, and says how many
// attempts it took), not wrapped again in the mirror's context.
func mirrorError(ctx context.Context, u *uri.URL, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, mirror.ErrPartial) {
		return err
	}
	var (
		le *mirror.ListError
		fe *Error
	)
	if errors.As(err, &le) && errors.As(le.Err, &fe) {
		return le.Err
	}
	if errors.As(err, &fe) {
		return err
	}
	return &Error{Op: "mirror", URL: u.Redacted(), Err: err}
}

// mirrorFetcher gives the mirror engine the client's checked fetch, and
// keeps it on the starting server.
type mirrorFetcher struct {
	c     *Client
	start *uri.URL
	own   proto.Driver // the run's own driver of start's scheme (proto.Runner), or nil
}

// The mirror finds these by type assertion: one that drifted from its
// interface would leave every fresh FTP file to its own MDTM round trip,
// or the workers to log in one after another, without a word.
var (
	_ mirror.ModTimer    = (*mirrorFetcher)(nil)
	_ mirror.Warmer      = (*mirrorFetcher)(nil)
	_ mirror.Revalidator = (*mirrorFetcher)(nil)
	_ mirror.Lister      = (*mirrorFetcher)(nil)
	_ mirror.ModTimer    = (*ftp.Driver)(nil)
	_ mirror.Warmer      = (*ftp.Driver)(nil)
	_ revalidator        = (*http.Driver)(nil)
)

// lookup is the client's registry with the run's own driver. Fetches go
// through the client either way: the same policy check, dialer, timeouts,
// trace, MaxTime bound and *Error.
func (f *mirrorFetcher) lookup(scheme string) (proto.Driver, bool) {
	if f.own != nil && scheme == f.start.Scheme {
		return f.own, true
	}
	return f.c.registry().Lookup(scheme)
}

func (f *mirrorFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	resp, err := f.c.fetchURL(ctx, u, req, scope{lookup: f.lookup, stay: f.start})
	if err != nil {
		return nil, err
	}
	return &resp.Response, nil
}

// streams reports whether a mirror's listings may come entry by entry
// (mirrorFetcher.List): the client neither records them (WARC) nor holds
// their reading to a rate or a least speed, which apply to a listing's
// body.
func (c *Client) streams() bool {
	return c.WARC == nil && !c.limited() && (c.SpeedLimit <= 0 || c.SpeedTime <= 0)
}

// List lists the directory u entry by entry with the run's own driver
// when it is a proto.Lister (ftp) and the client streams, after the same
// policy check as a fetch of u, on the starting server only, within
// MaxTime, Wait and MaxHostConns. It fails with errors.ErrUnsupported,
// listing nothing, where it cannot: the mirror then fetches the listing.
func (f *mirrorFetcher) List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error) {
	l, ok := f.own.(proto.Lister)
	if !ok || !f.c.streams() || !sameServer(u, f.start) {
		return nil, errors.ErrUnsupported
	}
	ctx, cancel, preq, err := f.prepare(ctx, u, req)
	defer cancel()
	if err != nil {
		return nil, err
	}
	if f.c.Wait > 0 || f.c.MaxHostConns > 0 {
		release, err := f.c.admit(ctx, u)
		if err != nil {
			return nil, &Error{Op: "get", URL: u.Redacted(), Err: err}
		}
		defer release()
	}
	notes, err := l.List(ctx, u, preq, fn)
	if err != nil {
		return nil, &Error{Op: "get", URL: u.Redacted(), Err: err}
	}
	return notes, nil
}

// Warm logs in the workers' connections ahead of use (ftp.Driver.Warm)
// when the run's own driver can, with the same policy check and request as
// a fetch of u.
func (f *mirrorFetcher) Warm(ctx context.Context, u *uri.URL, req *proto.Request, n int) {
	w, ok := f.own.(mirror.Warmer)
	if !ok || u.Scheme != f.start.Scheme {
		return
	}
	preq, _, err := f.c.Prepare(u, req)
	if err != nil {
		return
	}
	w.Warm(ctx, u, preq, n)
}

// ModTimes asks the times of files of the directory dir all at once
// (ftp.Driver.ModTimes) when the run's own driver can, with the same
// policy check and request as a fetch of dir, on the starting server
// only, within MaxTime.
func (f *mirrorFetcher) ModTimes(ctx context.Context, dir *uri.URL, req *proto.Request, names []string) ([]time.Time, error) {
	mt, ok := f.own.(mirror.ModTimer)
	if !ok || !sameServer(dir, f.start) {
		return nil, errors.ErrUnsupported
	}
	ctx, cancel, preq, err := f.prepare(ctx, dir, req)
	defer cancel()
	if err != nil {
		return nil, err
	}
	return mt.ModTimes(ctx, dir, preq, names)
}

// revalidator is a driver that asks about many files at once
// (http.Driver.Revalidate).
type revalidator interface {
	Revalidate(ctx context.Context, req *proto.Request, checks []http.Check) ([]bool, error)
}

// Revalidate asks whether files of the directory dir changed, all at
// once (http.Driver.Revalidate: conditional GETs pipelined) when the
// run's own driver can, each file after the policy check a fetch of it
// gets, on the starting server only, within MaxTime, as one connection
// under MaxHostConns. A client with a Wait between requests asks one at
// a time (errors.ErrUnsupported).
func (f *mirrorFetcher) Revalidate(ctx context.Context, dir *uri.URL, req *proto.Request, files []*uri.URL, since []time.Time) ([]bool, error) {
	rv, ok := f.own.(revalidator)
	if !ok || !sameServer(dir, f.start) || f.c.Wait > 0 || len(files) != len(since) {
		return nil, errors.ErrUnsupported
	}
	ctx, cancel, preq, err := f.prepare(ctx, dir, req)
	defer cancel()
	if err != nil {
		return nil, err
	}
	checks := make([]http.Check, len(files))
	for i, u := range files {
		if !sameServer(u, f.start) {
			return nil, errors.ErrUnsupported
		}
		if _, _, err := f.c.Check(u); err != nil {
			return nil, err
		}
		checks[i] = http.Check{URL: u, Since: since[i]}
	}
	release, err := f.c.admit(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer release()
	return rv.Revalidate(ctx, preq, checks)
}

// prepare makes the request of a batch operation on u (a listing, the
// times or revalidation of a directory's files): the policy check and
// request a fetch of u gets, and ctx bounded by MaxTime. cancel is never
// nil.
func (f *mirrorFetcher) prepare(ctx context.Context, u *uri.URL, req *proto.Request) (context.Context, context.CancelFunc, *proto.Request, error) {
	preq, _, err := f.c.Prepare(u, req) // preq is nil on error
	if err != nil || f.c.MaxTime <= 0 {
		return ctx, func() {}, preq, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.c.MaxTime)
	return ctx, cancel, preq, nil
}

func sameServer(a, b *uri.URL) bool {
	return a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && a.PortNumber() == b.PortNumber()
}

// OpenNews opens a news session for a mirror of u (nntp or news), after
// the same policy check a fetch of u gets, with the client's dialer,
// timeouts, trace and options (NNTP.Server, Netrc).
func (f *mirrorFetcher) OpenNews(ctx context.Context, u *uri.URL, req *proto.Request) (mirror.NewsSession, error) {
	preq, _, err := f.c.Prepare(u, req)
	if err != nil {
		return nil, err
	}
	d, _ := f.c.registry().Lookup(u.Scheme)
	nd, ok := d.(*nntp.Driver)
	if !ok {
		return nil, fmt.Errorf("fetch: mirror: no nntp driver for %s: %w", u.Scheme, ErrUnsupportedScheme)
	}
	s, err := nd.Open(ctx, u, preq)
	if err != nil {
		return nil, &Error{Op: "mirror", URL: u.Redacted(), Err: err}
	}
	return s, nil
}

// archivingFetcher is the mirror's Fetcher when the client writes WARC: a
// mirror.Syncer, whose Sync puts the records written so far on stable
// storage before the mirror saves its manifest.
type archivingFetcher struct{ *mirrorFetcher }

func (f archivingFetcher) Sync() error { return f.c.WARC.Sync() }

// NewsWARC gives the news mirror the client's WARC writer (nil for none):
// it records each article it stores (mirror.NewsArchiver).
func (f *mirrorFetcher) NewsWARC() *warc.Writer { return f.c.WARC }

// An nntp.Session is the news mirror's session, and lists the numbers of
// a group's articles: one that drifted from NewsNumberer's signatures
// would still be a NewsSession, and the mirror would go back to one STAT
// per number, one round trip each, without a word.
var (
	_ mirror.NewsSession  = (*nntp.Session)(nil)
	_ mirror.NewsNumberer = (*nntp.Session)(nil)
)

// ExportMbox writes the articles of the news mirror in dir to the mboxrd
// file out (replaced atomically), each crosspost once, and returns how
// many messages it holds.
func ExportMbox(dir, out string) (int, error) { return mirror.ExportMbox(dir, out) }

// ExportMaildir delivers the articles of the news mirror in dir into the
// maildir out (tmp/ then new/), skipping those an earlier export
// delivered, and returns how many it delivered.
func ExportMaildir(dir, out string) (int, error) { return mirror.ExportMaildir(dir, out) }
