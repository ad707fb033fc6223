package http

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

var modTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// handler serves the fixtures of these tests.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/small", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello, http\n"))
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 32<<10)
		for range 1 << 16 { // bounded: 2 GiB
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/file.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		http.ServeContent(w, r, "file.txt", modTime, strings.NewReader("0123456789"))
	})
	mux.HandleFunc("/norange", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("0123456789"))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI+"\n"+r.Header.Get("Authorization"))
	})
	for path, code := range map[string]int{"/404": 404, "/410": 410, "/401": 401, "/403": 403, "/500": 500, "/302bare": 302, "/304bare": 304} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) })
	}
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "../other/place?x=1", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/moved-big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/file.txt")
		w.WriteHeader(http.StatusFound)
		w.Write(bytes.Repeat([]byte("x"), 2*drainMax))
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "file:///etc/passwd")
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/to-secret", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "ftp://user:hunter2@127.0.0.1/x")
		w.WriteHeader(http.StatusFound)
	})
	return mux
}

type server struct {
	*httptest.Server
	rec  *prototest.Recorder
	host string
	port string
}

func start(t *testing.T) *server {
	rec := prototest.Listen(t)
	srv := httptest.NewUnstartedServer(handler())
	srv.Listener = rec
	srv.Start()
	t.Cleanup(srv.Close)
	host, port, _ := net.SplitHostPort(rec.Addr().String())
	return &server{Server: srv, rec: rec, host: host, port: port}
}

func (s *server) url(path string) string { return "http://" + s.host + ":" + s.port + path }

func testRequest() *proto.Request {
	return &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
}

func fetch(t *testing.T, raw string, req *proto.Request) (*proto.Response, error) {
	t.Helper()
	if req == nil {
		req = testRequest()
	}
	return (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), req)
}

func readBody(t *testing.T, resp *proto.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

func TestConformance(t *testing.T) {
	s := start(t)
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Small:   s.url("/small"),
		Want:    []byte("hello, http\n"),
		Endless: s.url("/endless"),
		Unsafe: func(payload string) *uri.URL {
			// Only a struct built without uri.Parse can hold raw bytes.
			return &uri.URL{Scheme: "http", HasAuthority: true, Host: s.host, Port: s.port, Path: "/small" + payload}
		},
		Wire: s.rec.Bytes,
	})
}

func TestUnsafeQueryAndHost(t *testing.T) {
	s := start(t)
	for _, u := range []*uri.URL{
		{Scheme: "http", HasAuthority: true, Host: s.host, Port: s.port, Path: "/small", RawQuery: "a\r\nINJECTED: x"},
		{Scheme: "http", HasAuthority: true, Host: s.host + "\r\nINJECTED", Port: s.port, Path: "/small"},
	} {
		_, err := (&Driver{}).Fetch(t.Context(), u, testRequest())
		if !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Errorf("Fetch(%q) = %v, want ErrUnsafeArgument", u.String(), err)
		}
	}
	if s.rec.Accepts() != 0 {
		t.Errorf("%d connections made for unsafe URLs", s.rec.Accepts())
	}
}

