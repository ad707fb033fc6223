package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// Issue 29: an HTTP redirect to gopher, news or nntp is refused (exit 4,
// the hop named) before anything is sent to its target, unless
// --proto-redir allows the scheme.
func TestGetRedirectProtocol(t *testing.T) {
	other, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(other.Addr().String())
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		target string
		flags  []string
		dials  int64 // 1: only the server redirecting
		code   int   // -1: any but ExitRefused
	}{
		{"gopher://[::1]:" + port + "/0x", nil, 1, fetch.ExitRefused},
		{"news:comp.test", nil, 1, fetch.ExitRefused},
		{"nntp://[::1]:" + port + "/comp.test/1", nil, 1, fetch.ExitRefused},
		{"ftp://[::1]:" + port + "/x", []string{"--proto-redir", "=http,https"}, 1, fetch.ExitRefused},
		// Allowed: the target is reached (and hangs up).
		{"gopher://[::1]:" + port + "/0x", []string{"--proto-redir", "+gopher"}, 2, -1},
		{"ftp://[::1]:" + port + "/x", nil, 2, -1},
	} {
		target = tt.target
		n := &netlog{}
		e, out, errb := newEnv("", n)
		e.getenv = func(k string) string {
			if k == "NNTPSERVER" {
				return other.Addr().String()
			}
			return ""
		}
		args := append(append([]string{"get"}, tt.flags...), srv.URL+"/start")
		code := runIn(t, e, args...)
		okCode := code == tt.code || tt.code == -1 && code != fetch.ExitRefused
		if !okCode || n.dials.Load() != tt.dials || out.Len() != 0 {
			t.Errorf("get %v to %s = %d %q, %d dials; want %d, %d dials (stderr %q)", tt.flags, tt.target, code, out, n.dials.Load(), tt.code, tt.dials, errb)
		}
		want := "fetch: refused: " + srv.URL + "/start: redirect-protocol: redirect to " + tt.target + "\n"
		if tt.code == fetch.ExitRefused && errb.String() != want {
			t.Errorf("stderr %q, want %q", errb, want)
		}
	}
}

// --proto-redir takes curl's syntax; an unknown scheme is a usage error
// before anything is fetched. --allow-private-redirect is a protection
// turned off: said on stderr, even with -s.
func TestRedirectFlags(t *testing.T) {
	n := &netlog{}
	r := runArgs(t, n, "", "get", "--proto-redir", "=http,sftp", "http://127.0.0.1:1/")
	if r.code != fetch.ExitUsage || !strings.Contains(r.err, `unknown protocol "sftp"`) || n.dials.Load()+n.lookups.Load() != 0 {
		t.Errorf("--proto-redir =http,sftp = %d, stderr %q", r.code, r.err)
	}
	s := startServer(t)
	r = runArgs(t, nil, "", "get", "-s", "--allow-private-redirect", s.url("/hello.txt"))
	if r.code != 0 || r.out != "hello\n" || !strings.Contains(r.err, "--allow-private-redirect") {
		t.Errorf("--allow-private-redirect = %d %q, stderr %q", r.code, r.out, r.err)
	}
}

// A redirect refused for the address its target resolved to names the
// hop, the address and its range.
func TestMessageRedirectToPrivate(t *testing.T) {
	re := &fetch.RedirectError{Rule: fetch.RuleRedirectToPrivate, From: "http://a.example/", To: "http://b.example/", Address: "10.0.0.1:80", Reason: "private (RFC 1918)"}
	err := &fetch.Error{Op: "redirect", URL: "http://b.example/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: re}}
	want := "refused: http://a.example/: redirect-to-private: redirect to http://b.example/ (10.0.0.1:80 is private (RFC 1918))"
	if got := message(err); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
