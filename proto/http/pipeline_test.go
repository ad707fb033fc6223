package http

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/testcert"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// pipeServer is a raw HTTP/1.1 server on 127.0.0.1 that reads requests
// as they arrive, on a goroutine of their own, and answers them with
// answer(i, request) in order, once wait(requests received so far) says
// so.
type pipeServer struct {
	ln       net.Listener
	answer   func(i int, r *http.Request) string
	wait     func(read int) bool // answer once this holds (nil: at once)
	accepts  atomic.Int32
	mu       sync.Mutex
	paths    []string
	since    []string
	maxAhead int // most requests read before the response to the first of them was written
	wg       sync.WaitGroup
}

func newPipeServer(t *testing.T, answer func(int, *http.Request) string) *pipeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &pipeServer{ln: ln, answer: answer}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *pipeServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepts.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.conn(c)
		}()
	}
}

func (s *pipeServer) conn(c net.Conn) {
	defer c.Close()
	reqs := make(chan *http.Request, 64)
	var read, written atomic.Int32
	go func() {
		defer close(reqs)
		br := bufio.NewReader(c)
		for {
			r, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			n := int(read.Add(1))
			s.mu.Lock()
			s.paths = append(s.paths, r.URL.Path)
			s.since = append(s.since, r.Header.Get("If-Modified-Since"))
			s.maxAhead = max(s.maxAhead, n-int(written.Load()))
			s.mu.Unlock()
			reqs <- r
		}
	}()
	var pending []*http.Request
	i, received := 0, 0
	for r := range reqs {
		// received, not read: a request is counted here once the
		// reader has noted how far ahead it arrived.
		pending, received = append(pending, r), received+1
		if s.wait != nil && !s.wait(received) {
			continue
		}
		for _, p := range pending {
			written.Add(1) // before the write: the count is never behind
			out := s.answer(i, p)
			i++
			if _, err := c.Write([]byte(out)); err != nil || strings.Contains(out, "Connection: close") {
				return
			}
		}
		pending = pending[:0]
	}
}

// seen returns the paths and If-Modified-Since values of the requests
// read so far, and the most that were read ahead of the responses.
func (s *pipeServer) seen() (paths, since []string, ahead int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths), slices.Clone(s.since), s.maxAhead
}

func (s *pipeServer) url(p string) *uri.URL {
	return uri.MustParse("http://" + s.ln.Addr().String() + p)
}

const notModified = "HTTP/1.1 304 Not Modified\r\nLast-Modified: Sun, 29 Nov 2026 06:00:00 GMT\r\n\r\n"

func checksOf(s *pipeServer, n int) []Check {
	since := time.Date(2026, 11, 29, 6, 50, 52, 0, time.UTC)
	cs := make([]Check, n)
	for i := range cs {
		cs[i] = Check{URL: s.url(fmt.Sprintf("/d/f%d.txt", i)), Since: since}
	}
	return cs
}