func TestMetadata(t *testing.T) {
	s := start(t)
	resp, err := fetch(t, s.url("/file.txt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, resp); got != "0123456789" {
		t.Errorf("body = %q", got)
	}
	if resp.Size != 10 || !resp.ModTime.Equal(modTime) || resp.MediaType != "text/plain" || resp.Name != "file.txt" || resp.Offset != 0 {
		t.Errorf("metadata = size %d time %v type %q name %q offset %d", resp.Size, resp.ModTime, resp.MediaType, resp.Name, resp.Offset)
	}
}

// RFC 9110 section 14: a Range request is answered 206 by servers that
// support it and 200 (from the start) by others.
func TestResume(t *testing.T) {
	s := start(t)
	for _, tt := range []struct {
		path       string
		offset     int64
		body       string
		wantOffset int64
		wantSize   int64
	}{
		{"/file.txt", 4, "456789", 4, 10},
		{"/norange", 4, "0123456789", 0, 10},
		{"/file.txt", 10, "", 10, 10}, // 416: already complete
	} {
		req := testRequest()
		req.Offset = tt.offset
		resp, err := fetch(t, s.url(tt.path), req)
		if err != nil {
			t.Errorf("Fetch(%s at %d) = %v", tt.path, tt.offset, err)
			continue
		}
		if got := readBody(t, resp); got != tt.body || resp.Offset != tt.wantOffset || resp.Size != tt.wantSize {
			t.Errorf("Fetch(%s at %d) = %q offset %d size %d, want %q %d %d", tt.path, tt.offset, got, resp.Offset, resp.Size, tt.body, tt.wantOffset, tt.wantSize)
		}
	}
	req := testRequest()
	req.Offset = 20
	if _, err := fetch(t, s.url("/file.txt"), req); err == nil {
		t.Error("Fetch beyond the end succeeded")
	}
}

func TestStatus(t *testing.T) {
	s := start(t)
	for _, tt := range []struct {
		path string
		code int
		is   error
	}{
		{"/404", 404, proto.ErrNotFound},
		{"/410", 410, proto.ErrNotFound},
		{"/401", 401, proto.ErrLogin},
		{"/403", 403, proto.ErrPermission},
		{"/500", 500, nil},
		{"/302bare", 302, nil},
		{"/304bare", 304, nil}, // not asked for: no If-Modified-Since was sent
	} {
		_, err := fetch(t, s.url(tt.path), nil)
		var se *StatusError
		if !errors.As(err, &se) || se.Code != tt.code {
			t.Errorf("Fetch(%s) = %v, want *StatusError %d", tt.path, err, tt.code)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("Fetch(%s) = %v, want it to wrap %v", tt.path, err, tt.is)
		}
		if tt.is == nil && (errors.Is(err, proto.ErrNotFound) || errors.Is(err, proto.ErrLogin) || errors.Is(err, proto.ErrPermission)) {
			t.Errorf("Fetch(%s) = %v classified as a refusal", tt.path, err)
		}
	}
}

func TestRedirect(t *testing.T) {
	s := start(t)
	for _, tt := range []struct{ path, want string }{
		{"/moved", s.url("/other/place?x=1")},
		{"/to-file", "file:///etc/passwd"},
	} {
		_, err := fetch(t, s.url(tt.path), nil)
		var r *proto.Redirect
		if !errors.As(err, &r) || r.URL != tt.want {
			t.Errorf("Fetch(%s) = %v, want redirect to %s", tt.path, err, tt.want)
		}
	}
}

// RFC 1738 section 3.3: http URLs have no user information; it is not sent.
func TestUserinfoNotSent(t *testing.T) {
	s := start(t)
	var trace bytes.Buffer
	req := testRequest()
	req.Trace = &trace
	resp, err := fetch(t, "http://user:hunter2@"+s.host+":"+s.port+"/echo", req)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, resp); got != "/echo\n" {
		t.Errorf("server saw %q, want no Authorization", got)
	}
	if strings.Contains(trace.String(), "hunter2") || strings.Contains(s.rec.String(), "hunter2") {
		t.Errorf("password leaked: trace %q wire %q", trace.String(), s.rec.String())
	}
}

