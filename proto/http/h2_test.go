package http

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/testcert"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// h2Server is an https test server on 127.0.0.1, offering HTTP/2 (ALPN
// "h2" alone) or HTTP/1.1 alone, that counts its connections and the
// protocol versions of the requests it got. A conditional request
// (If-Modified-Since) is answered 304; over HTTP/2, once h2Streams of
// them are in progress at once, or after 10 s (together then stays
// false): only a client that multiplexes has more than one in progress,
// and one that keeps within the server's limit (h2Streams) has them all
// on one connection.
type h2Server struct {
	*httptest.Server
	h2       bool
	pool     *tls.Config // a client configuration that trusts the server
	conns    atomic.Int32
	mu       sync.Mutex
	protos   map[int]int // requests by ProtoMajor
	inFlight int
	pair     chan struct{} // closed when h2Streams conditional requests were in progress at once
	together atomic.Bool
}

func startH2Server(t *testing.T, h2 bool) *h2Server {
	t.Helper()
	cert := testcert.Loopback(t)
	s := &h2Server{h2: h2, protos: map[int]int{}, pair: make(chan struct{}), pool: &tls.Config{RootCAs: cert.Pool}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.TLS = cert.Server
	s.EnableHTTP2 = h2
	s.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: h2Streams} // fewer than four Revalidates of 40
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *h2Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.protos[r.ProtoMajor]++
	s.mu.Unlock()
	if r.Header.Get("If-Modified-Since") == "" {
		w.Header().Set("Last-Modified", "Sun, 01 Nov 2026 12:00:00 GMT")
		io.WriteString(w, "body of "+r.URL.Path)
		return
	}
	s.mu.Lock()
	s.inFlight++
	if s.inFlight == h2Streams && !s.together.Load() {
		s.together.Store(true)
		close(s.pair)
	}
	s.mu.Unlock()
	if s.h2 {
		select {
		case <-s.pair:
		case <-time.After(10 * time.Second):
		}
	}
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	w.WriteHeader(http.StatusNotModified)
}

// requests returns the number of requests the server got by ProtoMajor.
func (s *h2Server) requests() map[int]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[int]int{}
	for k, v := range s.protos {
		m[k] = v
	}
	return m
}

