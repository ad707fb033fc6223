package http

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// pipeDepth bounds the requests Revalidate sends ahead of their responses
// on one connection: enough for a directory of an index tree in one round
// trip (at 20 ms, 25 files a directory re-ran in 0.23 s at 32, 0.43 s at
// 8), and at about 200 bytes a request, well within a socket's buffers.
const pipeDepth = 32

// A Check is one conditional request of Revalidate: a GET of URL with
// If-Modified-Since Since.
type Check struct {
	URL   *uri.URL
	Since time.Time
}

// ErrSerial is returned by Revalidate for a server that was seen not to
// pipeline: the caller asks one request at a time (Fetch).
var ErrSerial = fmt.Errorf("http: the server does not pipeline: %w", errors.ErrUnsupported)

// Revalidate sends the conditional GETs of checks, all on one server,
// pipelined on one kept-alive connection (RFC 9112 section 9.3.2): up to
// pipeDepth (32) requests are sent before their responses are read, in order.
// same[i] is true when checks[i] was answered 304 Not Modified (RFC 9110
// section 15.4.5), with no Last-Modified after Since. Every other answer
// leaves same[i] false, for the caller to ask again with Fetch, which
// follows its own path (a redirect is vetted there, a changed file is
// saved there): a response with a body of at most drainMax bytes is read
// and dropped, a longer one ends the pipeline.
//
// The first sign that the server does not pipeline ends it too and makes
// every later call return ErrSerial at once: a closed connection before
// the connection answered two requests, a response without a length, an
// HTTP/1.0 response, a 304 that does not fit its request. The error is
// then that sign; same holds what was answered before it.
//
// Connections are dialled with req's DialKept (its dialer and timeouts),
// kept between calls (closed by CloseIdleConnections), and each read and
// write waits at most req's idle timeout; cancelling ctx closes the
// connection in use.
//
// A server that answered the KeepAlive pool over HTTP/2 gets the requests
// there instead, as streams of its connection (RFC 9113 section 5),
// answered in any order (multiplex).
func (d *Driver) Revalidate(ctx context.Context, req *proto.Request, checks []Check) (same []bool, err error) {
	same = make([]bool, len(checks))
	if len(checks) == 0 {
		return same, nil
	}
	if req == nil {
		req = &proto.Request{}
	}
	key, reqs, err := d.pipeRequests(ctx, checks)
	if err != nil {
		return same, err
	}
	if pool := d.h2Pool(key); pool != nil {
		return same, d.multiplex(ctx, pool, tracer{w: req.Trace}, reqs, checks, same)
	}
	return same, d.pipeline(ctx, req, key, reqs, checks, same)
}

// pipeline sends reqs pipelined on a connection to key's server, as
// Revalidate says.
func (d *Driver) pipeline(ctx context.Context, req *proto.Request, key string, reqs []*http.Request, checks []Check, same []bool) error {
	if d.isSerial(key) {
		return ErrSerial
	}
	for try := 0; ; try++ {
		pc, reused, err := d.pipeConn(ctx, req, key, checks[0].URL)
		if err != nil {
			return err
		}
		res := pc.exchange(ctx, reqs, checks, same, tracer{w: req.Trace})
		switch {
		case res.keep:
			d.putPipe(key, pc)
		default:
			pc.Close()
		}
		if res.stale && reused && try == 0 {
			continue // an idle connection the server had closed: once more on a new one
		}
		if res.serial {
			d.setSerial(key)
		}
		return res.err
	}
}

// pipeRequests builds the GETs of checks and the key of their server,
// failing when they are not all on one server.
func (d *Driver) pipeRequests(ctx context.Context, checks []Check) (string, []*http.Request, error) {
	key := pipeKey(checks[0].URL)
	reqs := make([]*http.Request, len(checks))
	for i, c := range checks {
		if k := pipeKey(c.URL); k != key {
			return "", nil, fmt.Errorf("http: pipelined requests to %s and %s: %w", key, k, proto.ErrUnsafeArgument)
		}
		target, err := requestURL(c.URL)
		if err != nil {
			return "", nil, err
		}
		hreq, err := d.newRequest(ctx, target, &proto.Request{Options: proto.Options{IfModifiedSince: c.Since}})
		if err != nil {
			return "", nil, err
		}
		reqs[i] = hreq
	}
	return key, reqs, nil
}

// pipeKey names the server of u: scheme, host and port.
func pipeKey(u *uri.URL) string {
	return u.Scheme + "://" + pipeAddr(u)
}

