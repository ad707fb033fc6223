package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/gopher"
	fhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// scripted answers every URL with the body named by its path, and writes
// an FTP-like transcript to the request's trace. What an archive makes of
// its captures is what archive says (the driver of the scheme it stands
// for), nothing when nil.
type scripted struct {
	kind    proto.Kind
	archive proto.Archiver
}

func (s scripted) ArchiveRequest(r *proto.Request) bool {
	return s.archive != nil && s.archive.ArchiveRequest(r)
}

func (s scripted) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if s.archive == nil {
		return proto.ArchiveRecord{}
	}
	return s.archive.ArchiveRecord(u, resp)
}

func (s scripted) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if req.Trace != nil {
		fmt.Fprintf(req.Trace, "> USER anonymous\n> PASS ****\n> RETR %s\n", u.Path)
	}
	body := "body of " + u.Path
	size := int64(len(body))
	if u.Path == "/short" {
		size += 10 // a driver that announced more than came, and saw no error
	}
	return &proto.Response{Kind: s.kind, Body: io.NopCloser(strings.NewReader(body)), Size: size}, nil
}

func newWARC(t *testing.T) (*warc.Writer, string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "w")
	w, err := warc.Create(warc.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return w, name
}

// TestWARCBodies: a body read to its end is archived (by Read and by
// WriteTo); one closed early, one that ended short of the size its driver
// announced, a resumed one, and a 304 are not; a listing closed unread is.
func TestWARCBodies(t *testing.T) {
	w, name := newWARC(t)
	reg := NewRegistry()
	reg.Register("ftp", scripted{archive: &ftp.Driver{}})
	reg.Register("gopher", scripted{kind: proto.KindDirectory, archive: &gopher.Driver{}})
	c := &Client{Registry: reg, WARC: w}
	get := func(raw string, req *proto.Request, read func(io.Reader)) {
		t.Helper()
		resp, err := c.Fetch(t.Context(), raw, req)
		if err != nil {
			t.Fatal(err)
		}
		read(resp.Body)
		if err := resp.Body.Close(); err != nil {
			t.Fatal(err)
		}
	}
	all := func(r io.Reader) { io.ReadAll(r) }
	copyTo := func(r io.Reader) { io.Copy(&bytes.Buffer{}, r) }
	get("ftp://127.0.0.1/read", nil, all)
	get("ftp://127.0.0.1/writeto", nil, copyTo)
	get("ftp://127.0.0.1/early", nil, func(r io.Reader) { r.Read(make([]byte, 2)) })
	get("ftp://127.0.0.1/short", nil, all)
	get("ftp://127.0.0.1/short", nil, copyTo)
	get("ftp://127.0.0.1/resumed", &proto.Request{Offset: 3}, all)
	get("gopher://127.0.0.1/1/menu", nil, func(io.Reader) {})
	get("ftp://user:secret@127.0.0.1/login", nil, all)
	w.Close()
	recs := warctest.Check(t, name+".warc.gz")
	var got []string
	for _, r := range recs[1:] {
		got = append(got, r.Get("WARC-Type")+" "+r.Get("WARC-Target-URI"))
		if bytes.Contains(r.Block, []byte("secret")) {
			t.Errorf("password in %v", r.Header)
		}
	}
	want := []string{
		"resource ftp://127.0.0.1/read", "metadata ftp://127.0.0.1/read",
		"resource ftp://127.0.0.1/writeto", "metadata ftp://127.0.0.1/writeto",
		"resource gopher://127.0.0.1/1/menu",
		"resource ftp://127.0.0.1/login", "metadata ftp://127.0.0.1/login",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("records:\n%q\nwant\n%q", got, want)
	}
	if string(recs[1].Block) != "body of /read" || !strings.Contains(string(recs[2].Block), "> PASS ****\n> RETR /read") {
		t.Errorf("resource %q, metadata %q", recs[1].Block, recs[2].Block)
	}
	if recs[5].Get("Content-Type") != "text/x-gopher-menu" {
		t.Errorf("menu Content-Type %q", recs[5].Get("Content-Type"))
	}
	if n, uris := w.Dropped(); n != 2 || !slices.Equal(uris, []string{"ftp://127.0.0.1/early", "ftp://127.0.0.1/short"}) {
		t.Errorf("dropped %d: %q", n, uris)
	}
}

// wireServer answers each request on a connection (kept open) with the
// next of answers, byte for byte, and sends the requests it received on
// got. It talks only on 127.0.0.1.
func wireServer(t *testing.T, answers ...string) (addr string, got <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan string, len(answers))
	go func() {
		next := 0
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				for {
					var req strings.Builder
					for {
						line, err := br.ReadString('\n')
						req.WriteString(line)
						if err != nil {
							return
						}
						if line == "\r\n" {
							break
						}
					}
					ch <- req.String()
					if next >= len(answers) {
						return
					}
					io.WriteString(c, answers[next])
					next++
				}
			}()
		}
	}()
	return ln.Addr().String(), ch
}

