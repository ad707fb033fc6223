package http

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// With Options.HTTP.Exchange the request recorded for the archive is the
// request the server received, byte for byte (WARC 1.1 section 6.3: a
// request record holds the request as sent), for a plain GET, a resumed
// one and a conditional one.
func TestExchangeRequestAsSent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			var raw bytes.Buffer
			for {
				line, err := br.ReadString('\n')
				raw.WriteString(line)
				if err != nil || line == "\r\n" {
					break
				}
			}
			got <- raw.Bytes()
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
			c.Close()
		}
	}()
	d := New(Config{UserAgent: "fetch-test/1"})
	for _, tc := range []struct {
		name string
		path string
		req  proto.Request
	}{
		{"plain", "/a%20b/c.txt?q=1", proto.Request{}},
		{"resumed", "/f.bin", proto.Request{Offset: 7}},
		{"conditional", "/idx.html", proto.Request{Options: proto.Options{IfModifiedSince: time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)}}},
	} {
		req := tc.req
		req.IdleTimeout = 5 * time.Second
		req.Options.HTTP.Exchange = true
		resp, err := d.Fetch(t.Context(), uri.MustParse("http://"+ln.Addr().String()+tc.path), &req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		sent := <-got
		if resp.Exchange == nil {
			t.Fatalf("%s: no exchange recorded", tc.name)
		}
		if rec := string(resp.Exchange.Request); rec != string(sent) {
			t.Errorf("%s: recorded\n%q\nthe server received\n%q", tc.name, rec, sent)
		}
		if rs := string(resp.Exchange.Response); rs != "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\n" || resp.Exchange.Status != 200 {
			t.Errorf("%s: response header %q", tc.name, rs)
		}
	}
}

// finalHead finds the final response's head as the transport reads it: a
// line ends with LF, a CR before it optional (RFC 9112 section 2.2), the
// head ends with an empty line (section 2.1), and interim 1xx responses
// other than 101 come before the final one (RFC 9110 section 15.2).
func TestFinalHead(t *testing.T) {
	for _, tt := range []struct {
		name, in, head string
		ok             bool
	}{
		{"crlf", "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", "HTTP/1.1 200 OK\r\nA: b\r\n\r\n", true},
		{"lf", "HTTP/1.1 200 OK\nA: b\n\nbody", "HTTP/1.1 200 OK\nA: b\n\n", true},
		{"mixed", "HTTP/1.0 404 Not Found\r\nA: b\n\r\n", "HTTP/1.0 404 Not Found\r\nA: b\n\r\n", true},
		{"no fields", "HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n", true},
		{"interim", "HTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nx", "HTTP/1.1 200 OK\r\n\r\n", true},
		{"101 is final", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", true},
		{"no reason", "HTTP/1.1 200\r\n\r\n", "HTTP/1.1 200\r\n\r\n", true},
		{"cut", "HTTP/1.1 200 OK\r\nA: b\r\n", "", false},
		{"only interim", "HTTP/1.1 100 Continue\r\n\r\n", "", false},
		{"not http", "ICY 200 OK\r\n\r\n", "", false},
		{"bad code", "HTTP/1.1 2x0 OK\r\n\r\n", "", false},
		{"short code", "HTTP/1.1 20\r\n\r\n", "", false},
		{"cr alone is no end", "HTTP/1.1 200 OK\r\n\r\r\n", "", false},
		{"empty", "", "", false},
	} {
		start, end, ok := finalHead([]byte(tt.in))
		if ok != tt.ok || ok && tt.in[start:end] != tt.head {
			t.Errorf("%s: finalHead(%q) = %d, %d, %v; want %q, %v", tt.name, tt.in, start, end, ok, tt.head, tt.ok)
		}
	}
}

// FuzzFinalHead: finalHead never panics, and a head it returns lies in the
// input, starts with "HTTP/" and a final status, and ends with an empty
// line, the first one after its status line.
func FuzzFinalHead(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", "HTTP/1.1 103 E\r\n\r\nHTTP/1.1 200 OK\n\n", "HTTP/1.1 100 C\r\n\r\n",
		"HTTP/1.1 101 S\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\r\n", "\n\n", "HTTP/ 999\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		start, end, ok := finalHead(b)
		if !ok {
			return
		}
		if start < 0 || start >= end || end > len(b) {
			t.Fatalf("finalHead(%q) = %d, %d", b, start, end)
		}
		head := b[start:end]
		code, okc := statusCode(head)
		if !bytes.HasPrefix(head, []byte("HTTP/")) || !okc || code >= 100 && code <= 199 && code != 101 {
			t.Errorf("finalHead(%q): head %q", b, head)
		}
		if !bytes.HasSuffix(head, []byte("\n\n")) && !bytes.HasSuffix(head, []byte("\n\r\n")) {
			t.Errorf("finalHead(%q): head %q does not end with an empty line", b, head)
		}
		body := head[bytes.IndexByte(head, '\n')+1:]
		if i := bytes.Index(body, []byte("\n\n")); i >= 0 && i+2 < len(body) || bytes.HasPrefix(body, []byte("\r\n")) && len(body) > 2 {
			t.Errorf("finalHead(%q): head %q goes past its first empty line", b, head)
		}
	})
}

