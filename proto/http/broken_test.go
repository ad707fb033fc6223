package http

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// serveRaw answers every request on a listener of 127.0.0.1 with reply;
// with end it then closes the connection, else it waits for the client to.
func serveRaw(t *testing.T, reply string, end bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
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
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				io.WriteString(c, reply)
				if !end {
					io.Copy(io.Discard, br)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/x"
}

// A response head that net/http cannot read is the server breaking the
// protocol (proto.ErrProtocol, exit 9); a head cut by the end of the
// connection, even in the middle of a line, is a lost connection
// (io.ErrUnexpectedEOF, exit 5). RFC 9112 section 4: status-line =
// HTTP-version SP status-code SP [ reason-phrase ]; section 5: field-line =
// field-name ":" OWS field-value OWS.
func TestBrokenResponseHead(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply string
		end   bool
		proto bool // want proto.ErrProtocol; else io.ErrUnexpectedEOF
	}{
		{"status line not one", "garbage\r\n\r\n", false, true},
		{"status line not one, then closed", "garbage\r\n\r\n", true, true},
		{"status code not a number", "HTTP/1.1 abc OK\r\n\r\n", false, true},
		{"status code of four digits", "HTTP/1.1 2000 OK\r\n\r\n", false, true},
		{"version malformed", "HTTP/x 200 OK\r\n\r\n", false, true},
		{"header line without a colon", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", false, true},
		{"head over the cap", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("x", 2<<20) + "\r\n\r\n", false, true},
		{"cut in the status line", "HTTP/1.1 20", true, false},
		{"cut in a header line", "HTTP/1.1 200 OK\r\nContent-", true, false},
		{"cut after a header line", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := serveRaw(t, tt.reply, tt.end)
			d := &Driver{}
			defer d.CloseIdleConnections()
			_, err := d.Fetch(t.Context(), uri.MustParse(raw), testRequest())
			if got := errors.Is(err, proto.ErrProtocol); got != tt.proto {
				t.Errorf("Fetch = %v: errors.Is(err, proto.ErrProtocol) = %v, want %v", err, got, tt.proto)
			}
			if !tt.proto && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("Fetch = %v, want io.ErrUnexpectedEOF (a lost connection)", err)
			}
		})
	}
}

// A chunked body whose framing cannot be read is the server breaking the
// protocol (RFC 9112 section 7.1: chunk-size is hex digits, then CRLF);
// a body cut by the end of the connection, in its framing or its data, is
// a lost connection.
func TestBrokenBody(t *testing.T) {
	const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	for _, tt := range []struct {
		name  string
		reply string
		end   bool
		proto bool // want proto.ErrProtocol; else io.ErrUnexpectedEOF
	}{
		{"chunk size not hex", chunked + "zz\r\nabc\r\n0\r\n\r\n", false, true},
		{"chunk size not hex, then closed", chunked + "zz\r\nabc\r\n0\r\n\r\n", true, true},
		{"chunk data without its CRLF", chunked + "3\r\nabcX\r\n0\r\n\r\n", false, true},
		{"cut in a chunk", chunked + "5\r\nab", true, false},
		{"cut in a chunk size", chunked + "3\r\nabc\r\n1", true, false},
		{"cut after a chunk", chunked + "3\r\nabc\r\n", true, false},
		{"cut before its length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := serveRaw(t, tt.reply, tt.end)
			d := &Driver{}
			defer d.CloseIdleConnections()
			resp, err := d.Fetch(t.Context(), uri.MustParse(raw), testRequest())
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := errors.Is(err, proto.ErrProtocol); got != tt.proto {
				t.Errorf("read = %v: errors.Is(err, proto.ErrProtocol) = %v, want %v", err, got, tt.proto)
			}
			if !tt.proto && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("read = %v, want io.ErrUnexpectedEOF (a lost connection)", err)
			}
		})
	}
}
