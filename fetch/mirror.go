package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	if _, err := c.Policy.Evaluate(u); err != nil {
		return &MirrorSummary{Source: u.Redacted(), Target: dir}, &Error{Op: "mirror", URL: u.Redacted(), Err: err}
	}
	if n := c.MaxHostConns; n > 0 && (opts.Jobs > n || opts.Jobs <= 0 && mirror.DefaultJobs > n) {
		opts.Jobs = n // the mirror's connections all go to one host
	}
	f := &mirrorFetcher{c: c, start: u}
	switch u.Scheme {
	case "ftp":
		if d, ok := c.registry().Lookup("ftp"); ok {
			if fd, ok := d.(*ftp.Driver); ok {
				f.ftp = mirrorFTP(fd, opts.Jobs, c.MaxHostConns)
				defer f.ftp.CloseIdleConnections()
			}
		}
	case "http", "https":
		if d, ok := c.registry().Lookup(u.Scheme); ok {
			if hd, ok := d.(*http.Driver); ok {
				// Keep-alive: an index tree is many small files
				// from one server. This run's own pool, closed at
				// its end.
				f.http = hd.Clone()
				f.http.KeepAlive = true
				defer f.http.CloseIdleConnections()
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

// mirrorFTP returns a driver with d's configuration (all of it: TLS,
// listing commands, bounds) that keeps a logged-in connection idle for
// each of the run's jobs: with the default of two, the workers of a -j 8
// run would log in again and again (DESIGN: each worker keeps its own
// control connection). It holds at most hostConns connections to a
// server when that is set (Client.MaxHostConns). It serves this run only
// and is closed (QUIT) at its end. Its workers retrieve file after file
// on each connection, so it pipelines the passive-mode commands
// (PipelinePassive).
func mirrorFTP(d *ftp.Driver, jobs, hostConns int) *ftp.Driver {
	if jobs <= 0 {
		jobs = mirror.DefaultJobs
	}
	m := d.Clone()
	if m.MaxIdleConnsPerHost >= 0 {
		m.MaxIdleConnsPerHost = max(m.MaxIdleConnsPerHost, jobs)
	}
	if hostConns > 0 && (m.MaxConnsPerHost <= 0 || m.MaxConnsPerHost > hostConns) {
		m.MaxConnsPerHost = hostConns
	}
	m.PipelinePassive = true
	return m
}

// mirrorFetcher gives the mirror engine the client's checked fetch, and
// keeps it on the starting server.
type mirrorFetcher struct {
	c     *Client
	start *uri.URL
	ftp   *ftp.Driver  // the run's own FTP driver, or nil
	http  *http.Driver // the run's own HTTP driver (keep-alive), or nil
}

// The mirror finds these by type assertion: one that drifted from its
// interface would leave every fresh FTP file to its own MDTM round trip,
// or the workers to log in one after another, without a word.
var (
	_ mirror.ModTimer    = (*mirrorFetcher)(nil)
	_ mirror.Warmer      = (*mirrorFetcher)(nil)
	_ mirror.Revalidator = (*mirrorFetcher)(nil)
)

// lookup is the client's registry with the run's own FTP and HTTP
// drivers. Fetches go through the client either way: the same policy
// check, dialer, timeouts, trace, MaxTime bound and *Error.
func (f *mirrorFetcher) lookup(scheme string) (proto.Driver, bool) {
	switch {
	case f.ftp != nil && scheme == "ftp":
		return f.ftp, true
	case f.http != nil && (scheme == "http" || scheme == "https"):
		return f.http, true
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

// Warm logs in the FTP workers' connections ahead of use (ftp.Driver.Warm),
// with the same policy check and request as a fetch of u.
func (f *mirrorFetcher) Warm(ctx context.Context, u *uri.URL, req *proto.Request, n int) {
	if f.ftp == nil || u.Scheme != "ftp" {
		return
	}
	preq, _, err := f.c.Prepare(u, req)
	if err != nil {
		return
	}
	f.ftp.Warm(ctx, u, preq, n)
}

// ModTimes asks the times of files of the directory dir all at once
// (ftp.Driver.ModTimes), with the same policy check and request as a
// fetch of dir, on the starting server only, within MaxTime.
func (f *mirrorFetcher) ModTimes(ctx context.Context, dir *uri.URL, req *proto.Request, names []string) ([]time.Time, error) {
	if f.ftp == nil || dir.Scheme != "ftp" || !sameServer(dir, f.start) {
		return nil, errors.ErrUnsupported
	}
	preq, _, err := f.c.Prepare(dir, req)
	if err != nil {
		return nil, err
	}
	if f.c.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.c.MaxTime)
		defer cancel()
	}
	return f.ftp.ModTimes(ctx, dir, preq, names)
}

// Revalidate asks whether files of the directory dir changed, all at
// once (http.Driver.Revalidate: conditional GETs pipelined), each file
// after the policy check a fetch of it gets, on the starting server only,
// within MaxTime, as one connection under MaxHostConns. A client with a
// Wait between requests asks one at a time (errors.ErrUnsupported).
func (f *mirrorFetcher) Revalidate(ctx context.Context, dir *uri.URL, req *proto.Request, files []*uri.URL, since []time.Time) ([]bool, error) {
	if f.http == nil || (dir.Scheme != "http" && dir.Scheme != "https") || !sameServer(dir, f.start) || f.c.Wait > 0 || len(files) != len(since) {
		return nil, errors.ErrUnsupported
	}
	preq, _, err := f.c.Prepare(dir, req)
	if err != nil {
		return nil, err
	}
	checks := make([]http.Check, len(files))
	for i, u := range files {
		if !sameServer(u, f.start) {
			return nil, errors.ErrUnsupported
		}
		if _, err := f.c.Policy.Evaluate(u); err != nil {
			return nil, &Error{Op: "check", URL: u.Redacted(), Err: err}
		}
		checks[i] = http.Check{URL: u, Since: since[i]}
	}
	if f.c.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.c.MaxTime)
		defer cancel()
	}
	release, err := f.c.admit(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer release()
	return f.http.Revalidate(ctx, preq, checks)
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
	d, ok := f.c.registry().Lookup(u.Scheme)
	nd, isNNTP := d.(*nntp.Driver)
	if !ok || !isNNTP {
		return nil, fmt.Errorf("fetch: mirror: no nntp driver for %s: %w", u.Scheme, ErrUnsupportedScheme)
	}
	s, err := nd.Open(ctx, u, preq)
	if err != nil {
		return nil, &Error{Op: "mirror", URL: u.Redacted(), Err: err}
	}
	return newsSession{s}, nil
}

// archivingFetcher is the mirror's Fetcher when the client writes WARC: a
// mirror.Syncer, whose Sync puts the records written so far on stable
// storage before the mirror saves its manifest.
type archivingFetcher struct{ *mirrorFetcher }

func (f archivingFetcher) Sync() error { return f.c.WARC.Sync() }

// NewsWARC gives the news mirror the client's WARC writer (nil for none):
// it records each article it stores (mirror.NewsArchiver).
func (f *mirrorFetcher) NewsWARC() *warc.Writer { return f.c.WARC }

// newsSession gives the mirror engine an nntp.Session.
type newsSession struct{ s *nntp.Session }

// newsSession must stay a NewsNumberer and a NewsCounter: one that
// drifts from their signatures would still be a NewsSession, and the
// mirror would go back to one STAT per number, one round trip each, or to
// asking an old sparse group's overview in ranges of 10,000 numbers,
// without a word.
var (
	_ mirror.NewsSession  = newsSession{}
	_ mirror.NewsNumberer = newsSession{}
	_ mirror.NewsCounter  = newsSession{}
)

func (n newsSession) Group(ctx context.Context, name string) (int64, int64, error) {
	g, err := n.s.Group(ctx, name)
	return g.Low, g.High, err
}

func (n newsSession) GroupCount(ctx context.Context, name string) (int64, int64, int64, error) {
	g, err := n.s.Group(ctx, name)
	return g.Count, g.Low, g.High, err
}

func (n newsSession) Overview(ctx context.Context, first, last int64) ([]mirror.NewsArticle, bool, error) {
	lines, err := n.s.Overview(ctx, first, last)
	if errors.Is(err, nntp.ErrNoOverview) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := make([]mirror.NewsArticle, len(lines))
	for i, l := range lines {
		out[i] = mirror.NewsArticle{Number: l.Number, MessageID: l.MessageID}
	}
	return out, true, nil
}

func (n newsSession) Stat(ctx context.Context, num int64) (string, bool, error) {
	return n.s.Stat(ctx, num)
}

func (n newsSession) ArticleNumbers(ctx context.Context, group string, first, last int64) ([]int64, bool, error) {
	nums, err := n.s.ArticleNumbers(ctx, group, first, last)
	if errors.Is(err, nntp.ErrNoListGroup) {
		return nil, false, nil
	}
	return nums, err == nil, err
}

func (n newsSession) StatEach(ctx context.Context, nums []int64, fn func(int64, string, bool) error) error {
	return n.s.StatEach(ctx, nums, fn)
}

func (n newsSession) Articles(ctx context.Context, nums []int64, fn func(int64, string, io.Reader) error) error {
	return n.s.Articles(ctx, nums, fn)
}

func (n newsSession) ListActive(ctx context.Context, wildmat string) ([]string, error) {
	groups, err := n.s.ListActive(ctx, wildmat)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.Name
	}
	return names, nil
}

func (n newsSession) Server() string { return n.s.Server() }
func (n newsSession) Close() error   { return n.s.Close() }

// ExportMbox writes the articles of the news mirror in dir to the mboxrd
// file out (replaced atomically), each crosspost once, and returns how
// many messages it holds.
func ExportMbox(dir, out string) (int, error) { return mirror.ExportMbox(dir, out) }

// ExportMaildir delivers the articles of the news mirror in dir into the
// maildir out (tmp/ then new/), skipping those an earlier export
// delivered, and returns how many it delivered.
func ExportMaildir(dir, out string) (int, error) { return mirror.ExportMaildir(dir, out) }
