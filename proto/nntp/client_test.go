package nntp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// loopback starts a fake NNTP server on 127.0.0.1:0 that runs handle for
// each connection (at most four), each under a 10 s deadline. It returns
// the address.
func loopback(t *testing.T, handle func(c net.Conn, r *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for range 4 {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				handle(c, bufio.NewReader(c))
			}()
		}
	}()
	return ln.Addr().String()
}

// expect reads one command line and reports whether it is want.
func expect(r *bufio.Reader, want string) bool {
	line, err := r.ReadString('\n')
	return err == nil && line == want+"\r\n"
}

func fetchURL(t *testing.T, d *Driver, ctx context.Context, raw string, req *proto.Request) (*proto.Response, error) {
	t.Helper()
	if req == nil {
		req = &proto.Request{}
	}
	if req.ConnectTimeout == 0 {
		req.ConnectTimeout = 5 * time.Second
	}
	if req.IdleTimeout == 0 {
		req.IdleTimeout = 5 * time.Second
	}
	return d.Fetch(ctx, uri.MustParse(raw), req)
}

// TestLoopback201 is a whole session over TCP with a server that answers
// 201 (no posting), as INN's nnrpd does for read-only readers.
func TestLoopback201(t *testing.T) {
	quit := make(chan bool, 1)
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 test server ready (no posting)\r\n")
		ok := expect(r, "MODE READER")
		io.WriteString(c, "201 reader ready\r\n")
		ok = ok && expect(r, "GROUP local.test")
		io.WriteString(c, "211 2 1 2 local.test\r\n")
		ok = ok && expect(r, "ARTICLE 2")
		io.WriteString(c, "220 2 <b@x>\r\nSubject: t\r\n\r\n..leading dot\r\nplain\r\n.\r\n")
		ok = ok && expect(r, "QUIT")
		io.WriteString(c, "205 bye\r\n")
		quit <- ok
	})
	resp, err := fetchURL(t, &Driver{}, context.Background(), "nntp://"+addr+"/local.test/2", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Subject: t\n\n.leading dot\nplain\n"; string(body) != want {
		t.Errorf("body = %q, want %q", body, want)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	select {
	case ok := <-quit:
		if !ok {
			t.Errorf("server saw unexpected commands")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server never saw QUIT")
	}
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
		t.Errorf("Read after Close succeeded")
	}
}

// TestDropMidArticle: a connection lost before the "." line is a network
// failure (exit 5 in the CLI), not a refusal and not a clean end.
func TestDropMidArticle(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		expect(r, "ARTICLE <a@x>")
		io.WriteString(c, "220 0 <a@x>\r\nSubject: half\r\n\r\nfirst line\r\nsecond li")
	})
	resp, err := fetchURL(t, &Driver{}, context.Background(), "news://"+addr+"/a@x", nil)
	if err != nil {
		t.Fatalf("Fetch = %v (the header arrived whole)", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("ReadAll = %q, %v; want io.ErrUnexpectedEOF", body, err)
	}
	var re *ReplyError
	var pe *proto.ProtocolError
	if errors.As(err, &re) || errors.As(err, &pe) || errors.Is(err, proto.ErrNotFound) {
		t.Errorf("err = %v is classed as a refusal or protocol error", err)
	}
	if !strings.HasPrefix(string(body), "Subject: half\n\nfirst line\n") {
		t.Errorf("body = %q", body)
	}
	if _, err2 := resp.Body.Read(make([]byte, 8)); !errors.Is(err2, io.ErrUnexpectedEOF) {
		t.Errorf("second Read = %v, want the same error again", err2)
	}
}

