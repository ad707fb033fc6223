package nntp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// fakeConn plays a scripted server: Read returns the script, Write records
// what the client sent. It never touches the network.
type fakeConn struct {
	r      io.Reader
	sent   bytes.Buffer
	closed bool
}

func (c *fakeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *fakeConn) Write(p []byte) (int, error) { return c.sent.Write(p) }
func (c *fakeConn) Close() error                { c.closed = true; return nil }
func (c *fakeConn) LocalAddr() net.Addr         { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (c *fakeConn) RemoteAddr() net.Addr        { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 119} }
func (c *fakeConn) SetDeadline(time.Time) error { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error {
	return nil
}
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

// script joins server lines with CR LF.
func script(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n" }

// scripted is one Fetch against a fake server.
type scripted struct {
	conn  *fakeConn
	dials []string
	trace bytes.Buffer
}

// withServer is the Options of a news: URL served by addr.
func withServer(addr string) proto.Options {
	return proto.Options{NNTP: proto.NNTPOptions{Server: addr}}
}

func (s *scripted) request(opts proto.Options) *proto.Request {
	return &proto.Request{
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			s.dials = append(s.dials, addr)
			return s.conn, nil
		},
		Trace:   &s.trace,
		Options: opts,
	}
}

func newScripted(server string) *scripted {
	return &scripted{conn: &fakeConn{r: strings.NewReader(server)}}
}

// run fetches rawURL, reads the body to its end and closes it.
func (s *scripted) run(t *testing.T, rawURL string, opts proto.Options) (*proto.Response, string, error) {
	t.Helper()
	u, err := uri.Parse(rawURL)
	if err != nil {
		t.Fatalf("uri.Parse(%q) = %v", rawURL, err)
	}
	resp, err := (&Driver{}).Fetch(context.Background(), u, s.request(opts))
	if err != nil {
		return nil, "", err
	}
	body, rerr := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); cerr != nil {
		t.Errorf("Body.Close() = %v", cerr)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("second Body.Close() = %v", err)
	}
	return resp, string(body), rerr
}

const sampleArticle = "Subject: Second\r\nFrom: b@example.org\r\nMessage-ID: <b@example.org>\r\nDate: Tue, 02 Jan 2024 10:00:00 +0000\r\n\r\nline one\r\n..a line that starts with a dot\r\n.\r\n"

