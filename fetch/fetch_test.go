package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/file"
	fhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// counters counts what a client did on the network.
type counters struct {
	lookups atomic.Int64
	dials   atomic.Int64
	mu      sync.Mutex
	addrs   []string
}

// hosts maps made-up names to addresses; nothing reaches real DNS.
type fakeResolver struct {
	c     *counters
	hosts map[string]string
}

func (r fakeResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	r.c.lookups.Add(1)
	if a, ok := r.hosts[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (c *counters) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c.dials.Add(1)
	c.mu.Lock()
	c.addrs = append(c.addrs, addr)
	c.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// dialer is a driver that connects to the URL's host and port and returns
// whatever the server sends: if safety let a URL through, it would reach
// the network.
type dialer struct{ calls atomic.Int64 }

func (d *dialer) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	d.calls.Add(1)
	c, err := req.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), u.Port))
	if err != nil {
		return nil, err
	}
	return &proto.Response{Body: c, Size: -1}, nil
}

// newClient returns a client with counting hooks and a registry where
// every line-protocol scheme has a dialing fake driver, http and file
// their own.
func newClient(hosts map[string]string) (*Client, *counters, *dialer) {
	cnt := &counters{}
	d := &dialer{}
	r := NewRegistry()
	for _, s := range []string{"ftp", "gopher", "nntp", "news", "telnet"} {
		r.Register(s, d)
	}
	h := &fhttp.Driver{}
	r.Register("http", h)
	r.Register("file", &file.Driver{})
	c := &Client{
		Registry:       r,
		Resolver:       fakeResolver{c: cnt, hosts: hosts},
		Dial:           cnt.dial,
		ConnectTimeout: 5 * time.Second,
		IdleTimeout:    5 * time.Second,
	}
	return c, cnt, d
}

// Issue 3 acceptance: each of these is refused with exit 4 before any
// look-up or connection.
func TestRefusedBeforeNetwork(t *testing.T) {
	for _, tt := range []struct{ url, rule string }{
		{"gopher://127.0.0.1:25/1", safety.RulePortOtherProtocol},
		{"ftp://127.0.0.1:6379/x", safety.RulePortOtherProtocol},
		{"ftp://h/a%0D%0ADELE%20x", safety.RuleEncodedCRLF},
		{"nntp://127.0.0.1:11211/g/1", safety.RulePortOtherProtocol},
		{"gopher://127.0.0.1:70/1a%0d%0aQUIT", safety.RuleEncodedCRLF},
	} {
		c, cnt, d := newClient(map[string]string{"h": "127.0.0.1"})
		_, err := c.Get(t.Context(), tt.url)
		var re *safety.RefusedError
		if !errors.As(err, &re) || !strings.Contains(strings.Join(re.Rules(), " "), tt.rule) {
			t.Errorf("Get(%q) = %v, want refusal by %s", tt.url, err, tt.rule)
		}
		if code := ExitCode(err); code != ExitRefused {
			t.Errorf("ExitCode(Get(%q)) = %d, want %d", tt.url, code, ExitRefused)
		}
		if n, m, k := cnt.lookups.Load(), cnt.dials.Load(), d.calls.Load(); n+m+k != 0 {
			t.Errorf("Get(%q): %d look-ups, %d dials, %d driver calls; want none", tt.url, n, m, k)
		}
	}
}

// listener counts accepted connections.
func listener(t *testing.T) (net.Listener, *notify.Counter) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n notify.Counter
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add()
			c.Write([]byte("hello"))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln, &n
}

