package nntp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/internal/mbox"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// FuzzParseOverview: the overview parser never panics, accepts only
// positive article numbers, and its rendering (the summary Body) parses
// back to a fixed point.
func FuzzParseOverview(f *testing.F) {
	// RFC 3977 section 8.3.3 example, extras, empty fields, bad numbers.
	f.Add("3000234\tI am just a test article\t\"Demo User\" <nobody@example.com>\t6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17")
	f.Add("7\ts\tf\td\t<m@x>\t\t10\t2\tXref: host g:7")
	f.Add("1\t\t\t\t\t\t\t")
	f.Add("12\tonly a subject")
	f.Add("0\ts")
	f.Add("x")
	f.Add("1\t=?UTF-8?B?w6l0w6k=?=\t=?ISO-8859-1?Q?caf=E9?=\t\r\n\t<a@b>\t\t-1\t99999999999999999999")
	f.Fuzz(func(t *testing.T, line string) {
		ov, err := parseOverview(line)
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) || len(se.line) > 80 {
				t.Fatalf("parseOverview(%q) error %v", line, err)
			}
			return
		}
		if ov.Number < 1 || ov.Bytes < -1 || ov.Lines < -1 {
			t.Fatalf("parseOverview(%q) = %+v", line, ov)
		}
		once, err := parseOverview(ov.line())
		if err != nil {
			t.Fatalf("parseOverview(%q) fails on its own rendering %q: %v", line, ov.line(), err)
		}
		twice, err := parseOverview(once.line())
		if err != nil || twice != once {
			t.Fatalf("rendering of %q is not stable: %+v then %+v (%v)", line, once, twice, err)
		}
		e := ov.entry("nntp://127.0.0.1/g/1")
		if e.Extra["number"] == "" || e.Size != ov.Bytes {
			t.Fatalf("entry(%q) = %+v", line, e)
		}
	})
}

// FuzzParseListGroupLine: a LISTGROUP line (RFC 3977 section 6.1.2)
// never panics, gives a positive number or a *syntaxError holding at
// most 80 bytes of the line, and the number written back parses to
// itself.
func FuzzParseListGroupLine(f *testing.F) {
	f.Add("3000234")             // RFC 3977 section 6.1.2's example
	f.Add(" 42 ")                // padded
	f.Add("9223372036854775807") // the largest accepted
	f.Add("9223372036854775808") // one past it
	f.Add("0")
	f.Add("+1")
	f.Add("1\t<id@x>")
	f.Fuzz(func(t *testing.T, line string) {
		n, err := parseListGroupLine(line)
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) || len(se.line) > 80 || n != 0 {
				t.Fatalf("parseListGroupLine(%q) = %d, %v", line, n, err)
			}
			return
		}
		if n < 1 {
			t.Fatalf("parseListGroupLine(%q) = %d", line, n)
		}
		if again, err := parseListGroupLine(strconv.FormatInt(n, 10)); err != nil || again != n {
			t.Fatalf("parseListGroupLine(%q) = %d, its rendering gives %d, %v", line, n, again, err)
		}
	})
}

// FuzzParseReplies: the other reply parsers (GROUP, ARTICLE, LIST ACTIVE,
// LIST NEWSGROUPS, header blocks) never panic on any input, and what the
// GROUP reply (RFC 3977 section 6.1.1), LIST ACTIVE (7.6.3) and LIST
// NEWSGROUPS (7.6.6) parsers accept, written back in the RFC's form,
// parses to the same. (.netrc files are fuzzed by internal/netrc's
// FuzzParse.)
func FuzzParseReplies(f *testing.F) {
	f.Add("1234 3000234 3002322 misc.test")
	f.Add("misc.test 3002322 3000234 y")
	f.Add("misc.test General Usenet testing")
	f.Add("Subject: a\r\n folded\r\nFrom: b\r\n\r\nbody")
	f.Fuzz(func(t *testing.T, s string) {
		checkRepliesRoundTrip(t, s)
		if n, id := parseArticleReply(s); n < 0 || (id != "" && !strings.HasPrefix(id, "<")) {
			t.Fatalf("parseArticleReply(%q) = %d, %q", s, n, id)
		}
		for k := range mbox.Fields(s) {
			if k == "" || strings.ContainsAny(k, " \t\r\n:") {
				t.Fatalf("mbox.Fields(%q) has key %q", s, k)
			}
		}
	})
}