var transcriptTests = []struct {
	name   string
	url    string
	opts   proto.Options
	server string
	sent   string // exact bytes the client wrote
	dial   string
	body   string
	kind   proto.Kind
	names  []string // entry names of a directory response
}{
	{
		// RFC 1738 section 3.7; RFC 3977 sections 5.1.1 (201), 5.3, 6.1.1, 6.2.1.
		name:   "nntp article by number, 201 greeting",
		url:    "nntp://127.0.0.1/local.test/2",
		server: script("201 no posting", "201 still no posting", "211 3 1 3 local.test", "220 2 <b@example.org>") + sampleArticle,
		sent:   "MODE READER\r\nGROUP local.test\r\nARTICLE 2\r\nQUIT\r\n",
		dial:   "127.0.0.1:119",
		body:   "Subject: Second\nFrom: b@example.org\nMessage-ID: <b@example.org>\nDate: Tue, 02 Jan 2024 10:00:00 +0000\n\nline one\n.a line that starts with a dot\n",
		kind:   proto.KindData,
	},
	{
		// RFC 3977 section 5.1.1: 200 is also a reading service; MODE
		// READER may be unknown (5xx) and is tolerated.
		name:   "nntp article, 200 greeting, MODE READER refused",
		url:    "nntp://127.0.0.1:1119/local.test/1",
		server: script("200 posting ok", "500 what?", "211 3 1 3 local.test", "220 1 <a@x>", "body", "."),
		sent:   "MODE READER\r\nGROUP local.test\r\nARTICLE 1\r\nQUIT\r\n",
		dial:   "127.0.0.1:1119",
		body:   "body\n",
		kind:   proto.KindData,
	},
	{
		// RFC 3977 section 6.2.2: HEAD for --headers-only.
		name:   "headers-only",
		url:    "nntp://127.0.0.1/local.test/2",
		opts:   proto.Options{HeadersOnly: true},
		server: script("201 hi", "201 ok", "211 3 1 3 local.test", "221 2 <b@x>", "Subject: s", "From: f", "."),
		sent:   "MODE READER\r\nGROUP local.test\r\nHEAD 2\r\nQUIT\r\n",
		dial:   "127.0.0.1:119",
		body:   "Subject: s\nFrom: f\n",
		kind:   proto.KindData,
	},
	{
		// RFC 3977 section 6.2.3: BODY for --body-only.
		name:   "body-only",
		url:    "news:b@example.org",
		opts:   proto.Options{BodyOnly: true, NNTP: proto.NNTPOptions{Server: "127.0.0.1:1190"}},
		server: script("201 hi", "201 ok", "222 0 <b@example.org>", "..dot", "text", "."),
		sent:   "MODE READER\r\nBODY <b@example.org>\r\nQUIT\r\n",
		dial:   "127.0.0.1:1190",
		body:   ".dot\ntext\n",
		kind:   proto.KindData,
	},
	{
		// RFC 1738 section 3.6: news:<message-id>, sent with "<" and ">".
		name:   "news message-id",
		url:    "news:b@example.org",
		opts:   withServer("127.0.0.1"),
		server: script("201 hi", "201 ok", "220 0 <b@example.org>") + sampleArticle,
		sent:   "MODE READER\r\nARTICLE <b@example.org>\r\nQUIT\r\n",
		dial:   "127.0.0.1:119",
		body:   "Subject: Second\nFrom: b@example.org\nMessage-ID: <b@example.org>\nDate: Tue, 02 Jan 2024 10:00:00 +0000\n\nline one\n.a line that starts with a dot\n",
		kind:   proto.KindData,
	},
	{
		// RFC 5538 section 2.2: news://server/message-id names the server.
		name:   "news://server/ form",
		url:    "news://127.0.0.1:1119/b@example.org",
		server: script("201 hi", "201 ok", "220 0 <b@example.org>", "x", "."),
		sent:   "MODE READER\r\nARTICLE <b@example.org>\r\nQUIT\r\n",
		dial:   "127.0.0.1:1119",
		body:   "x\n",
		kind:   proto.KindData,
	},
	{
		// RFC 3977 sections 5.2 and 8.3: OVER listed in CAPABILITIES.
		name: "nntp group summary with OVER",
		url:  "nntp://127.0.0.1/local.test",
		server: script("201 hi", "201 ok", "211 2 1 2 local.test",
			"101 caps", "VERSION 2", "READER", "OVER", ".",
			"224 overview", "1\tFirst\ta@x\tMon, 01 Jan 2024 10:00:00 +0000\t<a@x>\t\t120\t3",
			"2\tRe: First\tb@x\tTue, 02 Jan 2024 10:00:00 +0000\t<b@x>\t<a@x>\t150\t4", "."),
		sent:  "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nOVER 1-2\r\nQUIT\r\n",
		dial:  "127.0.0.1:119",
		body:  "1\tFirst\ta@x\tMon, 01 Jan 2024 10:00:00 +0000\t<a@x>\t\t120\t3\n2\tRe: First\tb@x\tTue, 02 Jan 2024 10:00:00 +0000\t<b@x>\t<a@x>\t150\t4\n",
		kind:  proto.KindDirectory,
		names: []string{"First", "Re: First"},
	},
	{
		// RFC 2980 section 2.8: XOVER when CAPABILITIES has no OVER.
		name: "group summary with XOVER (no OVER capability)",
		url:  "nntp://127.0.0.1/local.test",
		server: script("201 hi", "201 ok", "211 1 5 5 local.test",
			"101 caps", "VERSION 2", "READER", ".",
			"224 overview", "5\tOnly\ta@x\t\t<e@x>\t\t\t", "."),
		sent:  "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nXOVER 5-5\r\nQUIT\r\n",
		dial:  "127.0.0.1:119",
		body:  "5\tOnly\ta@x\t\t<e@x>\t\t\t\n",
		kind:  proto.KindDirectory,
		names: []string{"Only"},
	},
	{
		// An RFC 977 server: no CAPABILITIES, OVER unknown, XOVER works.
		name: "group summary, OVER 500 then XOVER",
		url:  "nntp://127.0.0.1/local.test",
		server: script("200 hi", "500 unknown", "211 1 7 7 local.test",
			"500 unknown", "500 unknown",
			"224 overview", "7\tOld\ta@x\t\t<g@x>\t\t10\t1", "."),
		sent:  "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nOVER 7-7\r\nXOVER 7-7\r\nQUIT\r\n",
		dial:  "127.0.0.1:119",
		body:  "7\tOld\ta@x\t\t<g@x>\t\t10\t1\n",
		kind:  proto.KindDirectory,
		names: []string{"Old"},
	},
	{
		// No overview at all: HEAD per article (RFC 3977 section 6.2.2),
		// a missing number (423) skipped.
		name: "group summary without overview, HEAD fallback",
		url:  "nntp://127.0.0.1/local.test",
		server: script("201 hi", "201 ok", "211 2 1 3 local.test",
			"500 unknown", "500 unknown", "503 no overview",
			"221 1 <a@x>", "Subject: One", "From: a@x", "Message-ID: <a@x>", "Lines: 2", ".",
			"423 no such article",
			"221 3 <c@x>", "Subject: Three", "From: c@x", "Message-ID: <c@x>", "."),
		sent:  "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nOVER 1-3\r\nXOVER 1-3\r\nHEAD 1\r\nHEAD 2\r\nHEAD 3\r\nQUIT\r\n",
		dial:  "127.0.0.1:119",
		body:  "1\tOne\ta@x\t\t<a@x>\t\t\t2\n3\tThree\tc@x\t\t<c@x>\t\t\t\n",
		kind:  proto.KindDirectory,
		names: []string{"One", "Three"},
	},
	{
		// RFC 3977 section 8.3.2: OVER answers a range without articles
		// 423, as INN does ("423 No articles in 3-5"): an empty summary,
		// not a refusal.
		name: "group summary, OVER range without articles (423)",
		url:  "nntp://127.0.0.1/local.test",
		server: script("201 hi", "201 ok", "211 3 3 5 local.test",
			"101 caps", "VERSION 2", "READER", "OVER", ".",
			"423 No articles in 3-5"),
		sent: "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nOVER 3-5\r\nQUIT\r\n",
		dial: "127.0.0.1:119",
		body: "",
		kind: proto.KindDirectory,
	},
	{
		// RFC 2980 section 2.8: XOVER's "420 No article(s) selected".
		name: "group summary, XOVER range without articles (420)",
		url:  "nntp://127.0.0.1/local.test",
		server: script("201 hi", "201 ok", "211 3 3 5 local.test",
			"101 caps", "VERSION 2", "READER", ".",
			"420 No article(s) selected"),
		sent: "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nXOVER 3-5\r\nQUIT\r\n",
		dial: "127.0.0.1:119",
		body: "",
		kind: proto.KindDirectory,
	},
	{
		// RFC 3977 section 6.1.1: an empty group (count 0) sends no OVER.
		name:   "empty group",
		url:    "news:local.empty",
		opts:   withServer("127.0.0.1"),
		server: script("201 hi", "201 ok", "211 0 1 0 local.empty"),
		sent:   "MODE READER\r\nGROUP local.empty\r\nQUIT\r\n",
		dial:   "127.0.0.1:119",
		body:   "",
		kind:   proto.KindDirectory,
	},
	{
		// RFC 1738 section 3.6: news:<newsgroup-name> is the group.
		name: "news group summary",
		url:  "news:local.test",
		opts: withServer("127.0.0.1"),
		server: script("201 hi", "201 ok", "211 1 1 1 local.test",
			"101 caps", "OVER", ".",
			"224 overview", "1\tHello\ta@x\t\t<a@x>\t\t1\t1", "."),
		sent:  "MODE READER\r\nGROUP local.test\r\nCAPABILITIES\r\nOVER 1-1\r\nQUIT\r\n",
		dial:  "127.0.0.1:119",
		body:  "1\tHello\ta@x\t\t<a@x>\t\t1\t1\n",
		kind:  proto.KindDirectory,
		names: []string{"Hello"},
	},
	{
		// RFC 1738 section 3.6: news:* is every group; RFC 3977 sections
		// 7.6.3 and 7.6.6.
		name: "news:* with descriptions",
		url:  "news:*",
		opts: withServer("127.0.0.1"),
		server: script("201 hi", "201 ok",
			"215 active", "local.test 3 1 y", "local.empty 0 1 n", "..odd 1 1 y", ".",
			"215 descriptions", "local.test\tTests.", "other.group Not listed.", "."),
		sent: "MODE READER\r\nLIST ACTIVE\r\nLIST NEWSGROUPS\r\nQUIT\r\n",
		dial: "127.0.0.1:119",
		body: "local.test 3 1 y\nlocal.empty 0 1 n\n.odd 1 1 y\n",
		kind: proto.KindDirectory,
		// RFC 3977 section 3.1.1: every line of a multi-line block that
		// starts with "." is stuffed, list lines too.
		names: []string{".odd", "local.empty", "local.test"},
	},
	{
		// An RFC 977 server: LIST ACTIVE unknown, bare LIST; no LIST
		// NEWSGROUPS.
		name: "news:* on an old server",
		url:  "news:*",
		opts: withServer("127.0.0.1"),
		server: script("200 hi", "500 unknown",
			"501 syntax", "215 list", "alt.old 5 1 y", ".", "500 unknown"),
		sent:  "MODE READER\r\nLIST ACTIVE\r\nLIST\r\nLIST NEWSGROUPS\r\nQUIT\r\n",
		dial:  "127.0.0.1:119",
		body:  "alt.old 5 1 y\n",
		kind:  proto.KindDirectory,
		names: []string{"alt.old"},
	},
	{
		// RFC 4643 section 2.3: AUTHINFO USER/PASS from the URL, after
		// MODE READER (section 2.2: never MODE READER after AUTHINFO).
		name:   "AUTHINFO from the URL",
		url:    "nntp://reader:s3cret@127.0.0.1/local.test/1",
		server: script("201 hi", "201 ok", "381 password please", "281 welcome", "211 1 1 1 local.test", "220 1 <a@x>", "x", "."),
		sent:   "MODE READER\r\nAUTHINFO USER reader\r\nAUTHINFO PASS s3cret\r\nGROUP local.test\r\nARTICLE 1\r\nQUIT\r\n",
		dial:   "127.0.0.1:119",
		body:   "x\n",
		kind:   proto.KindData,
	},
	{
		// RFC 4643 section 2.3.3: 281 to AUTHINFO USER means no password
		// is needed.
		name:   "AUTHINFO USER accepted alone",
		url:    "nntp://reader@127.0.0.1/local.test/1",
		server: script("201 hi", "201 ok", "281 ok", "211 1 1 1 local.test", "220 1 <a@x>", "x", "."),
		sent:   "MODE READER\r\nAUTHINFO USER reader\r\nGROUP local.test\r\nARTICLE 1\r\nQUIT\r\n",
		dial:   "127.0.0.1:119",
		body:   "x\n",
		kind:   proto.KindData,
	},
}

