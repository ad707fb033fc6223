// Package http is the driver of the http scheme (RFC 1738 section 3.3) and,
// as a convenience, https (port 443), on top of net/http.
//
// The driver sends one GET per Fetch and never follows a redirect itself: a
// 3xx reply with a Location header is returned as a *proto.Redirect holding
// the absolute target, so that the caller checks the target with package
// safety before anything is sent to it.
//
// Deviations and choices:
//   - User name and password in an http URL are not sent: RFC 1738 section
//     3.3 gives http URLs no user information (package safety warns).
//   - The path and search part are sent in their escaped form; characters
//     the RFC calls unsafe that appear unencoded (a space, "{") are encoded
//     on the way out. A raw CR, LF or NUL in any part of a URL struct (only
//     possible when the caller built the struct without uri.Parse) is
//     refused with proto.ErrUnsafeArgument.
//   - No proxy from the environment is used, and no compression is asked
//     for, so that the bytes received are the bytes the server holds.
//   - The response body streams; an HTML index page stays KindData.
//   - Resume uses a Range request; a server that answers 200 restarts from
//     byte 0 (Response.Offset 0).
package http

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Driver fetches http and https URLs. The zero value is ready to use and
// safe for concurrent use. Each Fetch uses its own connection, dialled with
// the request's dialer; it is closed with the body. With KeepAlive, the
// connections are kept and reused instead.
//
// A Driver is configured when it is made (New, or the fields of its
// Config before first use), not changed afterwards. Clone makes another
// driver with the same Config.
type Driver struct {
	Config

	// offerH2: the KeepAlive pool offers HTTP/2 (ForRun).
	offerH2 bool

	mu       sync.Mutex
	shared   *http.Transport // the KeepAlive pool
	sharedH2 bool            // it offers HTTP/2
	streams  chan struct{}   // Revalidate's requests in progress on it (multiplex)
	// Revalidate's kept connections by server, the servers seen not to
	// pipeline, and those that answered the pool over HTTP/2.
	pipes  map[string][]*pipeConn
	serial map[string]bool
	h2     map[string]bool
}

// Config is the configuration of a Driver. The zero value is the
// defaults.
type Config struct {
	// TLSClientConfig configures https. Nil means the default (system
	// roots, certificate and host name verified).
	TLSClientConfig *tls.Config

	// UserAgent is sent in the User-Agent header. Empty means "fetch".
	UserAgent string

	// KeepAlive keeps connections open once a body has been read to its
	// end, and reuses them for the next Fetch to the same server (a
	// mirror fetches many files in a row). The pool is made at the first
	// Fetch, with that Request's dialer and timeouts: callers that change
	// the dial policy between requests use one Driver per policy. An idle
	// connection is closed after the idle timeout, or by
	// CloseIdleConnections.
	KeepAlive bool
}

// New returns a Driver with the configuration c.
func New(c Config) *Driver { return &Driver{Config: c} }

// Clone returns a new Driver with d's Config and no connections: a
// caller that needs other settings for its own use (a mirror's run)
// clones the driver it was given and changes the clone's Config before
// first use, keeping every setting it does not change.
func (d *Driver) Clone() *Driver { return New(d.Config) }

var (
	_ proto.Driver     = (*Driver)(nil)
	_ proto.IdleCloser = (*Driver)(nil)
)

// drainMax is how much of a redirect's or an error's body is read, with
// KeepAlive, so that its connection can serve the next request; a longer
// body closes the connection instead.
const drainMax = 64 << 10

// keptPerHost bounds the idle connections the KeepAlive pool keeps per
// server: enough for the parallel workers of a mirror.
const keptPerHost = 32

// CloseIdleConnections closes the connections KeepAlive keeps idle, and
// those Revalidate keeps.
func (d *Driver) CloseIdleConnections() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shared != nil {
		d.shared.CloseIdleConnections()
	}
	d.closePipes()
}