// checkRepliesRoundTrip: what parseGroupReply, parseActive and
// parseNewsgroups accept, written back in the RFC's form, parses to the
// same.
func checkRepliesRoundTrip(t *testing.T, s string) {
	t.Helper()
	if g, err := parseGroupReply(s); err == nil {
		back := fmt.Sprintf("%d %d %d", g.Count, g.Low, g.High)
		if again, err := parseGroupReply(back); g.Count < 0 || g.Low < 0 || g.High < 0 || err != nil || again != g {
			t.Fatalf("parseGroupReply(%q) = %+v; written back %q gives %+v, %v", s, g, back, again, err)
		}
	}
	if g, err := parseActive(s); err == nil {
		back := fmt.Sprintf("%s %d %d %s", g.Name, g.High, g.Low, g.Status)
		if again, err := parseActive(back); g.Name == "" || g.High < 0 || g.Low < 0 || err != nil || again != g {
			t.Fatalf("parseActive(%q) = %+v; written back %q gives %+v, %v", s, g, back, again, err)
		}
	}
	if name, desc, ok := parseNewsgroups(s); ok {
		n2, d2, ok2 := parseNewsgroups(name + " " + desc)
		if name == "" || strings.ContainsAny(name, " \t") || !ok2 || n2 != name || d2 != desc {
			t.Fatalf("parseNewsgroups(%q) = %q, %q; written back: %q, %q, %v", s, name, desc, n2, d2, ok2)
		}
	}
}

// boundedServer serves data, repeated without end, and records how much the
// client read; past limit it fails the read so that a missing bound shows
// up as a test failure instead of a hang.
type boundedServer struct {
	data  []byte
	off   int
	read  int
	limit int
}

func (s *boundedServer) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	if s.read >= s.limit {
		return 0, errors.New("fuzz: client read past the bound")
	}
	n := copy(p, s.data[s.off:])
	s.off = (s.off + n) % len(s.data)
	s.read += n
	return n, nil
}

var sessionURLs = []string{
	"nntp://127.0.0.1/local.test/1",
	"nntp://127.0.0.1/local.test",
	"news:a@b",
	"news:*",
	"nntp://u:p@127.0.0.1/local.test/1",
}

// FuzzSession feeds arbitrary server bytes, repeated without end, to a
// whole Fetch (greeting, MODE READER, then the URL's commands and their
// multi-line replies) and reads the body. It must not panic, must stop
// within its limits, and must never be fed more than a bounded amount.
func FuzzSession(f *testing.F) {
	f.Add(uint8(0), []byte("201 hi\r\n201 ok\r\n211 1 1 1 local.test\r\n220 1 <a@b>\r\nSubject: x\r\n\r\n..dot\r\n.\r\n"))
	f.Add(uint8(1), []byte("200 hi\r\n500 no\r\n211 2 1 2 local.test\r\n101 c\r\nOVER\r\n.\r\n224 o\r\n1\ts\tf\td\t<a@b>\t\t1\t1\r\n2\tt\n.\r\n"))
	f.Add(uint8(1), []byte("201 hi\r\n201 ok\r\n211 3 1 3 local.test\r\n500 x\r\n500 x\r\n500 x\r\n221 1 <a@b>\r\nSubject: s\r\n.\r\n423 no\r\n"))
	f.Add(uint8(2), []byte("201 hi\r\n201 ok\r\n220 0 <a@b>\r\nFrom: x\r\n\r\nbody\r\n"))
	f.Add(uint8(3), []byte("201 hi\r\n201 ok\r\n215 l\r\na.b 1 1 y\r\n.\r\n215 d\r\na.b desc\r\n.\r\n"))
	f.Add(uint8(4), []byte("201 hi\r\n201 ok\r\n381 p\r\n281 ok\r\n211 1 1 1 local.test\r\n220 1 <a@b>\r\n\r\n.\r\n"))
	f.Add(uint8(3), []byte("201 hi\r\n201 ok\r\n215 l\r\n"))
	f.Fuzz(func(t *testing.T, form uint8, data []byte) {
		d := &Driver{MaxLineLength: 1024, MaxArticles: 50, MaxGroups: 100, MaxListBytes: 64 << 10, MaxHeadFallback: 5, MaxHeaderBytes: 4 << 10}
		const bound = 1 << 20
		srv := &boundedServer{data: data, limit: bound}
		conn := &fakeConn{r: srv}
		req := &proto.Request{
			Dial:    func(context.Context, string, string) (net.Conn, error) { return conn, nil },
			Options: withServer("127.0.0.1"),
		}
		u := uri.MustParse(sessionURLs[int(form)%len(sessionURLs)])
		resp, err := d.Fetch(context.Background(), u, req)
		if err == nil {
			if len(resp.Entries) > 100 {
				t.Fatalf("%d entries past the limits", len(resp.Entries))
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			resp.Body.Close()
		}
		if srv.read >= bound {
			t.Fatalf("client read %d bytes: a reply is not bounded (err %v)", srv.read, err)
		}
		if bytes.Contains(conn.sent.Bytes(), []byte("\x00")) {
			t.Fatalf("client sent a NUL: %q", conn.sent.Bytes())
		}
	})
}