func TestTranscripts(t *testing.T) {
	for _, tt := range transcriptTests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(tt.server)
			resp, body, err := s.run(t, tt.url, tt.opts)
			if err != nil {
				t.Fatalf("Fetch(%q) = %v", tt.url, err)
			}
			if got := s.conn.sent.String(); got != tt.sent {
				t.Errorf("client sent\n%q\nwant\n%q", got, tt.sent)
			}
			if len(s.dials) != 1 || s.dials[0] != tt.dial {
				t.Errorf("dialled %q, want [%q]", s.dials, tt.dial)
			}
			if body != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
			if resp.Kind != tt.kind {
				t.Errorf("Kind = %v, want %v", resp.Kind, tt.kind)
			}
			var names []string
			for _, e := range resp.Entries {
				names = append(names, e.Name)
			}
			if strings.Join(names, "|") != strings.Join(tt.names, "|") {
				t.Errorf("entries = %q, want %q", names, tt.names)
			}
			if !s.conn.closed {
				t.Errorf("connection not closed")
			}
			if strings.Contains(s.trace.String(), "s3cret") {
				t.Errorf("trace shows the password:\n%s", s.trace.String())
			}
		})
	}
}

func TestTraceRedactsPassword(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "381 more", "281 ok", "211 1 1 1 g", "220 1 <a@x>", "x", "."))
	if _, _, err := s.run(t, "nntp://u:hunter2@127.0.0.1/g/1", proto.Options{}); err != nil {
		t.Fatal(err)
	}
	want := "< 201 hi\n> MODE READER\n< 201 ok\n> AUTHINFO USER u\n< 381 more\n> AUTHINFO PASS ****\n< 281 ok\n> GROUP g\n< 211 1 1 1 g\n> ARTICLE 1\n< 220 1 <a@x>\n> QUIT\n"
	if got := s.trace.String(); got != want {
		t.Errorf("trace =\n%s\nwant\n%s", got, want)
	}
}