func TestEscaping(t *testing.T) {
	s := start(t)
	resp, err := fetch(t, s.url("/echo?a b{c}%41"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, resp); got != "/echo?a%20b%7Bc%7D%41\n" {
		t.Errorf("request target = %q", got)
	}
}

func TestTrace(t *testing.T) {
	s := start(t)
	var trace bytes.Buffer
	req := testRequest()
	req.Trace = &trace
	_, err := fetch(t, s.url("/to-secret"), req)
	var r *proto.Redirect
	if !errors.As(err, &r) {
		t.Fatalf("Fetch = %v, want redirect", err)
	}
	tr := trace.String()
	for _, want := range []string{"> GET /to-secret HTTP/1.1\n", "> Host: " + s.host + ":" + s.port + "\n", "< HTTP/1.1 302 Found\n", "< Location: ftp://user:xxxxx@127.0.0.1/x\n"} {
		if !strings.Contains(tr, want) {
			t.Errorf("trace lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "hunter2") {
		t.Errorf("trace shows the password:\n%s", tr)
	}
	if got := redactHeader("Authorization", "Basic dTpw"); got != "Basic ****" {
		t.Errorf("redactHeader(Authorization) = %q", got)
	}
}

func TestHeadersOnly(t *testing.T) {
	s := start(t)
	req := testRequest()
	req.Options.HeadersOnly = true
	resp, err := fetch(t, s.url("/file.txt"), req)
	if err != nil {
		t.Fatal(err)
	}
	got := readBody(t, resp)
	if !strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n") || !strings.Contains(got, "Content-Length: 10\r\n") || strings.Contains(got, "0123456789") {
		t.Errorf("headers-only body = %q", got)
	}
}

func TestHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(handler())
	defer srv.Close()
	d := New(Config{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig})
	raw := srv.URL + "/small"
	resp, err := d.Fetch(t.Context(), uri.MustParse(raw), testRequest())
	if err != nil {
		t.Fatalf("Fetch(%s) = %v", raw, err)
	}
	if got := readBody(t, resp); got != "hello, http\n" {
		t.Errorf("https body = %q", got)
	}
	// Without the test CA the certificate is refused.
	if _, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), testRequest()); err == nil {
		t.Error("Fetch with an unknown CA succeeded")
	}
}

func TestContentRange(t *testing.T) {
	for _, tt := range []struct {
		in          string
		first, size int64
		ok          bool
	}{
		{"bytes 4-9/10", 4, 10, true},
		{"bytes 4-9/*", 4, -1, true},
		{"bytes 4/10", 0, 0, false},
		{"items 4-9/10", 0, 0, false},
		{"bytes x-9/10", 0, 0, false},
		{"bytes +4-9/10", 0, 0, false},
		{"bytes 4-9/-10", 0, 0, false},
		{"bytes 1-2/99999999999999999999", 0, 0, false},
		// RFC 9110 section 14.4: invalid when last-pos < first-pos or
		// complete-length <= last-pos, or without a last-pos at all.
		{"bytes 9-4/10", 0, 0, false},
		{"bytes 4-10/10", 0, 0, false},
		{"bytes 4-/10", 0, 0, false},
		{"bytes 4-x/*", 0, 0, false},
		{"bytes 9-9/10", 9, 10, true},
	} {
		first, size, ok := contentRange(tt.in)
		if first != tt.first || size != tt.size || ok != tt.ok {
			t.Errorf("contentRange(%q) = %d, %d, %v, want %d, %d, %v", tt.in, first, size, ok, tt.first, tt.size, tt.ok)
		}
	}
}

// RFC 9110 section 13.1.3: with Options.IfModifiedSince the GET carries
// If-Modified-Since, and a 304 (section 15.4.5) is a response with
// NotModified and no body, not an error. A resource changed since that
// time comes whole; a resumed request asks by range instead.
func TestIfModifiedSince(t *testing.T) {
	s := start(t)
	since := func(tm time.Time) *proto.Request {
		req := testRequest()
		req.Options.IfModifiedSince = tm
		return req
	}
	resp, err := fetch(t, s.url("/file.txt"), since(modTime))
	if err != nil || !resp.NotModified || readBody(t, resp) != "" || !resp.ModTime.Equal(modTime) {
		t.Fatalf("unchanged: %+v, %v; want NotModified with no body", resp, err)
	}
	resp, err = fetch(t, s.url("/file.txt"), since(modTime.Add(-time.Hour)))
	if err != nil || resp.NotModified || readBody(t, resp) != "0123456789" {
		t.Fatalf("changed since: %+v, %v; want the whole file", resp, err)
	}
	req := since(modTime)
	req.Offset = 4
	resp, err = fetch(t, s.url("/file.txt"), req)
	if err != nil || resp.NotModified || resp.Offset != 4 || readBody(t, resp) != "456789" {
		t.Fatalf("resumed: %+v, %v; want bytes 4-9", resp, err)
	}
}