// DESIGN.md safety: --deny-private is enforced on the resolved address.
func TestDenyPrivateAtDialTime(t *testing.T) {
	ln, accepts := listener(t)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	raw := "gopher://made-up.invalid:" + port + "/0x"
	c, cnt, d := newClient(map[string]string{"made-up.invalid": "127.0.0.1"})
	c.Policy.DenyPrivate = true
	c.Policy.AllowPorts = []int{}
	_, err := c.Get(t.Context(), raw)
	if !errors.Is(err, safety.ErrRefused) || !errors.Is(err, safety.ErrPrivateAddress) || ExitCode(err) != ExitRefused {
		t.Errorf("Get(%q) with DenyPrivate = %v, want a private-address refusal", raw, err)
	}
	if cnt.lookups.Load() != 1 || d.calls.Load() != 1 || cnt.dials.Load() != 0 || accepts.Load() != 0 {
		t.Errorf("look-ups %d, driver calls %d, dials %d, accepts %d; want 1 1 0 0",
			cnt.lookups.Load(), d.calls.Load(), cnt.dials.Load(), accepts.Load())
	}

	// The default dialer (no Dial hook) refuses too.
	c.Dial = nil
	if _, err := c.Get(t.Context(), raw); !errors.Is(err, safety.ErrPrivateAddress) || accepts.Load() != 0 {
		t.Errorf("Get(%q) with the default dialer = %v, accepts %d", raw, err, accepts.Load())
	}

	// Without DenyPrivate the same URL connects.
	c.Policy.DenyPrivate = false
	resp, err := c.Get(t.Context(), raw)
	if err != nil {
		t.Fatalf("Get(%q) = %v", raw, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hello" || accepts.Load() != 1 {
		t.Errorf("Get(%q) = %q with %d accepts, want hello and 1", raw, b, accepts.Load())
	}
}

func redirectServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	to := func(loc string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", loc)
			w.WriteHeader(http.StatusFound)
		}
	}
	mux.Handle("/redir-file", to("file:///etc/passwd"))
	mux.Handle("/redir-badport", to("http://127.0.0.1:25/"))
	mux.Handle("/redir-crlf", to("gopher://127.0.0.1/1a%0D%0AQUIT"))
	mux.Handle("/redir-ok", to("/ok"))
	mux.Handle("/loop", to("/loop"))
	mux.Handle("/redir-bad", to("ftp://u:sekrit@h:99999/x"))
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// DESIGN.md http: every redirect target is checked by safety again.
func TestRedirectRefused(t *testing.T) {
	srv := redirectServer(t)
	for _, path := range []string{"/redir-file", "/redir-badport", "/redir-crlf"} {
		c, cnt, d := newClient(nil)
		_, err := c.Get(t.Context(), srv.URL+path)
		if !errors.Is(err, safety.ErrRefused) || ExitCode(err) != ExitRefused {
			t.Errorf("Get(%s) = %v, want refusal", path, err)
		}
		if cnt.dials.Load() != 1 || d.calls.Load() != 0 {
			t.Errorf("Get(%s): %d dials (%v), %d driver calls; want only the first", path, cnt.dials.Load(), cnt.addrs, d.calls.Load())
		}
	}
	c, _, _ := newClient(nil)
	_, err := c.Get(t.Context(), srv.URL+"/redir-file")
	var re *RedirectError
	if !errors.As(err, &re) || re.Rule != RuleRedirectToFile {
		t.Errorf("Get(/redir-file) = %v, want *RedirectError", err)
	}
}

func TestRedirectFollowed(t *testing.T) {
	srv := redirectServer(t)
	var trace bytes.Buffer
	c, _, _ := newClient(nil)
	c.Trace = &trace
	resp, err := c.Get(t.Context(), srv.URL+"/redir-ok")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" || resp.URL.String() != srv.URL+"/ok" || len(resp.Redirects) != 1 {
		t.Errorf("Get(/redir-ok) = %q at %s via %v", b, resp.URL, resp.Redirects)
	}
	if !strings.Contains(trace.String(), "* redirect (302 Found) to "+srv.URL+"/ok") {
		t.Errorf("trace lacks the redirect:\n%s", trace.String())
	}

	_, err = c.Get(t.Context(), srv.URL+"/loop")
	if !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("Get(/loop) = %v, want ErrTooManyRedirects", err)
	}
	c.MaxRedirects = -1
	if _, err := c.Get(t.Context(), srv.URL+"/redir-ok"); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("Get(/redir-ok) with MaxRedirects -1 = %v, want ErrTooManyRedirects", err)
	}
}

func TestRedirectMalformed(t *testing.T) {
	srv := redirectServer(t)
	c, _, _ := newClient(nil)
	_, err := c.Get(t.Context(), srv.URL+"/redir-bad")
	var ue *uri.Error
	if !errors.As(err, &ue) || ExitCode(err) != ExitMalformed {
		t.Errorf("Get(/redir-bad) = %v, want *uri.Error", err)
	}
	if err != nil && strings.Contains(err.Error(), "sekrit") {
		t.Errorf("error shows the password: %v", err)
	}
}

func TestPasswordNeverShown(t *testing.T) {
	srv := redirectServer(t)
	var trace bytes.Buffer
	c, _, _ := newClient(map[string]string{"h": "127.0.0.1"})
	c.Trace = &trace
	for _, raw := range []string{
		"ftp://u:sekrit@127.0.0.1:6379/x",                            // refused
		"ftp://u:sekrit@h/%zz",                                       // malformed
		"ftp://u:sekrit@nowhere.invalid/x",                           // DNS failure
		"foo://u:sekrit@h/",                                          // unsupported
		strings.Replace(srv.URL, "://", "://u:sekrit@", 1) + "/nope", // 404 over http
		"ftp://u:sek%zzrit@h/",                                       // malformed inside the password
	} {
		_, err := c.Get(t.Context(), raw)
		if err == nil {
			t.Errorf("Get(%q) succeeded", raw)
			continue
		}
		if strings.Contains(err.Error(), "sek") {
			t.Errorf("Get(%q) error shows the password: %v", raw, err)
		}
	}
	if strings.Contains(trace.String(), "sek") {
		t.Errorf("trace shows the password:\n%s", trace.String())
	}
}

