package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/fetch"
)

// canned is a fake server on 127.0.0.1 that answers every connection with
// the same bytes. When request is set it first reads the client's request
// (one line, or up to the blank line of an HTTP request). After the reply
// it either hangs up (hangup) or waits for the client to close, so that a
// malformed reply is judged on its content and not on a lost connection.
type canned struct {
	request string // "", "line" or "http"
	reply   []byte
	hangup  bool
}

// start serves c until the test ends and returns its address.
func (c canned) start(t *testing.T) string {
	t.Helper()
	ln := listen(t)
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.serve(conn, done)
			}()
		}
	}()
	return ln.Addr().String()
}

func (c canned) serve(conn net.Conn, done chan struct{}) {
	defer conn.Close()
	go func() { <-done; conn.Close() }()
	br := bufio.NewReader(conn)
	switch c.request {
	case "line":
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
	case "http":
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "\r\n" || line == "\n" {
				break
			}
		}
	}
	conn.Write(c.reply)
	if c.hangup {
		return
	}
	io.Copy(io.Discard, br) // until the client closes
}

// long returns n bytes of 'x'.
func long(n int) string { return strings.Repeat("x", n) }

// Issue 29, "What to build" 4: a server that breaks the protocol exits 9
// whatever the scheme and wherever the break happens; a connection lost in
// the middle of a reply is a network failure, 5.
func TestExitProtocolBrokenServers(t *testing.T) {
	for _, tt := range []struct {
		name   string
		scheme string
		path   string
		srv    canned
		want   int
	}{
		// FTP (RFC 959 section 4.2: a reply is a three-digit code whose
		// first digit is 1 to 5, then a space or a hyphen).
		{"ftp garbage greeting", "ftp", "/f", canned{reply: []byte("hello there\r\n")}, fetch.ExitProtocol},
		{"ftp greeting 999", "ftp", "/f", canned{reply: []byte("999 hi\r\n")}, fetch.ExitProtocol},
		{"ftp reply line over 8 KiB", "ftp", "/f", canned{reply: []byte("220 " + long(9000) + "\r\n")}, fetch.ExitProtocol},
		{"ftp multi-line greeting over the reply cap", "ftp", "/f",
			canned{reply: []byte(strings.Repeat("220-"+long(1000)+"\r\n", 300) + "220 ok\r\n")}, fetch.ExitProtocol},
		{"ftp greeting cut", "ftp", "/f", canned{reply: []byte("220-hel"), hangup: true}, fetch.ExitNetwork},
		{"ftp multi-line greeting cut", "ftp", "/f", canned{reply: []byte("220-hello\r\n"), hangup: true}, fetch.ExitNetwork},
		{"ftp no greeting", "ftp", "/f", canned{hangup: true}, fetch.ExitNetwork},
		// HTTP (RFC 9112 section 4: status-line = HTTP-version SP
		// status-code SP [ reason-phrase ]).
		{"http garbage status line", "http", "/", canned{request: "http", reply: []byte("garbage\r\n\r\n")}, fetch.ExitProtocol},
		{"http status code not a number", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 abc OK\r\n\r\n")}, fetch.ExitProtocol},
		{"http malformed header", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n")}, fetch.ExitProtocol},
		{"http 20 MB header", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 200 OK\r\nX-Big: " + long(20<<20) + "\r\n\r\n")}, fetch.ExitProtocol},
		{"http reply cut", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 200 OK\r\nContent-"), hangup: true}, fetch.ExitNetwork},
		{"http chunk size not hex", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")}, fetch.ExitProtocol},
		{"http body cut", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), hangup: true}, fetch.ExitNetwork},
		{"http reply cut after a header line", "http", "/", canned{request: "http", reply: []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), hangup: true}, fetch.ExitNetwork},
		{"http no reply", "http", "/", canned{request: "http", hangup: true}, fetch.ExitNetwork},
		// NNTP (RFC 3977 section 3.1: a response begins with a status line
		// of a three-digit code; 3.1.1: lines are at most 512 octets, and
		// this client allows far longer before it gives up).
		{"nntp garbage greeting", "nntp", "/misc.test/1", canned{reply: []byte("hello there\r\n")}, fetch.ExitProtocol},
		{"nntp greeting 999", "nntp", "/misc.test/1", canned{reply: []byte("999 hi\r\n")}, fetch.ExitProtocol},
		{"nntp overlong greeting", "nntp", "/misc.test/1", canned{reply: []byte("200 " + long(1<<20) + "\r\n")}, fetch.ExitProtocol},
		{"nntp greeting cut", "nntp", "/misc.test/1", canned{reply: []byte("200 hel"), hangup: true}, fetch.ExitNetwork},
		// Gopher (RFC 1436 section 3.8: a menu line is a type character,
		// four tab-separated fields and CR LF).
		{"gopher menu line over 64 KiB", "gopher", "/1/", canned{request: "line", reply: []byte("1" + long(70000) + "\t/x\t127.0.0.1\t70\r\n.\r\n"), hangup: true}, fetch.ExitProtocol},
		{"gopher empty menu", "gopher", "/1/", canned{request: "line", hangup: true}, fetch.ExitProtocol},
		{"gopher menu of NUL garbage", "gopher", "/1/", canned{request: "line", reply: bytes.Repeat([]byte{0, 0, 0, '\r', '\n'}, 20), hangup: true}, fetch.ExitProtocol},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := tt.srv.start(t)
			r := runArgs(t, &netlog{}, "", "get", "-s", tt.scheme+"://"+addr+tt.path)
			if r.code != tt.want {
				t.Errorf("exit %d, want %d; stderr %.300q", r.code, tt.want, r.err)
			}
		})
	}
}

