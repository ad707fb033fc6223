package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/testcert"
	fhttp "github.com/rfc1738/fetch/proto/http"
)

// burstListener records the most conditional requests (If-Modified-Since)
// that one read of a connection brought: more than one is a pipeline.
type burstListener struct {
	net.Listener
	most *atomic.Int64
}

func (l burstListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return burstConn{Conn: c, most: l.most}, nil
}

type burstConn struct {
	net.Conn
	most *atomic.Int64
}

func (c burstConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	k := int64(bytes.Count(p[:n], []byte("\r\nIf-Modified-Since: ")))
	for {
		m := c.most.Load()
		if k <= m || c.most.CompareAndSwap(m, k) {
			break
		}
	}
	return n, err
}

// A re-run of an HTTP index tree through Client.Mirror asks its files'
// conditions pipelined (the requests arrive together); a client with a
// Wait between requests asks one at a time. Every file stays intact and
// unchanged either way.
func TestMirrorHTTPRevalidatePipelined(t *testing.T) {
	src := t.TempDir()
	want := map[string][]byte{}
	for i := range 20 {
		name := fmt.Sprintf("f%02d.txt", i)
		want[name] = bytes.Repeat([]byte{byte('a' + i)}, 50+i)
		if err := os.WriteFile(filepath.Join(src, name), want[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		wait      time.Duration
		pipelined bool
	}{
		{"no wait", 0, true},
		{"wait", time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			most := &atomic.Int64{}
			srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(src)))
			srv.Listener = burstListener{Listener: srv.Listener, most: most}
			srv.Start()
			defer srv.Close()
			c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Wait: tc.wait}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			dir := t.TempDir()
			if sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2}); err != nil || sum.New != len(want) {
				t.Fatalf("first run: %v, %+v", err, sum)
			}
			most.Store(0)
			sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2})
			if err != nil || sum.Unchanged != len(want) {
				t.Fatalf("re-run: %v, %+v", err, sum)
			}
			if got := most.Load() > 1; got != tc.pipelined {
				t.Errorf("re-run: at most %d conditional requests in one read; pipelined %v, want %v", most.Load(), got, tc.pipelined)
			}
			for name, b := range want {
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
					t.Errorf("%s differs (%v)", name, err)
				}
			}
		})
	}
}

// tlsTreeServer serves the files of a directory over https, offering
// HTTP/2 (h2) or HTTP/1.1 alone, and counts its connections, its requests
// by protocol version and its conditional requests by client address.
// Over HTTP/2 a conditional request is answered once two are in progress
// at once (pair), or after 10 s.
type tlsTreeServer struct {
	*httptest.Server
	h2       bool
	files    http.Handler
	conns    atomic.Int32
	mu       sync.Mutex
	protos   map[int]int    // requests by ProtoMajor
	condFrom map[string]int // conditional requests by client address
	inFlight int            // conditional requests in progress
	pair     chan struct{}  // closed when two were in progress at once
}

func startTLSTree(t *testing.T, src string, h2 bool, cert *testcert.Cert) *tlsTreeServer {
	s := &tlsTreeServer{h2: h2, files: http.FileServer(http.Dir(src)), protos: map[int]int{}, condFrom: map[string]int{}, pair: make(chan struct{})}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.TLS, s.EnableHTTP2 = cert.Server, h2
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *tlsTreeServer) serve(w http.ResponseWriter, r *http.Request) {
	cond := r.Header.Get("If-Modified-Since") != ""
	s.mu.Lock()
	s.protos[r.ProtoMajor]++
	if cond {
		s.condFrom[r.RemoteAddr]++
		if s.inFlight++; s.inFlight == 2 && s.h2 && !s.paired() {
			close(s.pair)
		}
	}
	s.mu.Unlock()
	if cond && s.h2 {
		select {
		case <-s.pair:
		case <-time.After(10 * time.Second):
		}
	}
	s.files.ServeHTTP(w, r)
	if cond {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
}

// paired reports whether two conditional requests were in progress at once.
func (s *tlsTreeServer) paired() bool {
	select {
	case <-s.pair:
		return true
	default:
		return false
	}
}

// checkRun checks the requests of a run, all of protocol version major,
// and forgets them.
func (s *tlsTreeServer) checkRun(t *testing.T, run string, major, want int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.protos[major] != want || len(s.protos) != 1 {
		t.Errorf("%s: requests by protocol version %v, want %d of %d", run, s.protos, want, major)
	}
	clear(s.protos)
}

// An https mirror speaks HTTP/2 to a server that offers it (ALPN): the
// fresh run's GETs and the re-run's conditional requests, these as
// streams of one connection, two or more in progress at once (the server
// answers none before a second has arrived, or 10 s have passed). A
// server that offers HTTP/1.1 alone gets HTTP/1.1, and a re-run's
// conditional requests pipelined, all on one connection. Every file
// stays intact and unchanged.
func TestMirrorHTTPSOverHTTP2(t *testing.T) {
	src := t.TempDir()
	want := map[string][]byte{}
	for i := range 20 {
		name := fmt.Sprintf("f%02d.txt", i)
		want[name] = bytes.Repeat([]byte{byte('a' + i)}, 50+i)
		if err := os.WriteFile(filepath.Join(src, name), want[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cert := testcert.Loopback(t)
	for _, h2 := range []bool{true, false} {
		t.Run(fmt.Sprint("h2 ", h2), func(t *testing.T) {
			s := startTLSTree(t, src, h2, cert)
			c := &Client{Registry: Drivers{HTTP: fhttp.Config{TLSClientConfig: &tls.Config{RootCAs: cert.Pool}}}.Registry(), ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			dir := t.TempDir()
			major := map[bool]int{true: 2, false: 1}[h2]
			if sum, err := c.Mirror(ctx, s.URL+"/", dir, MirrorOptions{Jobs: 4}); err != nil || sum.New != len(want) {
				t.Fatalf("first run: %v, %+v", err, sum)
			}
			s.checkRun(t, "first run", major, 1+len(want))
			s.conns.Store(0)
			if sum, err := c.Mirror(ctx, s.URL+"/", dir, MirrorOptions{Jobs: 4}); err != nil || sum.Unchanged != len(want) {
				t.Fatalf("re-run: %v, %+v", err, sum)
			}
			s.checkRun(t, "re-run", major, 1+len(want))
			s.mu.Lock()
			if len(s.condFrom) != 1 {
				t.Errorf("re-run: conditional requests on %d connections (%v), want 1", len(s.condFrom), s.condFrom)
			}
			s.mu.Unlock()
			if n := s.conns.Load(); h2 && n != 1 {
				t.Errorf("re-run over HTTP/2 on %d connections, want 1", n)
			}
			if s.paired() != h2 {
				t.Errorf("re-run: two conditional requests in progress at once %v, want %v", s.paired(), h2)
			}
			for name, b := range want {
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
					t.Errorf("%s differs (%v)", name, err)
				}
			}
		})
	}
}