func TestUnsupportedScheme(t *testing.T) {
	c, _, _ := newClient(nil)
	_, err := c.Get(t.Context(), "wais://127.0.0.1/db")
	// The sentinel carries no scheme: the message the user sees names it.
	if !errors.Is(err, ErrUnsupportedScheme) || ExitCode(err) != ExitNoAccess || !strings.Contains(err.Error(), `"wais"`) {
		t.Errorf("Get(wais:) = %v, want ErrUnsupportedScheme naming wais", err)
	}
}

func TestMaxTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 100 {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	c, _, _ := newClient(nil)
	c.MaxTime = 300 * time.Millisecond
	start := time.Now()
	resp, err := c.Get(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if err == nil || ExitCode(err) != ExitNetwork || time.Since(start) > 5*time.Second {
		t.Errorf("body after MaxTime: %v (exit %d) after %v", err, ExitCode(err), time.Since(start))
	}
}

func TestConnectTimeout(t *testing.T) {
	c, _, _ := newClient(nil)
	c.ConnectTimeout = 100 * time.Millisecond
	c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done() // a peer that never answers the SYN
		return nil, ctx.Err()
	}
	_, err := c.Get(t.Context(), "gopher://127.0.0.1/0x")
	var fe *Error
	if !errors.As(err, &fe) || !fe.Timeout() || ExitCode(err) != ExitNetwork {
		t.Errorf("Get with a silent peer = %v, want a timeout (exit 5)", err)
	}
}

// recorder is a driver that records the request it was given.
type recorder struct{ req *proto.Request }

func (r *recorder) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	r.req = req
	return &proto.Response{Size: 0}, nil
}