// TestWARCHTTP: the request and the response records hold the bytes as
// they passed on the connection (WARC 1.1 sections 6.3 and 6.4), over one
// kept connection: the header as the server wrote it (case, order), a
// chunked body with its framing, extensions and trailer, an interim 103
// left out; the payload digest is over the body decoded (section 5.9), so
// that the same file sent chunked and not has one digest (the second is a
// revisit); a 304 archives nothing.
func TestWARCHTTP(t *testing.T) {
	const (
		early   = "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
		chunked = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nX-Test: 1\r\nTransfer-Encoding: chunked\r\nDate: Mon, 01 Jan 2001 00:00:00 GMT\r\n\r\n" +
			"c;name=value\r\nfirst part, \r\nB\r\nsecond part\r\n0\r\nX-Trailer: t\r\n\r\n"
		plain = "HTTP/1.1 200 OK\nContent-Length: 23\nContent-Type: text/plain\n\nfirst part, second part"
		not   = "HTTP/1.1 304 Not Modified\r\nDate: Mon, 01 Jan 2001 00:00:00 GMT\r\n\r\n"
	)
	addr, got := wireServer(t, early+chunked, plain, not)
	name := filepath.Join(t.TempDir(), "w")
	w, err := warc.Create(warc.Options{Name: name, CDX: true})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.Register("http", fhttp.New(fhttp.Config{KeepAlive: true}))
	c := &Client{Registry: reg, WARC: w}
	c.Policy.AllowPorts = []int{portOf(t, "http://"+addr)}
	var sent []string
	for _, tc := range []struct {
		path string
		req  *proto.Request
	}{
		{"/x.txt?q=1", nil},
		{"/y.txt", nil},
		{"/z.txt", &proto.Request{Options: proto.Options{IfModifiedSince: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}}},
	} {
		resp, err := c.Fetch(t.Context(), "http://"+addr+tc.path, tc.req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !resp.NotModified && string(b) != "first part, second part" {
			t.Errorf("%s: body %q", tc.path, b)
		}
		sent = append(sent, <-got)
	}
	w.Close()
	recs := warctest.Check(t, name+".warc.gz")
	var types []string
	for _, r := range recs[1:] {
		types = append(types, r.Get("WARC-Type"))
	}
	if want := []string{"request", "response", "request", "revisit"}; !slices.Equal(types, want) {
		t.Fatalf("records %q, want %q", types, want)
	}
	for i, want := range []string{sent[0], chunked, sent[1], "HTTP/1.1 200 OK\nContent-Length: 23\nContent-Type: text/plain\n\n"} {
		if got := string(recs[1+i].Block); got != want {
			t.Errorf("%s record of %s:\n%q\nwant (as on the wire)\n%q", types[i], recs[1+i].Get("WARC-Target-URI"), got, want)
		}
	}
	if string(warctest.Payload(recs[2])) != "first part, second part" {
		t.Errorf("payload %q", warctest.Payload(recs[2]))
	}
	if !strings.HasPrefix(sent[0], "GET /x.txt?q=1 HTTP/1.1\r\nHost: "+addr+"\r\n") || !strings.Contains(sent[0], "User-Agent: fetch\r\n") {
		t.Errorf("request %q", sent[0])
	}
	if recs[2].Get("WARC-IP-Address") != "127.0.0.1" {
		t.Errorf("address %q", recs[2].Get("WARC-IP-Address"))
	}
}

func portOf(t *testing.T, raw string) int {
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.PortNumber()
}

// TestWARCPartial: an HTTP HEAD is a response record without payload; an
// article's head or body alone is not archived.
func TestWARCPartial(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(rw nethttp.ResponseWriter, r *nethttp.Request) {
		rw.Header().Set("Content-Type", "text/plain")
		io.WriteString(rw, "the body")
	}))
	defer srv.Close()
	w, name := newWARC(t)
	reg := NewRegistry()
	reg.Register("http", &fhttp.Driver{})
	reg.Register("nntp", scripted{})
	c := &Client{Registry: reg, WARC: w, Options: proto.Options{HeadersOnly: true}}
	c.Policy.AllowPorts = []int{portOf(t, srv.URL)}
	for _, raw := range []string{srv.URL + "/h", "nntp://127.0.0.1/g/1"} {
		resp, err := c.Fetch(t.Context(), raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(resp.Body); len(b) == 0 {
			t.Errorf("%s: empty body", raw)
		}
		resp.Body.Close()
	}
	w.Close()
	recs := warctest.Check(t, name+".warc.gz")
	if len(recs) != 3 || recs[2].Get("WARC-Type") != "response" {
		t.Fatalf("%d records", len(recs))
	}
	if !strings.HasPrefix(string(recs[1].Block), "HEAD /h HTTP/1.1\r\n") || len(warctest.Payload(recs[2])) != 0 {
		t.Errorf("request %q, response %q", recs[1].Block, recs[2].Block)
	}
}