// transportFor returns the transport of one Fetch: the KeepAlive pool
// (shared), or one of its own that the body closes. A pool made with
// offerH2 offers HTTP/2, unless its first request records the exchange's
// bytes (a WARC capture, which holds HTTP/1.1 messages): a recorded
// request never goes on a pool that offers HTTP/2.
func (d *Driver) transportFor(req *proto.Request) (tr *http.Transport, shared bool) {
	if !d.KeepAlive {
		return d.transport(req), false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shared == nil {
		base := *req
		base.Trace, base.Options = nil, proto.Options{}
		tr := d.transport(&base)
		d.sharedH2 = d.offerH2 && !req.Options.HTTP.Exchange
		d.setDial(tr, base.DialKept, base.ConnectTimeout, d.sharedH2)
		tr.ForceAttemptHTTP2 = d.sharedH2
		d.streams = make(chan struct{}, h2Streams)
		tr.MaxIdleConnsPerHost = keptPerHost
		tr.IdleConnTimeout = base.Idle()
		d.shared = tr
	}
	if d.sharedH2 && req.Options.HTTP.Exchange {
		return d.transport(req), false
	}
	return d.shared, true
}

// Fetch sends a GET for u. On success
// the returned body must be closed. A status other than 2xx is an error: a
// *StatusError that wraps proto.ErrNotFound (404, 410), proto.ErrLogin (401,
// 407) or proto.ErrPermission (403); a 3xx with Location is a
// *proto.Redirect.
//
// Request.Options fields read: HeadersOnly (HEAD; the status line and
// header are the body), IfModifiedSince (a conditional GET; a 304 is a
// Response with NotModified set) and HTTP.Exchange (the exchange's bytes
// in Response.Info, for package warc).
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if req == nil {
		req = &proto.Request{}
	}
	target, err := requestURL(u)
	if err != nil {
		return nil, err
	}
	var h head
	hreq, err := d.newRequest(h.watch(ctx), target, req)
	if err != nil {
		return nil, err
	}
	if req.Options.HTTP.Exchange {
		h.x = newExchange()
	}
	x := h.x
	tr, shared := d.transportFor(req)
	t := tracer{w: req.Trace}
	if u.User != nil {
		t.note("user information in the URL is not sent (RFC 1738 section 3.3)")
	}
	h.t, h.req = t, hreq
	// b ends the exchange on a failure too (the recording, tr if its own).
	b := &body{rc: http.NoBody, tr: tr, keep: shared, x: x, h: &h}
	hresp, err := tr.RoundTrip(hreq)
	if err != nil {
		b.Close()
		return nil, roundTripError(h.classify(err))
	}
	d.answered(u, hresp, t)
	resp, err := response(target, hreq, hresp, req.Offset)
	if err == nil && x != nil {
		err = x.headDone(resp, hreq, hresp)
	}
	if err != nil {
		x.stop()
		if shared {
			// A redirect's or an error's body, read to its end (up to
			// drainMax), leaves the connection fit for the next request.
			io.CopyN(io.Discard, hresp.Body, drainMax)
		}
		b.rc = hresp.Body
		b.Close()
		return nil, err
	}
	resp.Name = remoteName(u)
	b.rc, resp.Body = resp.Body, b
	return resp, nil
}

// roundTripError is the error of a request that got no response, as
// head.classify gave it: a failed dial or look-up as it is (it names what
// it dialled or looked up), the rest after "http: ".
func roundTripError(err error) error {
	var (
		oe *net.OpError
		de *net.DNSError
	)
	if errors.As(err, &oe) && oe.Op == "dial" || errors.As(err, &de) {
		return err
	}
	return fmt.Errorf("http: %w", err)
}

func (d *Driver) newRequest(ctx context.Context, target *url.URL, req *proto.Request) (*http.Request, error) {
	method := http.MethodGet
	if req.Options.HeadersOnly {
		method = http.MethodHead
	}
	hreq, err := http.NewRequestWithContext(ctx, method, "", nil)
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	hreq.URL = target
	hreq.Host = target.Host
	hreq.Header.Set("User-Agent", cmp.Or(d.UserAgent, "fetch"))
	if req.Offset > 0 && method == http.MethodGet {
		hreq.Header.Set("Range", fmt.Sprintf("bytes=%d-", req.Offset))
		if t := req.Options.IfRange; !t.IsZero() {
			hreq.Header.Set("If-Range", t.UTC().Format(http.TimeFormat))
		}
	}
	if t := req.Options.IfModifiedSince; !t.IsZero() && method == http.MethodGet && req.Offset == 0 {
		hreq.Header.Set("If-Modified-Since", t.UTC().Format(http.TimeFormat))
	}
	return hreq, nil
}

// transport builds the per-call transport: the request's dialer and
// timeouts, no proxy, no compression.
func (d *Driver) transport(req *proto.Request) *http.Transport {
	tr := &http.Transport{
		ResponseHeaderTimeout:  req.Idle(),
		DisableCompression:     true,
		MaxResponseHeaderBytes: 1 << 20,
	}
	d.setDial(tr, req.DialContext, req.ConnectTimeout, false)
	return tr
}