// pipeAddr is the address of u's server, its port the scheme's default
// when u names none.
func pipeAddr(u *uri.URL) string {
	return net.JoinHostPort(u.Hostname(), strconv.Itoa(u.PortNumber()))
}

func (d *Driver) isSerial(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.serial[key]
}

// h2Pool is the KeepAlive pool when key's server answered it over
// HTTP/2, else nil.
func (d *Driver) h2Pool(key string) *http.Transport {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.h2[key] {
		return d.shared
	}
	return nil
}

// h2Streams bounds the conditional requests that Revalidate's calls have
// in progress over HTTP/2, all together: 100, the least a server should
// allow at once on a connection (RFC 9113 section 6.5.2), so that they
// fit on one (net/http opens another past the server's limit).
const h2Streams = 100

// multiplex sends reqs on pool, within h2Streams, and sets same[i] for
// each 304 that fits checks[i]; a response that ends the pipeline of
// HTTP/1.1 (verdict) ends nothing here: its stream is closed alone. The
// error is the first request's that failed, or ctx's.
func (d *Driver) multiplex(ctx context.Context, pool *http.Transport, t tracer, reqs []*http.Request, checks []Check, same []bool) error {
	var (
		mu    sync.Mutex // t, first
		first error
		wg    sync.WaitGroup
	)
	defer wg.Wait()
	for i, hreq := range reqs {
		select {
		case d.streams <- struct{}{}:
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			return cmp.Or(first, ctx.Err())
		}
		wg.Go(func() {
			defer func() { <-d.streams }()
			resp, err := pool.RoundTrip(hreq)
			if err == nil {
				same[i], _ = verdict(resp, checks[i].Since)
			}
			mu.Lock()
			defer mu.Unlock()
			t.request(hreq, h2Proto)
			if err != nil {
				first = cmp.Or(first, fmt.Errorf("http: %w", err))
				return
			}
			t.response(resp)
		})
	}
	wg.Wait()
	return first
}

func (d *Driver) setSerial(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.serial == nil {
		d.serial = map[string]bool{}
	}
	d.serial[key] = true
}

// pipeConn takes a kept connection to key's server, or dials one; reused
// says which.
func (d *Driver) pipeConn(ctx context.Context, req *proto.Request, key string, u *uri.URL) (pc *pipeConn, reused bool, err error) {
	d.mu.Lock()
	if n := len(d.pipes[key]); n > 0 {
		pc = d.pipes[key][n-1]
		d.pipes[key] = d.pipes[key][:n-1]
	}
	d.mu.Unlock()
	if pc != nil {
		return pc, true, nil
	}
	c, err := req.DialKept(ctx, "tcp", pipeAddr(u))
	if err != nil {
		return nil, false, err
	}
	if u.Scheme == "https" {
		if c, err = d.handshake(ctx, c, u.Hostname(), req.ConnectTimeout, false); err != nil {
			return nil, false, err
		}
	}
	return &pipeConn{Conn: c, br: bufio.NewReader(c), bw: bufio.NewWriter(c)}, false, nil
}

// handshake makes the TLS handshake on c within the connect timeout ct,
// offering HTTP/1.1, and HTTP/2 too with h2 (pipelining is an HTTP/1.1
// matter). c is closed when it fails.
func (d *Driver) handshake(ctx context.Context, c net.Conn, host string, ct time.Duration, h2 bool) (*tls.Conn, error) {
	if ct <= 0 {
		ct = proto.DefaultConnectTimeout
	}
	cfg := proto.TLSClient(d.TLSClientConfig, host)
	cfg.NextProtos = []string{"http/1.1"}
	if h2 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	tc := tls.Client(c, cfg)
	hctx, cancel := context.WithTimeout(ctx, ct)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		c.Close()
		return nil, err
	}
	return tc, nil
}

// putPipe keeps pc for the next call, up to keptPerHost per server.
func (d *Driver) putPipe(key string, pc *pipeConn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.pipes[key]) >= keptPerHost {
		pc.Close()
		return
	}
	if d.pipes == nil {
		d.pipes = map[string][]*pipeConn{}
	}
	d.pipes[key] = append(d.pipes[key], pc)
}

// closePipes closes the kept pipelining connections; d.mu is held.
func (d *Driver) closePipes() {
	for _, l := range d.pipes {
		for _, pc := range l {
			pc.Close()
		}
	}
	clear(d.pipes)
}

// pipeConn is a connection that Revalidate pipelines on.
type pipeConn struct {
	net.Conn
	br     *bufio.Reader
	bw     *bufio.Writer
	served int // responses read on it, over its life
}