// Issue 29, "What to build" 6: a gopher menu line that is no menu line (a
// port "abc", a display string holding a TAB, NUL bytes) is named on
// stderr and under "unparsed" with --json, and the exit status is 8 (the
// menu may lack entries), as for an FTP listing line of no known layout;
// the menu's items are still given. A menu that is its "." line alone is
// empty and whole.
func TestGetGopherMenuUnparsed(t *testing.T) {
	menu := "0good\t/good\t127.0.0.1\t7070\r\n0port\t/p\t127.0.0.1\tabc\r\n0Dis\tplay\t/d\t127.0.0.1\t7070\r\n\x00\x00\r\n.\r\n"
	addr := canned{request: "line", reply: []byte(menu), hangup: true}.start(t)
	r := runArgs(t, &netlog{}, "", "get", "gopher://"+addr+"/1/")
	if r.code != fetch.ExitPartial || !strings.Contains(r.out, "good") || strings.Count(r.err, "fits no known layout") != 3 ||
		!strings.Contains(r.err, `\x00\x00`) {
		t.Errorf("get: exit %d, stdout %q, stderr %q; want 8, the good item, three warnings", r.code, r.out, r.err)
	}
	r = runArgs(t, &netlog{}, "", "get", "--json", "gopher://"+addr+"/1/")
	var doc struct {
		Entries  []struct{ Name string }
		Unparsed []string
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || r.code != fetch.ExitPartial || len(doc.Entries) != 1 ||
		len(doc.Unparsed) != 3 || doc.Unparsed[1] != "0Dis\tplay\t/d\t127.0.0.1\t7070" {
		t.Errorf("get --json: exit %d, %v, %+v; want 8, one entry, three unparsed lines", r.code, err, doc)
	}
	addr = canned{request: "line", reply: []byte(".\r\n"), hangup: true}.start(t)
	if r := runArgs(t, &netlog{}, "", "get", "gopher://"+addr+"/1/"); r.code != fetch.ExitOK {
		t.Errorf("get of a menu that is its \".\" line: exit %d, stderr %q; want 0", r.code, r.err)
	}
}

// A mirror whose starting gopher menu cannot be read stops as a get of it
// does: exit 9, the server broke the protocol (a menu below the start is a
// failed directory of the report instead, exit 8: mirror's
// TestMirrorGopherUnreadableMenus).
func TestMirrorGopherStartUnreadable(t *testing.T) {
	for name, menu := range map[string][]byte{
		"NUL garbage": bytes.Repeat([]byte{0, 0, '\r', '\n'}, 5),
		"nothing":     nil,
		"bad ports":   []byte("1a\t/a\t127.0.0.1\tabc\r\n1b\tx\t/b\t127.0.0.1\t70\r\n"),
	} {
		addr := canned{request: "line", reply: menu, hangup: true}.start(t)
		r := runArgs(t, &netlog{}, "", "mirror", "gopher://"+addr+"/1/", filepath.Join(t.TempDir(), "m"))
		if r.code != fetch.ExitProtocol {
			t.Errorf("%s: mirror exit %d, want %d; stderr %q", name, r.code, fetch.ExitProtocol, r.err)
		}
	}
}

// Issue 29, "What to build" 6: with --raw an NNTP article is written as
// the server sent it (RFC 3977 section 3.1.1: dot-stuffed, CR LF line
// ends), without the status line and the terminating "." line, as the
// help says of --raw ("bytes as the server sent them").
func TestGetRawNNTP(t *testing.T) {
	const article = "Subject: s\r\nFrom: a@example.org\r\n\r\n..dot\r\nline\r\n"
	addr := canned{reply: []byte("201 hi\r\n201 reader\r\n211 1 1 1 g\r\n220 1 <a@example.org>\r\n" + article + ".\r\n205 bye\r\n")}.start(t)
	r := runArgs(t, &netlog{}, "", "get", "--raw", "nntp://"+addr+"/g/1")
	if r.code != fetch.ExitOK || r.out != article {
		t.Errorf("get --raw: exit %d, %q; want 0, %q (stderr %q)", r.code, r.out, article, r.err)
	}
	r = runArgs(t, &netlog{}, "", "get", "nntp://"+addr+"/g/1")
	if want := "Subject: s\nFrom: a@example.org\n\n.dot\nline\n"; r.code != fetch.ExitOK || r.out != want {
		t.Errorf("get: exit %d, %q; want 0, %q (stderr %q)", r.code, r.out, want, r.err)
	}
}