// Over TLS the exchange is recorded in plaintext, as exchanged inside
// the TLS session; over a kept connection each Fetch records its own
// exchange only.
func TestExchangeTLSKept(t *testing.T) {
	srv := httptest.NewTLSServer(handler())
	defer srv.Close()
	d := New(Config{KeepAlive: true, TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig})
	defer d.CloseIdleConnections()
	for _, p := range []string{"/small", "/small?again"} {
		req := testRequest()
		req.Options.HTTP.Exchange = true
		resp, err := d.Fetch(t.Context(), uri.MustParse(srv.URL+p), req)
		if err != nil {
			t.Fatal(err)
		}
		if got := readBody(t, resp); got != "hello, http\n" {
			t.Errorf("body %q", got)
		}
		if resp.Exchange == nil {
			t.Fatalf("%s: no exchange recorded", p)
		}
		rq, rs := string(resp.Exchange.Request), string(resp.Exchange.Response)
		if !strings.HasPrefix(rq, "GET "+p+" HTTP/1.1\r\nHost: ") || !strings.HasSuffix(rq, "\r\n\r\n") || strings.Count(rq, "GET ") != 1 {
			t.Errorf("%s: request %q", p, rq)
		}
		if !strings.HasPrefix(rs, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(rs, "\r\n\r\n") || strings.Contains(rs, "hello") {
			t.Errorf("%s: response head %q", p, rs)
		}
		if resp.Exchange.Framed != nil {
			t.Errorf("%s: a body with Content-Length taken as framed", p)
		}
	}
}

// A chunked body nobody takes the framing of (package fetch takes it only
// for a capture it records) is read all the same; what the exchange keeps
// of it stays bounded, and a late taker is told it lost the start.
func TestExchangeFramedUntaken(t *testing.T) {
	chunk := strings.Repeat("x", 32<<10)
	resp := fetchRecorded(t, func(rw http.ResponseWriter, r *http.Request) {
		for range 3 * maxUnattached / len(chunk) {
			io.WriteString(rw, chunk)
			rw.(http.Flusher).Flush()
		}
	})
	if resp.Exchange == nil || resp.Exchange.Framed == nil {
		t.Fatal("a chunked body is not offered as framed")
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != int64(3*maxUnattached/len(chunk)*len(chunk)) {
		t.Fatalf("read %d bytes, %v", n, err)
	}
	if err := resp.Exchange.Framed(io.Discard); err == nil {
		t.Error("attached after the body was read, with no error")
	}
}

// The framing of a chunked body goes to the writer attached, whole, with
// what arrived before the attachment.
func TestExchangeFramedTaken(t *testing.T) {
	resp := fetchRecorded(t, func(rw http.ResponseWriter, r *http.Request) {
		io.WriteString(rw, "abc")
		rw.(http.Flusher).Flush()
		io.WriteString(rw, "defgh")
	})
	var raw bytes.Buffer
	if resp.Exchange == nil || resp.Exchange.Framed == nil || resp.Exchange.Framed(&raw) != nil {
		t.Fatal("no framed body to attach to")
	}
	if got := readBody(t, resp); got != "abcdefgh" {
		t.Errorf("body %q", got)
	}
	if raw.String() != "3\r\nabc\r\n5\r\ndefgh\r\n0\r\n\r\n" {
		t.Errorf("body as received %q", raw.String())
	}
}

// fetchRecorded fetches "/" from an in-process server answering with h,
// the exchange recorded.
func fetchRecorded(t *testing.T, h http.HandlerFunc) *proto.Response {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	req := testRequest()
	req.Options.HTTP.Exchange = true
	resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(srv.URL+"/"), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