// Several requests arrive before the first response is written (RFC 9112
// section 9.3.2): the server answers nothing until it has read all five.
// Each answer is read against its request, in order: 304s are unchanged,
// a 200 (its body dropped) and a redirect are not, and the pipeline goes
// on past both.
func TestRevalidatePipelines(t *testing.T) {
	s := newPipeServer(t, func(i int, r *http.Request) string {
		switch i {
		case 1:
			return "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
		case 3:
			return "HTTP/1.1 301 Moved\r\nLocation: /d/f3.txt/\r\nContent-Length: 0\r\n\r\n"
		}
		return notModified
	})
	s.wait = func(read int) bool { return read >= 5 }
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := &Driver{}
	defer d.CloseIdleConnections()
	same, err := d.Revalidate(ctx, &proto.Request{IdleTimeout: 20 * time.Second}, checksOf(s, 5))
	if err != nil || fmt.Sprint(same) != "[true false true false true]" {
		t.Fatalf("Revalidate = %v, %v; want [true false true false true]", same, err)
	}
	paths, since, ahead := s.seen()
	if ahead < 5 {
		t.Errorf("at most %d requests arrived before a response, want 5", ahead)
	}
	want := "[/d/f0.txt /d/f1.txt /d/f2.txt /d/f3.txt /d/f4.txt]"
	if fmt.Sprint(paths) != want || since[0] != "Sun, 29 Nov 2026 06:50:52 GMT" {
		t.Errorf("requests %v, If-Modified-Since %q; want %s", paths, since, want)
	}

	// The connection is kept for the next call.
	if same, err := d.Revalidate(ctx, &proto.Request{IdleTimeout: 20 * time.Second}, checksOf(s, 1)); err != nil || !same[0] {
		t.Fatalf("second call: %v, %v", same, err)
	}
	if n := s.accepts.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// At most pipeDepth requests are outstanding: the server answers each
// request as it arrives, and counts how far the client ran ahead.
func TestRevalidateDepth(t *testing.T) {
	s := newPipeServer(t, func(int, *http.Request) string { return notModified })
	s.wait = func(read int) bool { return read >= pipeDepth }
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := &Driver{}
	defer d.CloseIdleConnections()
	same, err := d.Revalidate(ctx, &proto.Request{IdleTimeout: 20 * time.Second}, checksOf(s, 40))
	if err != nil || strings.Contains(fmt.Sprint(same), "false") {
		t.Fatalf("Revalidate = %v, %v", same, err)
	}
	if _, _, ahead := s.seen(); ahead != pipeDepth {
		t.Errorf("%d requests outstanding at most, want %d", ahead, pipeDepth)
	}
}

// A server that does not pipeline shows it: it closes the connection
// after the first response, answers without a length, or as HTTP/1.0.
// What was answered stands, the rest is left to the caller (false), and
// later calls send nothing (ErrSerial).
func TestRevalidateFallback(t *testing.T) {
	for name, first := range map[string]string{
		"close":     "HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n",
		"no length": "HTTP/1.1 200 OK\r\n\r\nuntil the close",
		"HTTP/1.0":  "HTTP/1.0 304 Not Modified\r\n\r\n",
		"304 later": "HTTP/1.1 304 Not Modified\r\nLast-Modified: Mon, 30 Nov 2026 00:00:00 GMT\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			s := newPipeServer(t, func(i int, r *http.Request) string {
				if i == 0 {
					return first
				}
				return notModified
			})
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			d := &Driver{}
			defer d.CloseIdleConnections()
			same, err := d.Revalidate(ctx, &proto.Request{IdleTimeout: 20 * time.Second}, checksOf(s, 4))
			if err == nil || strings.Contains(fmt.Sprint(same[1:]), "true") {
				t.Fatalf("Revalidate = %v, %v; want an error and nothing after the first", same, err)
			}
			if want := name == "close"; same[0] != want {
				t.Errorf("first answer: %v, want %v", same[0], want)
			}
			if same, err := d.Revalidate(ctx, &proto.Request{}, checksOf(s, 2)); !errors.Is(err, ErrSerial) || !errors.Is(err, errors.ErrUnsupported) || same[0] || same[1] {
				t.Errorf("after the sign: %v, %v; want ErrSerial", same, err)
			}
			if n := s.accepts.Load(); n != 1 {
				t.Errorf("%d connections, want 1", n)
			}
		})
	}
}

// Cancelling the context ends a call whose server never answers.
func TestRevalidateCancel(t *testing.T) {
	s := newPipeServer(t, func(int, *http.Request) string { return notModified })
	arrived := make(chan struct{})
	var once sync.Once
	s.wait = func(int) bool { once.Do(func() { close(arrived) }); return false }
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	d := &Driver{}
	defer d.CloseIdleConnections()
	_, err := d.Revalidate(ctx, &proto.Request{IdleTimeout: time.Minute}, checksOf(s, 3))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Revalidate after cancel: %v, want context.Canceled", err)
	}
}