// TestWARCNewsMirror: Client.Mirror of newsgroups with Client.WARC records
// each stored article once (a crosspost under one group only), under the
// URL a Get of the same article records, with the server's address and
// without the URL's password (sent with AUTHINFO); a second run over the
// same directory records nothing.
func TestWARCNewsMirror(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER", User: "reader", Pass: "s3cret-news"}
	one := "From: a@x\nNewsgroups: n.a\nMessage-ID: <1@x>\n\n.leading dot, stuffed on the wire\nbody 1\n"
	cross := "From: b@x\nNewsgroups: n.a,n.b\nMessage-ID: <2@x>\n\nbody 2\n"
	two := "From: c@x\nNewsgroups: n.b\nMessage-ID: <3@x>\n\nbody 3\n"
	srv.Post(one, []string{"n.a"}, []int64{1})
	srv.Post(cross, []string{"n.a", "n.b"}, []int64{2, 1})
	srv.Post(two, []string{"n.b"}, []int64{2})
	srv.Start(t)
	dir := t.TempDir()
	raw := "nntp://reader:s3cret-news@" + srv.Addr + "/n.*"
	mirrorRun := func(name string) []warctest.Record {
		t.Helper()
		w, err := warc.Create(warc.Options{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		reg := NewRegistry()
		reg.Register("nntp", &nntp.Driver{})
		c := &Client{Registry: reg, WARC: w}
		c.Policy.AllowPorts = []int{portOf(t, "nntp://"+srv.Addr)}
		sum, err := c.Mirror(t.Context(), raw, dir, MirrorOptions{Jobs: 2})
		if err != nil || sum.Failed != 0 {
			t.Fatalf("Mirror: %v %+v", err, sum)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if len(w.Files()) == 0 {
			return nil
		}
		for _, f := range w.Files() {
			gz, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(plain, []byte("s3cret-news")) {
				t.Errorf("password in %s", f)
			}
		}
		return warctest.Check(t, w.Files()...)[1:]
	}
	recs := mirrorRun(filepath.Join(t.TempDir(), "first"))
	got := map[string]string{}
	for _, r := range recs {
		if r.Get("WARC-Type") != "resource" || r.Get("Content-Type") != "message/news" || r.Get("WARC-IP-Address") != "127.0.0.1" {
			t.Errorf("%s: %s %s from %q", r.Get("WARC-Target-URI"), r.Get("WARC-Type"), r.Get("Content-Type"), r.Get("WARC-IP-Address"))
		}
		got[r.Get("WARC-Target-URI")] = string(r.Block)
	}
	base := "nntp://" + srv.Addr + "/"
	if len(recs) != 3 || got[base+"n.a/1"] != one || got[base+"n.b/2"] != two ||
		(got[base+"n.a/2"] != cross) == (got[base+"n.b/1"] != cross) {
		t.Fatalf("%d records: %q", len(recs), got)
	}
	for u, b := range got {
		rel := strings.ReplaceAll(strings.TrimPrefix(u, base), ".", "/")
		if stored, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || string(stored) != b {
			t.Errorf("%s: stored %q (%v), recorded %q", u, stored, err, b)
		}
	}
	if recs := mirrorRun(filepath.Join(t.TempDir(), "second")); len(recs) != 0 {
		t.Errorf("second run: %d records, want none", len(recs))
	}

	// A Get of the same article records it under the same URL.
	w, name := newWARC(t)
	reg := NewRegistry()
	reg.Register("nntp", &nntp.Driver{})
	c := &Client{Registry: reg, WARC: w}
	c.Policy.AllowPorts = []int{portOf(t, "nntp://"+srv.Addr)}
	resp, err := c.Fetch(t.Context(), "nntp://reader:s3cret-news@"+srv.Addr+"/n.b/2", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	w.Close()
	if g := warctest.Check(t, name+".warc.gz"); len(g) != 2 || g[1].Get("WARC-Target-URI") != base+"n.b/2" || string(g[1].Block) != two {
		t.Errorf("get records %d: %v", len(g), g)
	}
}

// A capture the writer refuses fails the fetch (Op "warc"): a body the
// archive would lack is not handed out as if all were well.
func TestWARCRefusedFailsFetch(t *testing.T) {
	w, _ := newWARC(t)
	reg := NewRegistry()
	reg.Register("ftp", scripted{})
	c := &Client{Registry: reg, WARC: w}
	w.Close() // every capture is refused from now on
	resp, err := c.Fetch(t.Context(), "ftp://127.0.0.1/x", nil)
	var fe *Error
	if err == nil || !errors.As(err, &fe) || fe.Op != "warc" {
		t.Fatalf("Fetch = %v, %v; want a warc error", resp, err)
	}
}