// KeepAlive reuses connections for fetches in a row (each body read to its
// end): ten fetches take far fewer than ten connections, and the end of a
// request's context does not close the kept connection. Without it every
// fetch has a connection of its own.
func TestKeepAlive(t *testing.T) {
	s := start(t)
	d := New(Config{KeepAlive: true})
	defer d.CloseIdleConnections()
	for i := range 10 {
		ctx, cancel := context.WithCancel(t.Context())
		resp, err := d.Fetch(ctx, uri.MustParse(s.url("/file.txt")), testRequest())
		if err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if got := readBody(t, resp); got != "0123456789" {
			t.Fatalf("fetch %d: body %q", i, got)
		}
		cancel()
	}
	kept := s.rec.Accepts()
	if kept >= 5 {
		t.Errorf("KeepAlive: %d connections for 10 fetches, want reuse", kept)
	}
	d.CloseIdleConnections()
	for i := range 3 {
		resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(s.url("/file.txt")), testRequest())
		if err != nil {
			t.Fatalf("fetch %d without KeepAlive: %v", i, err)
		}
		readBody(t, resp)
	}
	if n := s.rec.Accepts() - kept; n != 3 {
		t.Errorf("without KeepAlive: %d connections for 3 fetches, want 3", n)
	}
}

// With KeepAlive, the body of a redirect or of an error is read to its end
// (up to drainMax) before the driver returns, so that its connection
// serves the next request; a longer body closes the connection instead.
func TestKeepAliveAfterRedirectAndError(t *testing.T) {
	s := start(t)
	d := New(Config{KeepAlive: true})
	defer d.CloseIdleConnections()
	get := func(path string) error {
		resp, err := d.Fetch(t.Context(), uri.MustParse(s.url(path)), testRequest())
		if err == nil {
			readBody(t, resp)
		}
		return err
	}
	var r *proto.Redirect
	if err := get("/moved"); !errors.As(err, &r) {
		t.Fatalf("/moved: %v, want a redirect", err)
	}
	if err := get("/404"); !errors.Is(err, proto.ErrNotFound) {
		t.Fatalf("/404: %v", err)
	}
	if err := get("/file.txt"); err != nil {
		t.Fatal(err)
	}
	if n := s.rec.Accepts(); n != 1 {
		t.Errorf("a redirect, an error and a file took %d connections, want 1", n)
	}
	if err := get("/moved-big"); !errors.As(err, &r) {
		t.Fatalf("/moved-big: %v, want a redirect", err)
	}
	if err := get("/file.txt"); err != nil {
		t.Fatal(err)
	}
	if n := s.rec.Accepts(); n != 2 {
		t.Errorf("after a redirect with a %d-byte body: %d connections in all, want 2", 2*drainMax, n)
	}
}

// TestClosedBeforeResponse: a server that reads the request and closes
// the connection without a response (net/http's bare EOF) is a lost
// connection, io.ErrUnexpectedEOF (exit 5, retried), that says so; it was
// "http: EOF", exit 1.
func TestClosedBeforeResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Read(make([]byte, 4096))
			c.Close()
		}
	}()
	d := &Driver{}
	_, err = d.Fetch(t.Context(), uri.MustParse("http://"+ln.Addr().String()+"/x"), &proto.Request{})
	// errors.Is checks the kind; the text is the explanation the user
	// sees instead of a bare "unexpected EOF".
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "closed the connection before its response") {
		t.Errorf("Fetch = %v, want the connection lost before a response (io.ErrUnexpectedEOF)", err)
	}
}
