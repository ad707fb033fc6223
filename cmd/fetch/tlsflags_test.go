package main

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/testcert"
)

// tlsServer is an https server on 127.0.0.1 with a self-signed
// certificate of its own, serving /x, /y and the index page /m/ of a.txt
// and b.txt. It counts the requests that came over HTTP/2 and the
// conditional ones; its error log holds the TLS handshakes that failed
// (with the client's alert, when the client refused the certificate).
type tlsServer struct {
	*httptest.Server
	ca string // its certificate as a PEM file, for --cacert

	mu              sync.Mutex
	h2, conditional int
	log             bytes.Buffer
}

// startTLSServer starts a tlsServer that offers HTTP/2 with h2 (ALPN),
// else HTTP/1.1 only.
func startTLSServer(t *testing.T, h2 bool) *tlsServer {
	t.Helper()
	cert := testcert.Loopback(t)
	s := &tlsServer{ca: filepath.Join(t.TempDir(), "ca.pem")}
	if err := os.WriteFile(s.ca, cert.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if r.ProtoMajor == 2 {
			s.h2++
		}
		if r.Header.Get("If-Modified-Since") != "" {
			s.conditional++
		}
		s.mu.Unlock()
		if r.URL.Path == "/m/" {
			io.WriteString(w, `<html><a href="a.txt">a.txt</a> <a href="b.txt">b.txt</a></html>`)
			return
		}
		http.ServeContent(w, r, "", mt, strings.NewReader("body of "+r.URL.Path+"\n"))
	}))
	s.Config.ErrorLog = log.New(&lockedBuffer{b: &s.log}, "", 0)
	s.TLS = cert.Server
	s.EnableHTTP2 = h2
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// counts returns the HTTP/2 and conditional requests so far.
func (s *tlsServer) counts() (h2, conditional int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h2, s.conditional
}

// -k and --cacert act on https, as on FTPS, without --ssl: get, get -Z
// and mirror (over HTTP/2 when the server offers it, else HTTP/1.1 with
// the re-run's conditional requests pipelined) verify the server's
// certificate against the system's roots (exit 5, nothing written),
// against the --cacert file, or not at all with -k (with a warning).
func TestTLSFlagsHTTPS(t *testing.T) {
	other := otherCA(t)
	for _, h2 := range []bool{true, false} {
		for _, tc := range []struct {
			name  string
			flags func(s *tlsServer) []string
			code  int
		}{
			{"system roots", func(*tlsServer) []string { return nil }, fetch.ExitNetwork},
			{"-k", func(*tlsServer) []string { return []string{"-k"} }, fetch.ExitOK},
			{"--cacert", func(s *tlsServer) []string { return []string{"--cacert", s.ca} }, fetch.ExitOK},
			{"--cacert of another CA", func(*tlsServer) []string { return []string{"--cacert", other} }, fetch.ExitNetwork},
		} {
			name := tc.name + map[bool]string{true: " HTTP/2", false: " HTTP/1.1"}[h2]
			t.Run(name, func(t *testing.T) {
				s := startTLSServer(t, h2)
				flags := tc.flags(s)
				run := func(args ...string) result {
					t.Helper()
					r := runArgs(t, nil, "", slices.Concat(args[:2], flags, args[2:])...)
					if r.code != tc.code {
						t.Errorf("%q: exit %d, want %d\n%s", args, r.code, tc.code, r.err)
					}
					if r.code != fetch.ExitOK && !strings.Contains(r.err, "certificate") {
						t.Errorf("%q: no certificate error: %q", args, r.err)
					}
					if strings.Contains(r.err, "(-k)") != slices.Contains(flags, "-k") {
						t.Errorf("%q: the -k warning, or its absence, is wrong: %q", args, r.err)
					}
					return r
				}
				get, par, mir := t.TempDir(), t.TempDir(), t.TempDir()
				run("get", "-s", "-o", filepath.Join(get, "x"), s.URL+"/x")
				run("get", "-s", "-Z", "--output-dir", par, "-O", s.URL+"/x", s.URL+"/y")
				run("mirror", "-s", s.URL+"/m/", filepath.Join(mir, "m"))
				if tc.code != fetch.ExitOK {
					assertOnly(t, get)
					assertOnly(t, par)
					if _, err := os.Stat(filepath.Join(mir, "m", "a.txt")); !os.IsNotExist(err) {
						t.Errorf("the failed mirror wrote a.txt (%v)", err)
					}
					return
				}
				assertOnly(t, get, "x")
				assertOnly(t, par, "x", "y")
				for _, f := range []string{filepath.Join(get, "x"), filepath.Join(par, "y"), filepath.Join(mir, "m", "b.txt")} {
					if b, err := os.ReadFile(f); err != nil || !strings.HasPrefix(string(b), "body of /") {
						t.Errorf("%s: %q, %v", f, b, err)
					}
				}
				// The re-run asks whether a.txt and b.txt changed, at once:
				// multiplexed over HTTP/2, pipelined over HTTP/1.1.
				run("mirror", "-s", s.URL+"/m/", filepath.Join(mir, "m"))
				s.Close() // its connections have ended: the log is complete
				n2, cond := s.counts()
				if h2 != (n2 > 0) || cond < 2 {
					t.Errorf("%d HTTP/2 requests and %d conditional ones", n2, cond)
				}
				// An alert from the client is a certificate it refused (a
				// handshake it abandoned, a dial the transport no longer
				// needed, ends in EOF instead).
				if strings.Contains(s.log.String(), "remote error: tls:") {
					t.Errorf("fetch refused the server's certificate:\n%s", s.log.String())
				}
			})
		}
	}
}