func TestDropInHeader(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		expect(r, "GROUP g")
		io.WriteString(c, "211 1 1 1 g\r\n")
		expect(r, "ARTICLE 1")
		io.WriteString(c, "220 1 <a@x>\r\nSubject: cut")
	})
	_, err := fetchURL(t, &Driver{}, context.Background(), "nntp://"+addr+"/g/1", nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Fetch = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestDropBeforeReply(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
	})
	_, err := fetchURL(t, &Driver{}, context.Background(), "nntp://"+addr+"/g/1", nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Fetch = %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestSilentServer: a server that never greets is bounded by IdleTimeout.
func TestSilentServer(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		r.ReadString('\n') // wait for the client to give up
	})
	start := time.Now()
	_, err := fetchURL(t, &Driver{}, context.Background(), "nntp://"+addr+"/g/1", &proto.Request{IdleTimeout: 200 * time.Millisecond})
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Fetch = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestCancel: cancelling the context ends a Fetch waiting on the server,
// and a body read in progress.
func TestCancel(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		r.ReadString('\n')
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := fetchURL(t, &Driver{}, ctx, "nntp://"+addr+"/g/1", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Fetch = %v, want context.Canceled", err)
	}

	addr = loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		expect(r, "ARTICLE <a@x>")
		io.WriteString(c, "220 0 <a@x>\r\n\r\nbody starts\r\n")
		r.ReadString('\n')
	})
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	resp, err := fetchURL(t, &Driver{}, ctx, "news://"+addr+"/a@x", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadAll = %v, want context.Canceled", err)
	}
}

// endless writes prefix, then chunk forever (until the client goes away or
// the connection's deadline passes).
func endless(c net.Conn, prefix, chunk string) {
	io.WriteString(c, prefix)
	b := []byte(strings.Repeat(chunk, max(1, 32<<10/len(chunk))))
	for {
		if _, err := c.Write(b); err != nil {
			return
		}
	}
}

// TestHostile: endless or over-long replies end in a *proto.ProtocolError
// within the Driver's limits, never in unbounded memory.
func TestHostile(t *testing.T) {
	greet := func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
	}
	tests := []struct {
		name   string
		url    string
		handle func(c net.Conn, r *bufio.Reader)
	}{
		{"endless greeting line", "nntp://%s/g/1", func(c net.Conn, r *bufio.Reader) {
			endless(c, "201 ", "x")
		}},
		{"malformed greeting", "nntp://%s/g/1", func(c net.Conn, r *bufio.Reader) {
			io.WriteString(c, "SSH-2.0-OpenSSH\r\n")
		}},
		{"endless LIST ACTIVE", "news://%s/*", func(c net.Conn, r *bufio.Reader) {
			greet(c, r)
			expect(r, "LIST ACTIVE")
			endless(c, "215 list\r\n", "alt.endless 1 1 y\r\n")
		}},
		{"endless LIST ACTIVE line", "news://%s/*", func(c net.Conn, r *bufio.Reader) {
			greet(c, r)
			expect(r, "LIST ACTIVE")
			endless(c, "215 list\r\n", "alt.")
		}},
		{"overview beyond its range", "nntp://%s/g", func(c net.Conn, r *bufio.Reader) {
			greet(c, r)
			expect(r, "GROUP g")
			io.WriteString(c, "211 2 1 2 g\r\n")
			expect(r, "CAPABILITIES")
			io.WriteString(c, "101 caps\r\nOVER\r\n.\r\n")
			expect(r, "OVER 1-2")
			endless(c, "224 ov\r\n", "1\ts\tf\td\t<m@x>\t\t1\t1\r\n")
		}},
		{"endless CAPABILITIES", "nntp://%s/g", func(c net.Conn, r *bufio.Reader) {
			greet(c, r)
			expect(r, "GROUP g")
			io.WriteString(c, "211 2 1 2 g\r\n")
			expect(r, "CAPABILITIES")
			endless(c, "101 caps\r\n", "X\r\n")
		}},
		{"endless HEAD in the fallback", "nntp://%s/g", func(c net.Conn, r *bufio.Reader) {
			greet(c, r)
			expect(r, "GROUP g")
			io.WriteString(c, "211 2 1 2 g\r\n")
			expect(r, "CAPABILITIES")
			io.WriteString(c, "500 what\r\n")
			expect(r, "OVER 1-2")
			io.WriteString(c, "500 what\r\n")
			expect(r, "XOVER 1-2")
			io.WriteString(c, "500 what\r\n")
			expect(r, "HEAD 1")
			endless(c, "221 1 <a@x>\r\n", "X-Junk: 1\r\n")
		}},
	}
	d := &Driver{MaxLineLength: 4096, MaxGroups: 1000, MaxListBytes: 1 << 20, MaxHeaderBytes: 64 << 10}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := loopback(t, tt.handle)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := fetchURL(t, d, context.Background(), fmt.Sprintf(tt.url, addr), nil)
			runtime.ReadMemStats(&after)
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("Fetch = %v, want a *proto.ProtocolError", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("allocated %d bytes", grew)
			}
		})
	}
}

