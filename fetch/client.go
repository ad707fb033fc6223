// Package fetch retrieves the resources named by the URL schemes of RFC 1738
// (ftp, http, gopher, news, nntp, file, telnet, mailto, wais, prospero, and
// https as a convenience).
//
// A Client takes a URL through three steps, in this order:
//
//  1. uri.Parse; a malformed URL is a *uri.Error.
//  2. The safety policy (safety.Policy.Evaluate): a URL with an error-level
//     finding is refused before anything else happens — no DNS look-up, no
//     connection.
//  3. The driver registered for the scheme (see Registry), with a dialer
//     that resolves host names through Client.Resolver and enforces the
//     policy's private-address rule on each resolved address.
//
// A driver that answers with a *proto.Redirect (an HTTP 3xx, a gateway,
// file-via-ftp) sends the client back to step 1 with the target, a bounded
// number of times, once the hop itself is allowed, before anything is sent
// to the target: a redirect from a network URL to file: is refused; an
// HTTP redirect may lead only to the schemes of RedirectProtocols; a
// redirect from a public address may not lead to a local one unless
// AllowPrivateRedirect is set (judged on each address the target resolves
// to, at dial time); a mirror's redirect may not leave its server.
//
// Every error is a *Error whose URL is redacted; ExitCode classifies it.
package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// Client fetches URLs. The zero value is ready to use: the default
// registry, the default safety policy, default timeouts, no trace. A Client
// is safe for concurrent use; do not change its fields while it is in use.
type Client struct {
	// Registry maps schemes to drivers. Nil means DefaultRegistry().
	Registry *Registry

	// Policy decides which URLs and destinations are refused. The zero
	// value is the default policy.
	Policy safety.Policy

	// ConnectTimeout bounds each connection attempt. Zero means
	// proto.DefaultConnectTimeout.
	ConnectTimeout time.Duration

	// IdleTimeout bounds each wait for the server. Zero means
	// proto.DefaultIdleTimeout.
	IdleTimeout time.Duration

	// MaxTime bounds a whole fetch, from parsing to the last byte of the
	// body. Zero means no limit.
	MaxTime time.Duration

	// SpeedLimit and SpeedTime cut a transfer whose body arrives slower
	// than SpeedLimit bytes a second, on average over SpeedTime (curl's
	// --speed-limit and --speed-time): its body's Read then fails with a
	// *SpeedError (errors.Is ErrTooSlow), which Transient counts as worth
	// a retry. Zero in either means no such limit.
	SpeedLimit int64
	SpeedTime  time.Duration

	// MaxRedirects bounds the redirects followed for one fetch. Zero means
	// 10; a negative value means none are followed.
	MaxRedirects int

	// RedirectProtocols are the schemes an HTTP redirect (from an http or
	// https URL) may lead to (curl's --proto-redir; see
	// ParseRedirectProtocols). Nil means the schemes whose driver is a
	// proto.RedirectTarget: ftp, http and https of the built-in ones. A
	// redirect to file: (a proto.Local driver) is refused whatever it
	// holds.
	RedirectProtocols []string

	// AllowPrivateRedirect lets a redirect from a public address lead to
	// a loopback, private or link-local one (--allow-private-redirect).
	// False refuses it, as browsers' Private Network Access does: a
	// server on the Internet cannot steer the client to this machine or
	// its network. Redirects from a local address are not concerned.
	AllowPrivateRedirect bool

	// Trace receives the protocol transcript ("> " sent, "< " received,
	// "* " notes such as look-ups, connections and redirects), passwords
	// redacted. Nil means no trace.
	Trace io.Writer

	// Prompt asks the person at the terminal (passwords, search strings).
	// Nil means there is nobody to ask.
	Prompt proto.Prompter

	// Options are scheme-specific settings given to every driver (see
	// proto.Options); the fields a request's own Options set override
	// them (proto.Options.Merge). The zero value is every driver's
	// default.
	Options proto.Options

	// Resolver looks up host names. Nil means net.DefaultResolver. Tests
	// set it to count look-ups or to map made-up names.
	Resolver Resolver

	// Dial connects to a resolved "ip:port" address after the policy has
	// allowed it. Nil means a net.Dialer that also enforces the policy
	// (safety.Policy.Control). Tests set it to count connections.
	Dial proto.DialFunc

	// LimitRate holds the body of each fetch to this many bytes a second
	// on average (curl's --limit-rate): a token bucket of its own, with a
	// burst of a sixteenth of a second's worth (at most 64 KiB). The time
	// a body waits for it does not count against SpeedLimit, which judges
	// the server, not this limit. Zero means no limit.
	LimitRate int64

	// LimitRateTotal holds the bodies of all the fetches of this Client
	// together (a whole mirror run, several URLs) to this many bytes a
	// second: one bucket they share, as LimitRate's, made at the client's
	// first fetch (as are Wait's and MaxHostConns' shared states). Zero
	// means no limit.
	LimitRateTotal int64

	// Wait spaces the requests of this Client to one host (by host name,
	// whatever the port): a request starts Wait after the start of the
	// one before it, whichever goroutine makes it (wget's --wait). A
	// request is one call of a driver's Fetch: a file, a directory
	// listing, a redirect's hop, a retry; not the commands within it
	// (FTP's CWD, SIZE, PASV). Zero means no wait.
	Wait time.Duration

	// RandomWait draws each wait between 0.5 and 1.5 times Wait (wget's
	// --random-wait). False waits Wait exactly.
	RandomWait bool

	// MaxHostConns bounds the fetches of this Client in progress to one
	// host at once (each holds one connection, FTP's data connection
	// aside, from its request until its body is closed); others wait
	// their turn. It also bounds the Jobs of a Mirror. Zero means no
	// limit.
	MaxHostConns int
	// WARC, when not nil, receives a record of every resource fetched
	// (package warc): the body's bytes as the caller reads them, written
	// once it is read to its end and closed; and every article a news
	// Mirror stores (a crosspost once). Nil means none.
	WARC *warc.Writer

	traceMu sync.Mutex
	polite  polite
}

