package http

import (
	"bufio"
	"bytes"
	"io"
	"net"
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
	d := &Driver{UserAgent: "fetch-test/1"}
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
		if rec, _ := resp.Info["http_request"].(string); rec != string(sent) {
			t.Errorf("%s: recorded\n%q\nthe server received\n%q", tc.name, rec, sent)
		}
		if rs, _ := resp.Info["http_response"].(string); rs != "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\n" {
			t.Errorf("%s: response header %q", tc.name, rs)
		}
	}
}