// TestTraceHidesEchoedPassword: a server that echoes the password in a
// reply does not put it in the trace either.
func TestTraceHidesEchoedPassword(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "381 more", "281 welcome u/hunter2", "211 1 1 1 g", "220 1 <a@x>", "x", "."))
	if _, _, err := s.run(t, "nntp://u:hunter2@127.0.0.1/g/1", proto.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.trace.String(); strings.Contains(got, "hunter2") || !strings.Contains(got, "< 281 welcome u/****\n") {
		t.Errorf("trace =\n%s", got)
	}
}

// TestTraceEscapes: what the server sends reaches the trace escaped, so
// that it cannot drive the terminal the trace is shown on.
func TestTraceEscapes(t *testing.T) {
	s := newScripted(script("201 hi\x1b]0;owned\x07", "201 ok", "211 1 1 1 g", "220 1 <a@x>", "x", "."))
	if _, _, err := s.run(t, "nntp://127.0.0.1/g/1", proto.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := s.trace.String(); strings.ContainsRune(got, 0x1b) || !strings.Contains(got, `< 201 hi\x1b]0;owned\a`+"\n") {
		t.Errorf("trace =\n%q", got)
	}
}

func TestNetrcCredentials(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "netrc")
	data := "default login anon password leak\nmachine 127.0.0.1 login reader password \"pa ss\"\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url, sent string
	}{
		{"netrc gives user and password", "nntp://127.0.0.1/g/1",
			"MODE READER\r\nAUTHINFO USER reader\r\nAUTHINFO PASS pa ss\r\nGROUP g\r\nARTICLE 1\r\nQUIT\r\n"},
		{"URL user, netrc password", "nntp://reader@127.0.0.1/g/1",
			"MODE READER\r\nAUTHINFO USER reader\r\nAUTHINFO PASS pa ss\r\nGROUP g\r\nARTICLE 1\r\nQUIT\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(script("201 hi", "201 ok", "381 more", "281 ok", "211 1 1 1 g", "220 1 <a@x>", "x", "."))
			if _, _, err := s.run(t, tt.url, proto.Options{Netrc: path}); err != nil {
				t.Fatal(err)
			}
			if got := s.conn.sent.String(); got != tt.sent {
				t.Errorf("sent %q, want %q", got, tt.sent)
			}
		})
	}
	// A host without an entry gets no AUTHINFO: the default entry is not
	// used for news servers.
	s := newScripted(script("201 hi", "201 ok", "220 0 <a@b>", "x", "."))
	if _, _, err := s.run(t, "news:a@b", proto.Options{Netrc: path, NNTP: proto.NNTPOptions{Server: "localhost"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.conn.sent.String(), "AUTHINFO") {
		t.Errorf("sent AUTHINFO from the default entry: %q", s.conn.sent.String())
	}
	// A missing netrc file is no credentials, not an error.
	s = newScripted(script("201 hi", "201 ok", "211 1 1 1 g", "220 1 <a@x>", "x", "."))
	if _, _, err := s.run(t, "nntp://127.0.0.1/g/1", proto.Options{Netrc: filepath.Join(dir, "absent")}); err != nil {
		t.Fatal(err)
	}
}

// TestRefusedBeforeConnecting: arguments that decode to CR, LF, NUL, space
// or TAB never reach a connection (DESIGN.md, Safety; RFC 1738 section 6).
func TestRefusedBeforeConnecting(t *testing.T) {
	tests := []struct {
		url  string
		opts proto.Options
		want error
	}{
		{"nntp://127.0.0.1/local%0D%0AQUIT/1", proto.Options{}, proto.ErrUnsafeArgument},
		{"nntp://127.0.0.1/local%0Atest", proto.Options{}, proto.ErrUnsafeArgument},
		{"nntp://127.0.0.1/local%00test/2", proto.Options{}, proto.ErrUnsafeArgument},
		{"nntp://127.0.0.1/local%20test/2", proto.Options{}, proto.ErrUnsafeArgument},
		{"nntp://127.0.0.1/local%09test", proto.Options{}, proto.ErrUnsafeArgument},
		{"news:a%0D%0AQUIT@b", withServer("127.0.0.1"), proto.ErrUnsafeArgument},
		{"news:a%20b@c", withServer("127.0.0.1"), proto.ErrUnsafeArgument},
		{"news:a%09b@c", withServer("127.0.0.1"), proto.ErrUnsafeArgument},
		{"news:alt%00group", withServer("127.0.0.1"), proto.ErrUnsafeArgument},
		{"news:alt%20group", withServer("127.0.0.1"), proto.ErrUnsafeArgument},
		{"nntp://us%0Der:pw@127.0.0.1/g/1", proto.Options{}, proto.ErrUnsafeArgument},
		{"nntp://user:p%0Aw@127.0.0.1/g/1", proto.Options{}, proto.ErrUnsafeArgument},
		{"nntp://us%20er:pw@127.0.0.1/g/1", proto.Options{}, proto.ErrUnsafeArgument},
		// RFC 1738 section 3.6: a news: URL names no server.
		{"news:local.test", proto.Options{}, proto.ErrNeedInput},
		{"news:*", withServer("127.0.0.1:notaport"), proto.ErrNeedInput},
		{"news:*", withServer("a b"), proto.ErrNeedInput},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, err := uri.Parse(tt.url)
			if err != nil {
				t.Fatalf("uri.Parse(%q) = %v", tt.url, err)
			}
			dialled := false
			req := &proto.Request{
				Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
					dialled = true
					return nil, errors.New("must not dial")
				},
				Options: tt.opts,
			}
			_, err = (&Driver{}).Fetch(context.Background(), u, req)
			if !errors.Is(err, tt.want) {
				t.Errorf("Fetch(%q) = %v, want %v", tt.url, err, tt.want)
			}
			if dialled {
				t.Errorf("Fetch(%q) dialled", tt.url)
			}
			if err != nil && strings.Contains(err.Error(), "pw") && strings.Contains(tt.url, ":pw@") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

func TestMalformedURL(t *testing.T) {
	for _, raw := range []string{"nntp:///g/1", "nntp://127.0.0.1/", "nntp://127.0.0.1/g/x"} {
		u, err := uri.Parse(raw)
		if err != nil {
			continue
		}
		_, err = (&Driver{}).Fetch(context.Background(), u, &proto.Request{Dial: func(context.Context, string, string) (net.Conn, error) {
			t.Errorf("Fetch(%q) dialled", raw)
			return nil, errors.New("no")
		}})
		var ue *uri.Error
		if !errors.As(err, &ue) {
			t.Errorf("Fetch(%q) = %v, want a *uri.Error", raw, err)
		}
	}
}

// TestRefusals: server refusals keep the reply and wrap the sentinel the
// CLI maps to an exit code (RFC 3977 sections 3.2.1, 6.1.1, 6.2.1).
func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		server string
		want   error
		code   int
	}{
		{"no such group", "nntp://127.0.0.1/local.nope/1", script("201 hi", "201 ok", "411 no such group"), proto.ErrNotFound, 411},
		{"no such group (summary)", "nntp://127.0.0.1/local.nope", script("201 hi", "201 ok", "411 no such group"), proto.ErrNotFound, 411},
		{"no such number", "nntp://127.0.0.1/local.test/99", script("201 hi", "201 ok", "211 1 1 1 local.test", "423 no such article"), proto.ErrNotFound, 423},
		{"no such message-id", "news://127.0.0.1/nope@x", script("201 hi", "201 ok", "430 no such article"), proto.ErrNotFound, 430},
		{"authentication required", "nntp://127.0.0.1/local.test/1", script("201 hi", "480 auth first", "480 auth first"), proto.ErrLogin, 480},
		{"authentication rejected", "nntp://u:p@127.0.0.1/g/1", script("201 hi", "201 ok", "381 pass", "481 no"), proto.ErrLogin, 481},
		{"access denied greeting", "nntp://127.0.0.1/g/1", script("502 go away"), proto.ErrPermission, 502},
		{"command unavailable", "news://127.0.0.1/*", script("201 hi", "201 ok", "502 not for you"), proto.ErrPermission, 502},
		{"over refused", "nntp://127.0.0.1/g", script("201 hi", "201 ok", "211 1 1 1 g", "101 c", "OVER", ".", "502 no"), proto.ErrPermission, 502},
		// A refusal for the number of connections, at the greeting (a
		// server's limit per host) or at login (a provider's per
		// account), is the server busy (proto.ErrBusy), worth another
		// attempt later; not a refusal of this user.
		{"too many at the greeting (400)", "nntp://127.0.0.1/g/1", script("400 too many connections from your host"), proto.ErrBusy, 400},
		{"too many at the greeting (502)", "nntp://127.0.0.1/g/1", script("502 Too many connections"), proto.ErrBusy, 502},
		{"too many at login", "nntp://u:p@127.0.0.1/g/1", script("201 hi", "201 ok", "381 pass", "481 Maximum number of connections reached"), proto.ErrBusy, 481},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(tt.server)
			_, _, err := s.run(t, tt.url, proto.Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Fetch(%q) = %v, want %v", tt.url, err, tt.want)
			}
			var te *textproto.Error
			if !errors.As(err, &te) || te.Code != tt.code {
				t.Errorf("Fetch(%q) = %v, want a *textproto.Error with code %d", tt.url, err, tt.code)
			}
			var re *ReplyError
			if !errors.As(err, &re) {
				t.Errorf("Fetch(%q) = %T, want a *ReplyError", tt.url, err)
			}
			if !s.conn.closed {
				t.Errorf("connection left open")
			}
		})
	}
}