// Response is a fetched resource. The caller must close Body. Body has a
// WriteTo method, so io.Copy from it uses the driver's own copy loop when
// the driver has one (the ftp driver's reads 256 KiB at a time).
type Response struct {
	proto.Response

	// URL is the URL that was fetched, after any redirects.
	URL *uri.URL

	// Redirects lists the URLs redirected from, redacted, in order.
	Redirects []string

	// Findings are the safety findings about URL below Error level
	// (warnings and notes worth showing to the user).
	Findings []safety.Finding
}

const defaultMaxRedirects = 10

// Get fetches rawURL with the client's settings. The returned body must be
// closed. An FTP URL without ;type= is fetched as text (TYPE A, line ends
// converted) when its name looks like text, as RFC 1738 section 3.2.2
// asks; ftp.TypeOf(&resp.Response) says so, and
// Options.FTP.Binary keeps the stored bytes instead.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	return c.Fetch(ctx, rawURL, nil)
}

// Fetch fetches rawURL. req carries per-call settings (Offset, Search,
// Form, Raw, Options); nil means none. The client fills in its dialer,
// timeouts, trace and prompter where req leaves them zero. The returned
// body must be closed.
func (c *Client) Fetch(ctx context.Context, rawURL string, req *proto.Request) (*Response, error) {
	u, err := uri.Parse(rawURL)
	if err != nil {
		return nil, &Error{Op: "parse", URL: safety.Redact(rawURL), Err: err}
	}
	return c.FetchURL(ctx, u, req)
}

// FetchURL is Fetch for a URL already parsed. u is checked with the safety
// policy like any other.
func (c *Client) FetchURL(ctx context.Context, u *uri.URL, req *proto.Request) (*Response, error) {
	return c.fetchURL(ctx, u, req, scope{lookup: c.registry().Lookup})
}