// TestEndlessArticleStreams: an article is streamed, not buffered, even
// one endless line: 16 MiB pass through with little allocation.
func TestEndlessArticleStreams(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		expect(r, "BODY <a@x>")
		endless(c, "222 0 <a@x>\r\n", "y")
	})
	resp, err := fetchURL(t, &Driver{}, context.Background(), "news://"+addr+"/a@x", &proto.Request{Options: proto.Options{BodyOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := io.CopyBuffer(io.Discard, io.LimitReader(resp.Body, 16<<20), make([]byte, 32<<10))
	runtime.ReadMemStats(&after)
	if err != nil || n != 16<<20 {
		t.Fatalf("copied %d, %v", n, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("allocated %d bytes to stream 16 MiB", grew)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// TestBigHeaderStillStreams: a header block beyond MaxHeaderBytes is not
// parsed into Info, but the article comes through whole.
func TestBigHeaderStillStreams(t *testing.T) {
	big := "X-Big: " + strings.Repeat("h", 3000) + "\r\n"
	art := "Subject: big\r\n" + strings.Repeat(big, 10) + "\r\nbody\r\n"
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		expect(r, "ARTICLE <a@x>")
		io.WriteString(c, "220 0 <a@x>\r\n"+art+".\r\n")
		expect(r, "QUIT")
	})
	resp, err := fetchURL(t, &Driver{MaxHeaderBytes: 8 << 10}, context.Background(), "news://"+addr+"/a@x", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(art, "\r\n", "\n"); string(body) != want {
		t.Errorf("body differs: %d bytes, want %d", len(body), len(want))
	}
	if _, ok := resp.Info["subject"]; ok {
		t.Errorf("Info has a subject from a header past the limit")
	}
}

// TestConcurrentFetches: one Driver serves several goroutines.
func TestConcurrentFetches(t *testing.T) {
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		line, _ := r.ReadString('\n')
		id := strings.TrimSuffix(strings.TrimPrefix(line, "ARTICLE "), "\r\n")
		io.WriteString(c, "220 0 "+id+"\r\n\r\n"+id+"\r\n.\r\n")
		expect(r, "QUIT")
	})
	d := &Driver{}
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			id := fmt.Sprintf("%d@x", i)
			resp, err := fetchURL(t, d, context.Background(), "news://"+addr+"/"+id, nil)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err == nil && !bytes.Equal(b, []byte("\n<"+id+">\n")) {
				err = fmt.Errorf("body %q for %s", b, id)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestSlowArticleIsPrompt: the bytes received so far are handed on at
// once; Fetch does not wait for a full buffer of article text.
func TestSlowArticleIsPrompt(t *testing.T) {
	release := make(chan struct{})
	addr := loopback(t, func(c net.Conn, r *bufio.Reader) {
		io.WriteString(c, "201 ready\r\n")
		expect(r, "MODE READER")
		io.WriteString(c, "201 ok\r\n")
		expect(r, "ARTICLE <a@x>")
		io.WriteString(c, "220 0 <a@x>\r\nSubject: slow\r\n\r\nfirst\r\n")
		<-release
		io.WriteString(c, "..second\r\n.\r\n")
		expect(r, "QUIT")
	})
	defer close(release)
	start := time.Now()
	resp, err := fetchURL(t, &Driver{}, context.Background(), "news://"+addr+"/a@x", &proto.Request{IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Fetch took %v waiting for more article text", d)
	}
	got := make([]byte, 0, 64)
	buf := make([]byte, 64)
	for !bytes.Contains(got, []byte("first\n")) {
		n, err := resp.Body.Read(buf)
		if err != nil {
			t.Fatalf("Read = %v after %q", err, got)
		}
		got = append(got, buf[:n]...)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("first body line took %v", time.Since(start))
	}
	release <- struct{}{}
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(got)+string(rest) != "Subject: slow\n\nfirst\n.second\n" {
		t.Fatalf("body = %q + %q, %v", got, rest, err)
	}
}