// pipeResult is how one exchange ended: keep the connection for the next
// call; stale: it failed before any response (a kept connection may have
// been closed by the server meanwhile); serial: the server does not
// pipeline; err: why the exchange ended early.
type pipeResult struct {
	keep, stale, serial bool
	err                 error
}

// exchange sends reqs on pc, at most pipeDepth ahead of the responses it
// reads, and sets same[i] for each 304 that fits checks[i] (verdict).
func (pc *pipeConn) exchange(ctx context.Context, reqs []*http.Request, checks []Check, same []bool, t tracer) pipeResult {
	credits := make(chan struct{}, pipeDepth)
	for range pipeDepth {
		credits <- struct{}{}
	}
	done := make(chan struct{})
	sent := make(chan error, 1)
	go func() { sent <- pc.send(reqs, credits, done) }()
	stop := context.AfterFunc(ctx, func() { pc.Close() })
	res := pc.readAll(reqs, checks, same, credits, t)
	if !stop() {
		res = pipeResult{err: ctx.Err()}
	}
	if !res.keep {
		pc.Close() // unblocks the sender
	}
	close(done)
	if err := <-sent; err != nil && res.keep {
		res = pipeResult{err: err}
	}
	return res
}

// send writes reqs in order, taking a credit for each, flushing whenever
// it must wait for one.
func (pc *pipeConn) send(reqs []*http.Request, credits <-chan struct{}, done <-chan struct{}) error {
	for _, r := range reqs {
		select {
		case <-credits:
		default:
			if err := pc.bw.Flush(); err != nil {
				return err
			}
			select {
			case <-credits:
			case <-done:
				return nil
			}
		}
		if err := r.Write(pc.bw); err != nil {
			return err
		}
	}
	return pc.bw.Flush()
}

// readAll reads the responses to reqs in order, giving a credit back for
// each.
func (pc *pipeConn) readAll(reqs []*http.Request, checks []Check, same []bool, credits chan<- struct{}, t tracer) pipeResult {
	for i, hreq := range reqs {
		t.request(hreq, "HTTP/1.1")
		resp, err := http.ReadResponse(pc.br, hreq)
		if err != nil {
			return pipeResult{stale: i == 0, serial: i > 0 && pc.served < 2, err: fmt.Errorf("http: pipelined response %d of %d: %w", i+1, len(reqs), err)}
		}
		t.response(resp)
		pc.served++
		ok, res := verdict(resp, checks[i].Since)
		same[i] = ok
		if res != nil {
			return *res
		}
		if resp.Close {
			// The server ends the connection here (RFC 9112 section
			// 9.6); with requests outstanding, early on, it does not
			// pipeline.
			if i < len(reqs)-1 {
				return pipeResult{serial: pc.served < 2, err: fmt.Errorf("http: the server closed the connection after %d of %d pipelined responses: %w", i+1, len(reqs), ErrSerial)}
			}
			return pipeResult{}
		}
		credits <- struct{}{}
	}
	return pipeResult{keep: true}
}

// verdict reads one pipelined response to a conditional GET sent with
// If-Modified-Since since: same when it is a 304 that fits the request;
// a non-nil result when the pipeline ends with it.
func verdict(resp *http.Response, since time.Time) (same bool, end *pipeResult) {
	defer resp.Body.Close()
	if !resp.ProtoAtLeast(1, 1) {
		return false, &pipeResult{serial: true, err: fmt.Errorf("http: a pipelined request answered by %s: %w", resp.Proto, ErrSerial)}
	}
	if resp.StatusCode == http.StatusNotModified {
		// RFC 9110 section 13.1.3: 304 only when the resource was not
		// modified after the date sent; a later Last-Modified is the
		// answer to another request.
		if lm, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil && lm.After(since) {
			return false, &pipeResult{serial: true, err: fmt.Errorf("http: a 304 with Last-Modified %s after If-Modified-Since %s: %w", lm.Format(http.TimeFormat), since.UTC().Format(http.TimeFormat), proto.ErrProtocol)}
		}
		return true, nil
	}
	if resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 {
		// Delimited by the close of the connection (RFC 9112 section
		// 6.3, rule 8): nothing can follow it.
		return false, &pipeResult{serial: true, err: fmt.Errorf("http: a pipelined response without a length: %w", ErrSerial)}
	}
	n, err := io.CopyN(io.Discard, resp.Body, drainMax+1)
	switch {
	case err != nil && !errors.Is(err, io.EOF):
		return false, &pipeResult{err: fmt.Errorf("http: pipelined response body: %w", err)}
	case n > drainMax:
		return false, &pipeResult{} // the file is fetched on its own: no point reading it here
	}
	return false, nil
}