func TestRequestSettings(t *testing.T) {
	rec := &recorder{}
	reg := NewRegistry()
	reg.Register("gopher", rec)
	c := &Client{Registry: reg, ConnectTimeout: time.Second, IdleTimeout: 2 * time.Second,
		Options: proto.Options{Email: "a@b", FTP: proto.FTPOptions{Method: proto.MethodNoCWD}}}
	resp, err := c.Fetch(t.Context(), "gopher://127.0.0.1/7s", &proto.Request{Offset: 5, Search: "q",
		Options: proto.Options{FTP: proto.FTPOptions{Method: proto.MethodMultiCWD}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := resp.Body.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("nil body replaced by %d, %v; want an empty body", n, err)
	}
	resp.Body.Close()
	resp.Body.Close()
	r := rec.req
	if r.Offset != 5 || r.Search != "q" || r.ConnectTimeout != time.Second || r.IdleTimeout != 2*time.Second || r.Dial == nil {
		t.Errorf("request = %+v", r)
	}
	if r.Options.Email != "a@b" || r.Options.FTP.Method != proto.MethodMultiCWD {
		t.Errorf("options = %+v, want client's merged under the request's", r.Options)
	}
	if c.Options.FTP.Method != proto.MethodNoCWD {
		t.Errorf("client options changed: %+v", c.Options)
	}
}

func TestFileViaFTP(t *testing.T) {
	rec := &recorder{}
	reg := DefaultRegistry()
	reg2 := NewRegistry()
	d, _ := reg.Lookup("file")
	reg2.Register("file", d)
	reg2.Register("ftp", rec)
	c := &Client{Registry: reg2, Options: proto.Options{File: proto.FileOptions{ViaFTP: true}}}
	resp, err := c.Get(t.Context(), "file://ftp.example.org/pub/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.URL.String() != "ftp://ftp.example.org/pub/x" || rec.req == nil {
		t.Errorf("file-via-ftp fetched %s", resp.URL)
	}
	c.Options = proto.Options{}
	if _, err := c.Get(t.Context(), "file://ftp.example.org/pub/x"); ExitCode(err) != ExitNoAccess {
		t.Errorf("file://otherhost without file-via-ftp = %v, want exit 7", err)
	}
}

func TestIDNLookup(t *testing.T) {
	ln, accepts := listener(t)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	c, cnt, _ := newClient(map[string]string{"xn--bcher-kva.invalid": "127.0.0.1"})
	resp, err := c.Get(t.Context(), "gopher://bücher.invalid:"+port+"/0x")
	if err != nil {
		t.Fatalf("Get(IDN host) = %v", err)
	}
	resp.Body.Close()
	// The server counts the connection after Accept returns, which may be
	// after the client has its connection.
	accepts.AtLeast(1, 5*time.Second)
	if cnt.lookups.Load() != 1 || accepts.Load() != 1 {
		t.Errorf("look-ups %d accepts %d, want 1 1", cnt.lookups.Load(), accepts.Load())
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	d := &recorder{}
	r.Register("Gopher", d)
	if got, ok := r.Lookup("GOPHER"); !ok || got != d {
		t.Errorf("Lookup(GOPHER) = %v, %v", got, ok)
	}
	if _, ok := r.Lookup("ftp"); ok {
		t.Error("Lookup(ftp) found a driver")
	}
	for name, f := range map[string]func(){
		"duplicate": func() { r.Register("gopher", d) },
		"empty":     func() { r.Register("", d) },
		"nil":       func() { r.Register("ftp", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register %s did not panic", name)
				}
			}()
			f()
		}()
	}
	want := "file ftp gopher http https mailto news nntp prospero telnet wais"
	if got := strings.Join(DefaultRegistry().Schemes(), " "); got != want {
		t.Errorf("DefaultRegistry().Schemes() = %s, want %s", got, want)
	}
}

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("x"), ExitError},
		{proto.ErrNeedInput, ExitUsage},
		{&uri.Error{Err: uri.Reason("bad")}, ExitMalformed},
		{&safety.RefusedError{}, ExitRefused},
		{proto.ErrUnsafeArgument, ExitRefused},
		{&net.OpError{Op: "dial", Err: &safety.AddressError{}}, ExitRefused},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, ExitNetwork},
		{&net.DNSError{Name: "h"}, ExitNetwork},
		{&proto.ProtocolError{Proto: "gopher"}, ExitProtocol},
		{io.ErrUnexpectedEOF, ExitNetwork},
		{context.DeadlineExceeded, ExitNetwork},
		{proto.ErrNotFound, ExitServer},
		{proto.ErrPermission, ExitServer},
		{proto.ErrLogin, ExitServer},
		{proto.ErrNoAccessMethod, ExitNoAccess},
		{ErrUnsupportedScheme, ExitNoAccess},
		{&RedirectError{}, ExitRefused},
		{&os.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, ExitError},
		{syscall.ECONNRESET, ExitNetwork},
	} {
		if got := ExitCode(&Error{Op: "get", Err: tt.err}); tt.err != nil && got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
		if tt.err == nil && ExitCode(nil) != ExitOK {
			t.Errorf("ExitCode(nil) = %d", ExitCode(nil))
		}
	}
}

func TestPrepareAndDriver(t *testing.T) {
	c, cnt, d := newClient(nil)
	if _, _, err := c.Prepare(uri.MustParse("gopher://127.0.0.1:25/1"), nil); ExitCode(err) != ExitRefused {
		t.Errorf("Prepare(port 25) = %v, want a refusal", err)
	}
	req, _, err := c.Prepare(uri.MustParse("telnet://127.0.0.1/"), &proto.Request{Search: "s"})
	if err != nil || req.Dial == nil || req.Search != "s" || req.ConnectTimeout != c.ConnectTimeout {
		t.Errorf("Prepare(telnet) = %+v, %v", req, err)
	}
	if _, err := c.Driver().Fetch(t.Context(), uri.MustParse("ftp://127.0.0.1:6379/x"), nil); ExitCode(err) != ExitRefused {
		t.Errorf("Driver().Fetch(port 6379) = %v, want a refusal", err)
	}
	if cnt.dials.Load() != 0 || d.calls.Load() != 0 {
		t.Errorf("dials %d, driver calls %d; want none", cnt.dials.Load(), d.calls.Load())
	}
}

// nothing is a broken driver that returns neither a response nor an error.
type nothing struct{}

func (nothing) Fetch(context.Context, *uri.URL, *proto.Request) (*proto.Response, error) {
	return nil, nil
}

func TestBrokenDriver(t *testing.T) {
	reg := NewRegistry()
	reg.Register("gopher", nothing{})
	c := &Client{Registry: reg}
	// The driver's bug, not the server's: exit 1, not 9 (the server broke
	// the protocol).
	if _, err := c.Get(t.Context(), "gopher://127.0.0.1/0x"); err == nil || ExitCode(err) != ExitError {
		t.Errorf("Get with a broken driver = %v (exit %d), want an error of exit %d", err, ExitCode(err), ExitError)
	}
}