// checks is n conditional requests for the server's files.
func (s *h2Server) checks(n int) []Check {
	since := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	c := make([]Check, n)
	for i := range c {
		c[i] = Check{URL: uri.MustParse(s.URL + "/f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)), Since: since}
	}
	return c
}

// A run's driver (ForRun) speaks HTTP/2 to an https server that offers it
// by ALPN (RFC 9113 section 3.2): the GETs, and a re-run's conditional
// requests, which go as streams of the same connection, two or more in
// progress at once, answered 304 each; four calls at once keep within
// what the server allows at once (h2Streams) rather than open another
// connection. The trace shows the protocol and
// no password. A server that offers HTTP/1.1 alone gets HTTP/1.1, and the
// conditional requests pipelined on one connection of their own.
func TestRunDriverHTTP2(t *testing.T) {
	for _, h2 := range []bool{true, false} {
		t.Run(map[bool]string{true: "h2", false: "http/1.1"}[h2], func(t *testing.T) {
			s := startH2Server(t, h2)
			d := New(Config{TLSClientConfig: s.pool}).ForRun(8, 0).(*Driver)
			defer d.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			var trace bytes.Buffer
			u := uri.MustParse(strings.Replace(s.URL, "https://", "https://user:secret@", 1) + "/index")
			resp, err := d.Fetch(ctx, u, &proto.Request{Trace: &trace})
			if err != nil {
				t.Fatal(err)
			}
			if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "body of /index" {
				t.Fatalf("body %q, %v", b, err)
			}
			resp.Body.Close()

			checks := s.checks(160)
			var wg sync.WaitGroup
			for k := range 4 {
				wg.Go(func() {
					var w io.Writer // one call traced
					if k == 0 {
						w = &trace
					}
					same, err := d.Revalidate(ctx, &proto.Request{Trace: w}, checks[k*40:(k+1)*40])
					if err != nil {
						t.Error(err)
					}
					for i, ok := range same {
						if !ok {
							t.Errorf("check %d not answered 304", k*40+i)
						}
					}
				})
			}
			wg.Wait()
			// The pool's connection, and the pipelines' (up to four: one
			// may take another's once it is done), or one for all.
			major, version, least, most := 1, "HTTP/1.1", int32(2), int32(5)
			if h2 {
				major, version, least, most = 2, "HTTP/2.0", 1, 1
			}
			if got := s.requests(); got[major] != 1+len(checks) || len(got) != 1 {
				t.Errorf("requests by protocol version %v, want %d of %d", got, 1+len(checks), major)
			}
			if got := s.conns.Load(); got < least || got > most {
				t.Errorf("%d connections, want %d to %d", got, least, most)
			}
			if s.together.Load() != h2 {
				t.Errorf("conditional requests in progress together: %v, want %v", s.together.Load(), h2)
			}
			tr := trace.String()
			if !strings.Contains(tr, "> GET /index "+version+"\n") || !strings.Contains(tr, "> GET /fa "+version+"\n") || strings.Contains(tr, "secret") {
				t.Errorf("trace (want %s, no password):\n%s", version, tr)
			}
		})
	}
}

// A request that records its exchange (a WARC capture: HTTP/1.1 bytes)
// goes on a connection of its own that offers HTTP/1.1 alone, beside a
// pool that speaks HTTP/2; a pool whose first request records offers
// HTTP/1.1 alone.
func TestRunDriverExchangeStaysHTTP1(t *testing.T) {
	s := startH2Server(t, true)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	get := func(d *Driver, record bool) *proto.Response {
		t.Helper()
		req := &proto.Request{}
		req.Options.HTTP.Exchange = record
		resp, err := d.Fetch(ctx, uri.MustParse(s.URL+"/a"), req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	d := New(Config{TLSClientConfig: s.pool}).ForRun(8, 0).(*Driver)
	defer d.CloseIdleConnections()
	get(d, false)
	if resp := get(d, true); resp.Exchange == nil || !bytes.HasPrefix(resp.Exchange.Response, []byte("HTTP/1.1 200")) {
		t.Fatalf("recorded exchange %+v", resp.Exchange)
	}
	if got := s.requests(); got[1] != 1 || got[2] != 1 {
		t.Fatalf("requests by protocol version %v, want one of each", got)
	}
	warc := New(Config{TLSClientConfig: s.pool}).ForRun(8, 0).(*Driver)
	defer warc.CloseIdleConnections()
	get(warc, true)
	get(warc, false)
	if got := s.requests(); got[1] != 3 || got[2] != 1 {
		t.Fatalf("requests by protocol version %v, want 3 of HTTP/1.1", got)
	}
}

// An HTTP/2 server that resets the stream (RST_STREAM INTERNAL_ERROR, RFC
// 9113 section 6.4: a handler that gave up), in the middle of the body or
// before the response, cut the transfer as a server breaking the protocol
// (exit 9) or as any other failure (exit 1), never retried. It is a lost
// transfer, as a connection reset is over HTTP/1.1: io.ErrUnexpectedEOF,
// exit 5, transient.
func TestH2StreamResetIsLost(t *testing.T) {
	for _, sent := range []int{5000, 0} {
		t.Run(fmt.Sprintf("after %d bytes", sent), func(t *testing.T) {
			s := startH2Server(t, true)
			s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if sent > 0 {
					w.Header().Set("Content-Length", "100000")
					w.Write(make([]byte, sent))
					w.(http.Flusher).Flush()
				}
				panic(http.ErrAbortHandler)
			})
			d := New(Config{TLSClientConfig: s.pool}).ForRun(8, 0).(*Driver)
			defer d.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			resp, err := d.Fetch(ctx, uri.MustParse(s.URL+"/x"), &proto.Request{})
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if errors.Is(err, proto.ErrProtocol) || !errors.Is(err, io.ErrUnexpectedEOF) || !proto.Transient(err) || !proto.Unreachable(err) {
				t.Errorf("Fetch = %v, want a lost transfer (io.ErrUnexpectedEOF, transient), not proto.ErrProtocol", err)
			}
		})
	}
}
