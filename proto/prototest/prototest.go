// Package prototest is the conformance suite every protocol driver passes.
//
// A driver's test builds a Fixture (usually a loopback fake server on
// 127.0.0.1:0 wrapped with Record, so that the suite can see every byte the
// driver sent) and calls Run:
//
//	func TestConformance(t *testing.T) {
//		srv := startFake(t)            // a fake server for this protocol
//		prototest.Run(t, &gopher.Driver{}, prototest.Fixture{
//			Small:   "gopher://" + srv.Addr + "/0small",
//			Want:    []byte("hello\n"),
//			Endless: "gopher://" + srv.Addr + "/9endless",
//			Unsafe: func(payload string) *uri.URL {
//				return uri.MustParse("gopher://" + srv.Addr + "/0" + uri.Escape(payload, ""))
//			},
//			Wire: srv.Wire.Bytes,
//		})
//	}
//
// Run checks, each in its own subtest so that every failure is reported:
//
//   - "Small": the resource's bytes arrive exactly, Size is -1 or right, and
//     Body is never nil.
//   - "DoubleClose": closing a body twice neither panics nor blocks.
//   - "Streaming": Fetch of a resource that never ends returns promptly (the
//     driver does not buffer the body) and the body can be read
//     incrementally.
//   - "Cancel": cancelling the context in the middle of a body makes the
//     next reads fail within a few seconds.
//   - "UnsafeArgument": for each payload holding CR, LF or NUL, Fetch fails
//     with an error wrapping proto.ErrUnsafeArgument and the payload's
//     marker never reaches the wire. Package safety is bypassed: the suite
//     calls the driver directly.
//
// Drivers that need per-call settings (options, a dialer that counts
// connections) supply them through Fixture.Request.
package prototest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Fixture describes the resources a driver is exercised with. Empty fields
// leave out the checks that need them; Endless and Unsafe are required.
type Fixture struct {
	// Small is the URL of a resource whose whole content is Want.
	Small string
	// Want is Small's content.
	Want []byte

	// Endless is the URL of a resource whose body never ends (the fixture
	// server keeps sending until the client goes away).
	Endless string

	// Unsafe returns a URL whose decoded argument, the one the driver
	// writes to its wire, holds payload. It may build the URL struct
	// directly, bypassing uri.Parse as a careless caller would.
	Unsafe func(payload string) *uri.URL

	// Wire returns every byte the fixture server has received so far. Nil
	// for drivers without a wire (file:); the suite then checks only the
	// error.
	Wire func() []byte

	// Request returns the Request for each Fetch; nil means a zero Request
	// with short timeouts.
	Request func() *proto.Request
}

// Payloads are the injections the UnsafeArgument check tries. Each carries
// the marker "INJECTED" after the forbidden byte.
var Payloads = []string{
	"a\r\nINJECTED x",
	"a\nINJECTED x",
	"a\rINJECTED x",
	"a\x00INJECTED x",
}

// Marker is the text that must never reach the wire.
const Marker = "INJECTED"

// Limits of the suite; a driver that needs longer is broken.
const (
	// Prompt bounds how long Fetch of the endless resource and the reads
	// after a cancel may take.
	Prompt = 5 * time.Second
	// StreamBytes is how much of the endless body the suite reads.
	StreamBytes = 1 << 20
)

// Run runs the conformance suite against d.
func Run(t *testing.T, d proto.Driver, f Fixture) {
	t.Helper()
	if f.Endless == "" || f.Unsafe == nil {
		t.Fatal("prototest: Fixture.Endless and Fixture.Unsafe are required")
	}
	if f.Small != "" {
		t.Run("Small", func(t *testing.T) { testSmall(t, d, f) })
		t.Run("DoubleClose", func(t *testing.T) { testDoubleClose(t, d, f) })
	}
	t.Run("Streaming", func(t *testing.T) { testStreaming(t, d, f) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, d, f) })
	t.Run("UnsafeArgument", func(t *testing.T) { testUnsafe(t, d, f) })
}

func (f Fixture) request() *proto.Request {
	if f.Request != nil {
		return f.Request()
	}
	return &proto.Request{ConnectTimeout: Prompt, IdleTimeout: Prompt}
}

// fetch runs d.Fetch on raw within the suite's time limit.
func fetch(ctx context.Context, t *testing.T, d proto.Driver, f Fixture, raw string) (*proto.Response, error) {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatalf("uri.Parse(%q) = %v", raw, err)
	}
	type result struct {
		resp *proto.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := d.Fetch(ctx, u, f.request())
		done <- result{r, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-time.After(Prompt):
		t.Fatalf("Fetch(%q) did not return within %v (is the body buffered?)", raw, Prompt)
		return nil, nil
	}
}

func testSmall(t *testing.T, d proto.Driver, f Fixture) {
	resp, err := fetch(t.Context(), t, d, f, f.Small)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", f.Small, err)
	}
	if resp.Body == nil {
		t.Fatalf("Fetch(%q): Body is nil", f.Small)
	}
	defer resp.Body.Close()
	got, err := readWithin(resp.Body, -1)
	if err != nil {
		t.Errorf("reading %q: %v", f.Small, err)
	}
	if !bytes.Equal(got, f.Want) {
		t.Errorf("body of %q = %q, want %q", f.Small, clip(got), clip(f.Want))
	}
	if resp.Size != -1 && resp.Size != int64(len(f.Want)) {
		t.Errorf("Size of %q = %d, want -1 or %d", f.Small, resp.Size, len(f.Want))
	}
}