// Checked is a URL that a Client's policy allowed (Client.Check), with the
// findings of that evaluation. FetchChecked fetches it without evaluating
// it again, as often as the caller retries; the targets of its redirects
// are evaluated as always.
type Checked struct {
	url      *uri.URL
	findings []safety.Finding
	policy   *Client
}

// URL returns the URL that was checked.
func (ck *Checked) URL() *uri.URL { return ck.url }

// Check evaluates u with the client's policy, once, for a caller that shows
// the findings before fetching (the command's warnings). A refused URL is a
// *Error wrapping the policy's refusal, with a nil *Checked; the findings
// are those of Policy.Evaluate either way.
func (c *Client) Check(u *uri.URL) (*Checked, []safety.Finding, error) {
	findings, err := c.policy().Evaluate(u)
	if err != nil {
		return nil, findings, &Error{Op: "check", URL: u.Redacted(), Err: err}
	}
	return &Checked{url: u, findings: findings, policy: c}, findings, nil
}

// FetchChecked is FetchURL for a URL that Check allowed. A Checked made by
// another Client is evaluated again under this client's policy.
func (c *Client) FetchChecked(ctx context.Context, ck *Checked, req *proto.Request) (*Response, error) {
	sc := scope{lookup: c.registry().Lookup}
	if ck.policy == c {
		sc.checked = ck
	}
	return c.fetchURL(ctx, ck.url, req, sc)
}

// scope is what a fetch may reach: the drivers that lookup finds and, when
// stay is not nil (a mirror), stay's server only. ownDial tells that the
// request dials with the client's own dial (the caller gave no Dial).
type scope struct {
	lookup  lookupFunc
	stay    *uri.URL
	ownDial bool
	// checked, when not nil, is the first URL's evaluation, made by
	// Check: follow does not repeat it.
	checked *Checked
}

// fetchURL is FetchURL within sc.
func (c *Client) fetchURL(ctx context.Context, u *uri.URL, req *proto.Request, sc scope) (*Response, error) {
	cancel := context.CancelFunc(func() {})
	if c.MaxTime > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.MaxTime)
	}
	var stall context.CancelFunc
	if c.SpeedLimit > 0 && c.SpeedTime > 0 {
		ctx, stall = context.WithCancel(ctx)
		maxTime := cancel
		cancel = func() { stall(); maxTime() }
	}
	var tb *capBuf
	start := time.Now()
	sc.ownDial = req == nil || req.Dial == nil
	req = c.request(req)
	if c.WARC != nil {
		tb = c.warcRequest(u, req, sc.lookup)
	}
	resp, err := c.follow(ctx, u, req, sc)
	if err != nil {
		cancel()
		return nil, err
	}
	var sb *speedBody
	if stall != nil {
		sb = newSpeedBody(resp.Body, c.SpeedLimit, c.SpeedTime, stall)
		resp.Body = sb
	}
	if c.limited() {
		resp.Body = c.limitBody(ctx, resp.Body, sb)
	}
	resp.Body = &closeBody{rc: resp.Body, done: cancel}
	if c.WARC != nil {
		if err := c.warcBody(resp, req, tb, start, sc.lookup); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	return resp, nil
}

// lookupFunc finds the driver of a scheme: the registry's Lookup, or a
// caller's override of some schemes (the mirror's own HTTP driver).
type lookupFunc func(scheme string) (proto.Driver, bool)

// Prepare checks u with the client's policy and returns req completed
// with the client's dialer, timeouts, trace, prompter and options, for
// calling a driver's entry points other than Fetch (a telnet session, a
// Lister) under the same rules. A refused URL is a *Error wrapping the
// policy's refusal; the findings are those of Policy.Evaluate.
func (c *Client) Prepare(u *uri.URL, req *proto.Request) (*proto.Request, []safety.Finding, error) {
	_, findings, err := c.Check(u)
	if err != nil {
		return nil, findings, err
	}
	return c.request(req), findings, nil
}