// Checks on two servers are refused before anything is sent.
func TestRevalidateOneServer(t *testing.T) {
	s := newPipeServer(t, func(int, *http.Request) string { return notModified })
	cs := checksOf(s, 2)
	cs[1].URL = uri.MustParse("http://[::1]:1/x")
	_, err := (&Driver{}).Revalidate(t.Context(), &proto.Request{}, cs)
	if !errors.Is(err, proto.ErrUnsafeArgument) || s.accepts.Load() != 0 {
		t.Fatalf("Revalidate on two servers: %v, %d connections", err, s.accepts.Load())
	}
}

// scriptConn is a connection whose peer sends script and reads nothing.
type scriptConn struct {
	net.Conn // nil: only Read, Write, Close and the deadlines are called
	r        *strings.Reader
}

func (c scriptConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c scriptConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c scriptConn) Close() error                     { return nil }
func (c scriptConn) SetDeadline(time.Time) error      { return nil }
func (c scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c scriptConn) SetWriteDeadline(time.Time) error { return nil }
func (c scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// FuzzPipelineResponses: whatever a server sends back to three pipelined
// conditional requests (RFC 9112 section 9.3.2; responses framed by
// section 6), the exchange ends without a panic, a file is found
// unchanged only by a 304, and the connection is kept only when every
// response was read.
func FuzzPipelineResponses(f *testing.F) {
	for _, s := range []string{
		notModified + notModified + notModified,
		notModified + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi" + notModified,
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n" + notModified + notModified,
		"HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n",
		"HTTP/1.0 304 Not Modified\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\nbody", "garbage\r\n\r\n", "",
	} {
		f.Add(s)
	}
	since := time.Date(2026, 11, 29, 6, 50, 52, 0, time.UTC)
	f.Fuzz(func(t *testing.T, script string) {
		d := &Driver{}
		checks := make([]Check, 3)
		for i := range checks {
			checks[i] = Check{URL: uri.MustParse(fmt.Sprintf("http://127.0.0.1:1/f%d", i)), Since: since}
		}
		_, reqs, err := d.pipeRequests(t.Context(), checks)
		if err != nil {
			t.Fatal(err)
		}
		c := scriptConn{r: strings.NewReader(script)}
		pc := &pipeConn{Conn: c, br: bufio.NewReader(c), bw: bufio.NewWriter(c)}
		same := make([]bool, len(checks))
		res := pc.exchange(t.Context(), reqs, checks, same, tracer{})
		n := 0
		for _, s := range same {
			if s {
				n++
			}
		}
		if n > strings.Count(script, " 304") {
			t.Fatalf("%d files unchanged from %q", n, script)
		}
		if res.keep && (res.err != nil || pc.served != len(reqs)) {
			t.Fatalf("connection kept after %d of %d responses (%v)", pc.served, len(reqs), res.err)
		}
	})
}

// Over https the pipeline runs inside TLS, HTTP/1.1 offered alone
// (RFC 7301); a certificate the client does not trust ends the call
// before any request is sent.
func TestRevalidateTLS(t *testing.T) {
	cert := testcert.Loopback(t)
	var got atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		if r.ProtoMajor != 1 || r.Header.Get("If-Modified-Since") == "" {
			http.Error(w, "want HTTP/1.1 with If-Modified-Since", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNotModified)
	}))
	srv.TLS = cert.Server
	srv.StartTLS()
	defer srv.Close()
	since := time.Date(2026, 11, 29, 6, 50, 52, 0, time.UTC)
	checks := []Check{{URL: uri.MustParse(srv.URL + "/a"), Since: since}, {URL: uri.MustParse(srv.URL + "/b"), Since: since}}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	d := New(Config{TLSClientConfig: &tls.Config{RootCAs: cert.Pool}})
	defer d.CloseIdleConnections()
	same, err := d.Revalidate(ctx, &proto.Request{}, checks)
	if err != nil || !same[0] || !same[1] || got.Load() != 2 {
		t.Fatalf("Revalidate over TLS = %v, %v; %d requests", same, err, got.Load())
	}

	untrusting := &Driver{}
	if _, err := untrusting.Revalidate(ctx, &proto.Request{}, checks); err == nil || got.Load() != 2 {
		t.Fatalf("untrusted certificate: %v, %d requests", err, got.Load())
	}
}