func testDoubleClose(t *testing.T, d proto.Driver, f Fixture) {
	resp, err := fetch(t.Context(), t, d, f, f.Small)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", f.Small, err)
	}
	for i := range 2 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			resp.Body.Close()
		}()
		select {
		case <-done:
		case <-time.After(Prompt):
			t.Fatalf("Close #%d of %q blocked", i+1, f.Small)
		}
	}
}

func testStreaming(t *testing.T, d proto.Driver, f Fixture) {
	resp, err := fetch(t.Context(), t, d, f, f.Endless)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", f.Endless, err)
	}
	defer resp.Body.Close()
	got, err := readWithin(resp.Body, StreamBytes)
	if err != nil {
		t.Fatalf("reading %d bytes of %q: %v", StreamBytes, f.Endless, err)
	}
	if len(got) != StreamBytes {
		t.Errorf("read %d bytes of %q, want %d", len(got), f.Endless, StreamBytes)
	}
}

func testCancel(t *testing.T, d proto.Driver, f Fixture) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp, err := fetch(ctx, t, d, f, f.Endless)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", f.Endless, err)
	}
	defer resp.Body.Close()
	if _, err := readWithin(resp.Body, 64<<10); err != nil {
		t.Fatalf("reading the start of %q: %v", f.Endless, err)
	}
	cancel()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("body of %q ended cleanly after cancel; want an error", f.Endless)
		}
	case <-time.After(Prompt):
		resp.Body.Close()
		t.Errorf("body of %q still readable %v after cancel", f.Endless, Prompt)
	}
}

func testUnsafe(t *testing.T, d proto.Driver, f Fixture) {
	for _, p := range Payloads {
		u := f.Unsafe(p)
		ctx, cancel := context.WithTimeout(t.Context(), Prompt)
		resp, err := d.Fetch(ctx, u, f.request())
		cancel()
		if err == nil {
			resp.Body.Close()
			t.Errorf("Fetch(%q) succeeded; want an error wrapping proto.ErrUnsafeArgument", u.String())
		} else if !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Errorf("Fetch(%q) = %v; want an error wrapping proto.ErrUnsafeArgument", u.String(), err)
		}
		if f.Wire != nil && bytes.Contains(f.Wire(), []byte(Marker)) {
			t.Errorf("Fetch(%q) wrote the injected payload to the wire: %q", u.String(), clip(f.Wire()))
		}
	}
}

// readWithin reads n bytes from r (all of it when n < 0) within Prompt.
func readWithin(r io.Reader, n int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		var buf bytes.Buffer
		var err error
		if n < 0 {
			_, err = io.Copy(&buf, r)
		} else {
			_, err = io.CopyN(&buf, r, n)
		}
		done <- result{buf.Bytes(), err}
	}()
	select {
	case res := <-done:
		return res.b, res.err
	case <-time.After(Prompt):
		return nil, errors.New("prototest: read did not finish in time")
	}
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}

// Recorder is a net.Listener that records every byte its accepted
// connections receive, for Fixture.Wire. It is safe for concurrent use.
type Recorder struct {
	net.Listener
	mu  sync.Mutex
	buf bytes.Buffer
	n   int
	sig notify.Signal // notified at each accept and each read
}

// Until returns true as soon as cond holds, looking again at every
// connection accepted and every read, or false when it does not hold
// within timeout: a test waits with it for bytes that arrive after the
// client has returned (a QUIT sent without waiting for the reply).
func (r *Recorder) Until(timeout time.Duration, cond func() bool) bool {
	return r.sig.Until(timeout, cond)
}

// Record wraps ln.
func Record(ln net.Listener) *Recorder { return &Recorder{Listener: ln} }

// Listen opens a Recorder on 127.0.0.1:0 and closes it when t ends.
func Listen(t testing.TB) *Recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	r := Record(ln)
	t.Cleanup(func() { r.Close() })
	return r
}

// Accept accepts a connection whose reads are recorded.
func (r *Recorder) Accept() (net.Conn, error) {
	c, err := r.Listener.Accept()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	r.sig.Notify()
	return &recConn{Conn: c, r: r}, nil
}

// Bytes returns a copy of everything received so far.
func (r *Recorder) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf.Bytes())
}

// String returns Bytes as a string.
func (r *Recorder) String() string { return string(r.Bytes()) }

// Accepts returns how many connections were accepted.
func (r *Recorder) Accepts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Contains reports whether s was received.
func (r *Recorder) Contains(s string) bool { return strings.Contains(r.String(), s) }

type recConn struct {
	net.Conn
	r *Recorder
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.r.mu.Lock()
		c.r.buf.Write(p[:n])
		c.r.mu.Unlock()
		c.r.sig.Notify()
	}
	return n, err
}