// setDial makes tr dial with dial, every HTTP/1.1 connection a recConn
// (see exchange.go): for https, the TLS handshake is made here, within
// the connect timeout ct, so that the recConn is above TLS. With h2 the
// handshake offers HTTP/2 too (ALPN, RFC 9113 section 3.2), and a
// connection that agreed on it is the bare *tls.Conn net/http's HTTP/2
// client needs (tr must then allow HTTP/2).
func (d *Driver) setDial(tr *http.Transport, dial func(ctx context.Context, network, addr string) (net.Conn, error), ct time.Duration, h2 bool) {
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &recConn{Conn: c}, nil
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		tc, err := d.handshake(ctx, c, host, ct, h2)
		if err != nil {
			return nil, err
		}
		if connProto(tc) == h2Proto {
			return tc, nil
		}
		return &recConn{Conn: tc}, nil
	}
}

// h2Proto is the protocol version net/http gives an HTTP/2 response.
const h2Proto = "HTTP/2.0"

// connProto is the protocol spoken on c, a connection of the driver's
// transports: HTTP/2 where the TLS handshake agreed on it.
func connProto(c net.Conn) string {
	if tc, ok := c.(*tls.Conn); ok && tc.ConnectionState().NegotiatedProtocol == "h2" {
		return h2Proto
	}
	return "HTTP/1.1"
}

// answered traces hresp, the response to a GET of u, and notes a server
// that answered over HTTP/2 (on the pool: the only transport that offers
// it): Revalidate multiplexes its requests there.
func (d *Driver) answered(u *uri.URL, hresp *http.Response, t tracer) {
	t.response(hresp)
	if hresp.ProtoMajor != 2 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.h2 == nil {
		d.h2 = map[string]bool{}
	}
	d.h2[pipeKey(u)] = true
}

// requestURL turns u into the net/url form sent on the wire, refusing raw
// CR, LF and NUL and encoding the unsafe characters.
func requestURL(u *uri.URL) (*url.URL, error) {
	if _, err := u.HTTP(); err != nil {
		return nil, err
	}
	for _, part := range []string{u.Host, u.Port, u.Path, u.RawQuery} {
		if err := proto.CheckArg(part); err != nil {
			return nil, fmt.Errorf("http: %w", err)
		}
	}
	if u.Host == "" {
		return nil, fmt.Errorf("http: URL has no host: %w", proto.ErrNoAccessMethod)
	}
	host := u.Host
	if u.Port != "" {
		host += ":" + u.Port
	}
	p := cmp.Or(escapeUnsafe(u.Path), "/")
	t := &url.URL{Scheme: u.Scheme, Host: host, RawPath: p, RawQuery: escapeUnsafe(u.RawQuery), ForceQuery: u.ForceQuery}
	dec, err := url.PathUnescape(p)
	if err != nil {
		return nil, fmt.Errorf("http: path: %w", err)
	}
	t.Path = dec
	return t, nil
}

// escapeUnsafe encodes the bytes that may not appear in a request target:
// controls, space, non-ASCII and the unsafe characters of RFC 1738 section
// 2.2 other than "%" (the text is already in escaped form) and "#".
func escapeUnsafe(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}#", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// remoteName is the last segment of u's path, decoded; empty for a
// directory.
func remoteName(u *uri.URL) string {
	p := u.Path
	if p == "" || strings.HasSuffix(p, "/") {
		return ""
	}
	name, err := uri.Unescape(path.Base(p))
	if err != nil {
		return ""
	}
	return name
}

// mediaType returns the media type of a Content-Type value, or "".
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// body closes the response body and the per-call transport (not the
// KeepAlive pool, keep). Close may be called more than once.
type body struct {
	rc   io.ReadCloser
	tr   *http.Transport
	keep bool
	x    *exchange // nil when not recorded
	h    *head     // classifies read errors (bodyErr)
	once sync.Once
	err  error
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil {
		b.x.stop()
		err = b.h.bodyErr(err)
	}
	return n, err
}

func (b *body) Close() error {
	b.once.Do(func() {
		b.err = b.rc.Close()
		b.x.stop()
		if !b.keep {
			b.tr.CloseIdleConnections()
		}
	})
	return b.err
}