// 400, at the greeting (RFC 3977 section 5.1.1) or in answer to a command
// (section 3.2.1), is the server closing for now: ErrServiceUnavailable,
// none of the refusal classes.
func TestServiceUnavailableIsNoRefusalClass(t *testing.T) {
	for _, tt := range []struct{ name, url, server string }{
		{"greeting", "nntp://127.0.0.1/g/1", script("400 busy, try later")},
		{"command", "nntp://127.0.0.1/g/1", script("201 hi", "201 ok", "400 shutting down")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(tt.server)
			_, _, err := s.run(t, tt.url, proto.Options{})
			var te *textproto.Error
			if !errors.As(err, &te) || te.Code != 400 {
				t.Fatalf("err = %v, want a 400 *textproto.Error", err)
			}
			if !errors.Is(err, ErrServiceUnavailable) {
				t.Errorf("err = %v, want ErrServiceUnavailable", err)
			}
			for _, sentinel := range []error{proto.ErrNotFound, proto.ErrPermission, proto.ErrLogin} {
				if errors.Is(err, sentinel) {
					t.Errorf("err = %v wraps %v", err, sentinel)
				}
			}
			if !s.conn.closed {
				t.Errorf("connection left open")
			}
		})
	}
}

func TestPasswordNeededWithoutPrompt(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "381 password"))
	_, _, err := s.run(t, "nntp://reader@127.0.0.1/g/1", proto.Options{})
	if !errors.Is(err, proto.ErrLogin) {
		t.Fatalf("err = %v, want ErrLogin", err)
	}
	if strings.Contains(s.conn.sent.String(), "AUTHINFO PASS") {
		t.Errorf("sent a password: %q", s.conn.sent.String())
	}
}