// Driver returns the client as a proto.Driver: each Fetch goes through
// FetchURL (safety checks, redirects, the client's dialer) and returns the
// final response, so that code written against proto.Driver gets the
// client's policy.
func (c *Client) Driver() proto.Driver { return clientDriver{c} }

type clientDriver struct{ c *Client }

func (d clientDriver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	resp, err := d.c.FetchURL(ctx, u, req)
	if err != nil {
		return nil, err
	}
	return &resp.Response, nil
}

// CloseIdleConnections closes the connections drivers keep between calls.
func (c *Client) CloseIdleConnections() { c.registry().closeIdle() }

// policy is the client's Policy, with its registry as the Wire when the
// Policy has none: the drivers say what they write of a URL.
func (c *Client) policy() safety.Policy {
	p := c.Policy
	if p.Wire == nil {
		p.Wire = c.registry()
	}
	return p
}

func (c *Client) registry() *Registry {
	if c.Registry != nil {
		return c.Registry
	}
	return defaultRegistry()
}

// gatewayReason is the Reason of the *proto.Redirect a gateway driver
// returns (package proto/gateway).
const gatewayReason = "gateway"

// follow fetches u, following the redirects that vetHop allows.
func (c *Client) follow(ctx context.Context, u *uri.URL, req *proto.Request, sc scope) (*Response, error) {
	var chain []string
	op := "get" // what the failure of u is: "redirect" or "gateway" after one
	hopReq := req
	var hop *privateHop // the private-address guard of u's fetch
	for {
		findings, err := c.evaluate(u, &sc)
		if err != nil {
			return nil, err
		}
		pr, err := c.fetchOnce(ctx, u, hopReq, sc.lookup)
		var r *proto.Redirect
		if !errors.As(err, &r) {
			if err != nil {
				return nil, &Error{Op: op, URL: u.Redacted(), Err: err}
			}
			resp := &Response{Response: *pr, URL: u, Redirects: chain, Findings: findings}
			if len(chain) > 0 {
				resp.Location = u
			}
			return resp, nil
		}
		next, err := c.redirect(u, r, len(chain), sc.lookup)
		if err != nil {
			return nil, err
		}
		c.tracef("* redirect (%s) to %s", r.Reason, next.Redacted())
		// A gateway is the user's own template, not a server's choice:
		// only a mirror's stay-on-the-server rule applies to it.
		if r.Reason != gatewayReason || sc.stay != nil {
			if hop, err = c.vetHop(ctx, u, next, r.Limited, sc.stay, hop); err != nil {
				return nil, err
			}
			hopReq = c.hopRequest(req, hop, sc.ownDial)
		}
		chain = append(chain, u.Redacted())
		u = next
		op = "redirect"
		if r.Reason == "gateway" {
			op = "gateway"
		}
	}
}

// evaluate checks u with the policy, unless u is sc's checked URL, whose
// evaluation it takes once.
func (c *Client) evaluate(u *uri.URL, sc *scope) ([]safety.Finding, error) {
	if ck := sc.checked; ck != nil && ck.url == u {
		sc.checked = nil
		return ck.findings, nil
	}
	_, findings, err := c.Check(u)
	return findings, err
}

// redirect parses and vets the target of r, the hops-th redirect from u,
// refusing one from a driver of lookup that is not local to one that is.
// vetHop judges the hop next; the target's safety check happens at the
// top of follow's loop.
func (c *Client) redirect(u *uri.URL, r *proto.Redirect, hops int, lookup lookupFunc) (*uri.URL, error) {
	max := cmp.Or(c.MaxRedirects, defaultMaxRedirects)
	if hops >= max {
		return nil, &Error{Op: "redirect", URL: u.Redacted(), Err: fmt.Errorf("%w (%d)", ErrTooManyRedirects, hops)}
	}
	next, err := uri.Parse(r.URL)
	if err != nil {
		return nil, &Error{Op: "redirect", URL: safety.Redact(r.URL), Err: err}
	}
	if local(lookup, next.Scheme) && !local(lookup, u.Scheme) {
		re := &RedirectError{Rule: RuleRedirectToFile, From: u.Redacted(), To: next.Redacted()}
		return nil, &Error{Op: "redirect", URL: u.Redacted(), Err: re}
	}
	return next, nil
}