type fixedPrompt string

func (p fixedPrompt) Ask(ctx context.Context, prompt string, echo bool) (string, error) {
	if echo {
		return "", errors.New("password asked with echo")
	}
	return string(p), nil
}

func TestPasswordPrompt(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "381 password", "281 ok", "211 1 1 1 g", "220 1 <a@x>", "x", "."))
	req := s.request(proto.Options{})
	req.Prompt = fixedPrompt("typed")
	resp, err := (&Driver{}).Fetch(context.Background(), uri.MustParse("nntp://reader@127.0.0.1/g/1"), req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !strings.Contains(s.conn.sent.String(), "AUTHINFO PASS typed\r\n") {
		t.Errorf("sent %q", s.conn.sent.String())
	}
	if strings.Contains(s.trace.String(), "typed") {
		t.Errorf("trace shows the password")
	}
}

func TestHeadersAndBodyOnlyExclusive(t *testing.T) {
	s := newScripted("")
	_, _, err := s.run(t, "nntp://127.0.0.1/g/1", proto.Options{HeadersOnly: true, BodyOnly: true})
	if err == nil || len(s.dials) != 0 {
		t.Fatalf("err = %v, dials = %v; want an error before dialling", err, s.dials)
	}
}

func TestArticleInfo(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "211 3 1 3 local.test", "220 2 <b@example.org>") + sampleArticle)
	resp, _, err := s.run(t, "nntp://127.0.0.1/local.test/2", proto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"number": int64(2), "message_id": "<b@example.org>", "group": "local.test",
		"subject": "Second", "from": "b@example.org", "date": "Tue, 02 Jan 2024 10:00:00 +0000",
	}
	for k, v := range want {
		if resp.Info[k] != v {
			t.Errorf("Info[%q] = %#v, want %#v", k, resp.Info[k], v)
		}
	}
	if resp.MediaType != "message/rfc822" || resp.Size != -1 || resp.Name != "2" {
		t.Errorf("MediaType, Size, Name = %q, %d, %q", resp.MediaType, resp.Size, resp.Name)
	}
}

func TestSummaryEntries(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "211 3 1 3 local.test",
		"101 caps", "OVER", ".",
		"224 overview",
		"1\t=?UTF-8?Q?caf=C3=A9?=\ta@x\tMon, 01 Jan 2024 10:00:00 +0000\t<a@x>\t\t120\t3\tXref: h local.test:1",
		"not a number\tbad",
		"2\tSecond\tb@x\tgarbage date\t<b@x>\t<a@x>\t\t", "."))
	resp, _, err := s.run(t, "nntp://127.0.0.1:1119/local.test", proto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 2 {
		t.Fatalf("entries = %d, want 2", len(resp.Entries))
	}
	e := resp.Entries[0]
	if e.Name != "café" || e.Size != 120 || e.URL != "nntp://127.0.0.1:1119/local.test/1" || e.Type != proto.EntryFile {
		t.Errorf("entry 0 = %+v", e)
	}
	if !e.ModTime.Equal(time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("ModTime = %v", e.ModTime)
	}
	wantExtra := map[string]string{"number": "1", "from": "a@x", "message_id": "<a@x>", "subject": "café", "references": "", "bytes": "120", "lines": "3", "date": "Mon, 01 Jan 2024 10:00:00 +0000"}
	for k, v := range wantExtra {
		if e.Extra[k] != v {
			t.Errorf("Extra[%q] = %q, want %q", k, e.Extra[k], v)
		}
	}
	if e2 := resp.Entries[1]; e2.Size != -1 || !e2.ModTime.IsZero() || e2.Extra["references"] != "<a@x>" {
		t.Errorf("entry 1 = %+v", e2)
	}
	if resp.Info["malformed_lines"] != 1 || resp.Info["method"] != "OVER" || resp.Info["truncated"] != false {
		t.Errorf("Info = %v", resp.Info)
	}
}

func TestSummaryKeepsMostRecent(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "211 1000 1 1000 big",
		"101 caps", "OVER", ".",
		"224 overview", "999\ta\tb\t\t<x@y>\t\t\t", "1000\ta\tb\t\t<z@y>\t\t\t", "."))
	d := &Driver{MaxArticles: 2}
	resp, err := d.Fetch(context.Background(), uri.MustParse("nntp://127.0.0.1/big"), s.request(proto.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !strings.Contains(s.conn.sent.String(), "OVER 999-1000\r\n") {
		t.Errorf("sent %q, want OVER 999-1000", s.conn.sent.String())
	}
	if resp.Info["truncated"] != true || resp.Info["first"] != int64(999) {
		t.Errorf("Info = %v", resp.Info)
	}
}

func TestGroupEntries(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok",
		"215 active", "local.test 0000000003 0000000001 y", ".",
		"215 descriptions", "local.test\tLocal tests.", "."))
	resp, _, err := s.run(t, "news://127.0.0.1:1119/*", proto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 1 {
		t.Fatalf("entries = %v", resp.Entries)
	}
	e := resp.Entries[0]
	want := map[string]string{"high": "3", "low": "1", "status": "y", "description": "Local tests."}
	for k, v := range want {
		if e.Extra[k] != v {
			t.Errorf("Extra[%q] = %q, want %q", k, e.Extra[k], v)
		}
	}
	if e.URL != "news://127.0.0.1:1119/local.test" || e.Type != proto.EntryDir {
		t.Errorf("entry = %+v", e)
	}
}