// fetchOnce hands u to its driver.
func (c *Client) fetchOnce(ctx context.Context, u *uri.URL, req *proto.Request, lookup lookupFunc) (*proto.Response, error) {
	d, ok := lookup(u.Scheme)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnsupportedScheme, u.Scheme)
	}
	release := func() {}
	if c.Wait > 0 || c.MaxHostConns > 0 {
		var err error
		if release, err = c.admit(ctx, u); err != nil {
			return nil, err
		}
	}
	resp, err := d.Fetch(ctx, u, req)
	switch {
	case err != nil:
		release()
		return nil, err
	case resp == nil:
		release()
		// A bug of the driver, not of the server: no protocol error.
		return nil, fmt.Errorf("fetch: the %s driver returned neither a response nor an error", u.Scheme)
	case resp.Body == nil:
		resp.Body = http.NoBody
	}
	if c.MaxHostConns > 0 {
		resp.Body = &closeBody{rc: resp.Body, done: release}
	}
	return resp, nil
}

// request returns a copy of req completed with the client's settings.
func (c *Client) request(req *proto.Request) *proto.Request {
	r := proto.Request{}
	if req != nil {
		r = *req
	}
	if r.Dial == nil {
		r.Dial = c.dialer(nil)
	}
	r.ConnectTimeout = cmp.Or(r.ConnectTimeout, c.ConnectTimeout)
	r.IdleTimeout = cmp.Or(r.IdleTimeout, c.IdleTimeout)
	if r.Trace == nil && c.Trace != nil {
		r.Trace = &lockedWriter{mu: &c.traceMu, w: c.Trace}
	}
	r.Prompt = cmp.Or(r.Prompt, c.Prompt)
	r.Options = c.Options.Merge(r.Options)
	return &r
}

func (c *Client) tracef(format string, args ...any) {
	if c.Trace == nil {
		return
	}
	c.traceMu.Lock()
	defer c.traceMu.Unlock()
	fmt.Fprintf(c.Trace, format+"\n", args...)
}

// lockedWriter serialises the trace lines of concurrent fetches.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// closeBody runs done once, when the body is first closed: it releases
// the MaxTime context (fetchURL) or the connection that admit gave
// (fetchOnce). Close may be called more than once.
//
// Cancellation reaches the data through the driver: the context a driver
// was given (the caller's, bounded by MaxTime) closes its connections when
// it ends, so Read and WriteTo both fail from then on.
type closeBody struct {
	rc   io.ReadCloser
	done func()
	once sync.Once
	err  error
}

func (b *closeBody) Read(p []byte) (int, error) { return b.rc.Read(p) }

// WriteTo lets io.Copy use the driver body's own WriteTo (the ftp driver
// reads 256 KiB at a time), which a wrapper with only Read would hide. A
// body without one is copied by w's ReadFrom when w has one, else through
// a copyBufferSize buffer.
func (b *closeBody) WriteTo(w io.Writer) (int64, error) { return copyTo(w, b.rc) }

func (b *closeBody) Close() error {
	b.once.Do(func() {
		b.err = b.rc.Close()
		b.done()
	})
	return b.err
}

// copyTo copies r to w as closeBody.WriteTo says: with r's WriteTo, else
// w's ReadFrom, else through a pooled buffer.
func copyTo(w io.Writer, r io.Reader) (int64, error) {
	if wt, ok := r.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	return io.CopyBuffer(w, r, *bp)
}

// copyBufferSize is the buffer of closeBody.WriteTo for bodies that have
// no WriteTo: io.Copy's 32 KiB costs a read per 32 KiB on a fast
// connection.
const copyBufferSize = 256 << 10

var copyBuffers = sync.Pool{New: func() any {
	b := make([]byte, copyBufferSize)
	return &b
}}