func TestListRefusesArticles(t *testing.T) {
	s := newScripted("")
	_, _, err := proto.ListAll(context.Background(), (&Driver{}), uri.MustParse("nntp://127.0.0.1/g/1"), s.request(proto.Options{}))
	if err == nil || len(s.dials) != 0 {
		t.Fatalf("List = %v, dials %v; want an error before dialling", err, s.dials)
	}
	s = newScripted(script("201 hi", "201 ok", "215 active", "a.b 1 1 y", ".", "503 no"))
	entries, _, err := proto.ListAll(context.Background(), (&Driver{}), uri.MustParse("news:*"), s.request(withServer("127.0.0.1")))
	if err != nil || len(entries) != 1 || entries[0].Name != "a.b" {
		t.Fatalf("List = %v, %v", entries, err)
	}
}

// TestHeadFallbackAtMaxNumber: a group whose high number is the largest
// int64 must not make the HEAD loop wrap around.
func TestHeadFallbackAtMaxNumber(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "211 2 9223372036854775806 9223372036854775807 g",
		"500 x", "500 x", "500 x", "423 no", "423 no") + strings.Repeat("423 no\r\n", 10))
	resp, _, err := s.run(t, "nntp://127.0.0.1/g", proto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 0 {
		t.Errorf("entries = %v", resp.Entries)
	}
	if got := strings.Count(s.conn.sent.String(), "HEAD "); got != 2 {
		t.Errorf("sent %d HEAD commands, want 2:\n%s", got, s.conn.sent.String())
	}
}

// TestLineLimit: a reply or list line longer than MaxLineLength is a
// protocol error; one within it is read.
func TestLineLimit(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, tt := range []struct {
		max  int
		fail bool
	}{{4096, true}, {5007, true}, {5008, false}, {6000, false}} {
		s := newScripted(script("201 hi", "201 ok", "215 list", "a.b 1 1 "+long, ".", "503 no"))
		d := &Driver{MaxLineLength: tt.max}
		resp, err := d.Fetch(context.Background(), uri.MustParse("news:*"), s.request(withServer("127.0.0.1")))
		var pe *proto.ProtocolError
		if tt.fail != errors.As(err, &pe) {
			t.Errorf("MaxLineLength %d: Fetch = %v", tt.max, err)
		}
		if err == nil {
			resp.Body.Close()
		}
	}
}

// TestWireCheck: the client itself refuses CR, LF and NUL in a command
// line, whatever its caller checked (DESIGN.md, Safety: every driver checks
// again at the wire); nothing is written.
func TestWireCheck(t *testing.T) {
	for _, arg := range []string{"a\r\nQUIT", "a\nb", "a\rb", "a\x00b"} {
		conn := &fakeConn{r: strings.NewReader("")}
		c := newClient(conn, nil, DefaultMaxLineLength)
		_, _, err := c.cmd(context.Background(), StatusGroupSelected, "GROUP %s", arg)
		if !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Errorf("cmd(GROUP %q) = %v, want ErrUnsafeArgument", arg, err)
		}
		if conn.sent.Len() != 0 {
			t.Errorf("cmd(GROUP %q) wrote %q", arg, conn.sent.String())
		}
		_, _, err = c.cmd(context.Background(), StatusAuthAccepted, "%s", "AUTHINFO PASS "+arg)
		if !errors.Is(err, proto.ErrUnsafeArgument) || strings.Contains(err.Error(), arg) {
			t.Errorf("cmd(AUTHINFO PASS %q) = %v", arg, err)
		}
	}
}

// A nil *proto.Request is the zero Request (default dialer and timeouts),
// as for the other drivers: Fetch of an article, List and Open all work.
func TestNilRequest(t *testing.T) {
	s := newsServer(t, "OVER")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var d Driver
	resp, err := d.Fetch(ctx, uri.MustParse("nntp://"+s.Addr+"/g.one/2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !strings.Contains(string(b), "body 2\n") {
		t.Errorf("article = %q, %v", b, err)
	}
	if entries, _, err := proto.ListAll(ctx, &d, uri.MustParse("nntp://"+s.Addr+"/g.one"), nil); err != nil || len(entries) != 4 {
		t.Errorf("List = %d entries, %v; want 4", len(entries), err)
	}
	sess, err := d.Open(ctx, uri.MustParse("nntp://"+s.Addr+"/g.one"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
}
