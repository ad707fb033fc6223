package nntp

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// With Request.Raw an article is the bytes the server sent between the
// status line and the terminating "." line (RFC 3977 section 3.1.1: a
// multi-line data block is dot-stuffed, its lines end in CR LF, and it
// ends with "." CR LF): dot-stuffing and CR LF are kept, the "." line is
// not part of it.
func TestRawArticle(t *testing.T) {
	const long = 20 << 10 // over the client's 16 KiB buffer
	for _, tt := range []struct {
		name   string
		opts   proto.Options
		status string // the status line of the article
		block  string // the data block without its "." line
		end    string // the "." line
	}{
		// RFC 3977 section 6.2.1: ARTICLE, head and body.
		{"article", proto.Options{}, "220 2 <b@example.org>", strings.TrimSuffix(sampleArticle, ".\r\n"), ".\r\n"},
		// Section 6.2.2: HEAD, the header alone.
		{"head", proto.Options{HeadersOnly: true}, "221 2 <b@example.org>", "Subject: Second\r\nFrom: b@example.org\r\n", ".\r\n"},
		// Section 6.2.3: BODY, lines that begin with a dot stuffed.
		{"body", proto.Options{BodyOnly: true}, "222 2 <b@example.org>", "..\r\n...dots\r\n.. \r\nend\r\n", ".\r\n"},
		{"empty body", proto.Options{BodyOnly: true}, "222 2 <b@example.org>", "", ".\r\n"},
		{"lines ending in LF alone", proto.Options{BodyOnly: true}, "222 2 <b@example.org>", "one\ntwo\r\n..three\n", ".\n"},
		{"bare CR and NUL kept", proto.Options{BodyOnly: true}, "222 2 <b@example.org>", "a\rb\x00c\r\n", ".\r\n"},
		// A line longer than the buffer whose second part is "." CR LF
		// is no "." line.
		{"long line", proto.Options{BodyOnly: true}, "222 2 <b@example.org>", strings.Repeat("x", long) + ".\r\n" + strings.Repeat("y", 3*long) + "\r\n", ".\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(script("201 hi", "201 ok", "211 3 1 3 local.test", tt.status) + tt.block + tt.end)
			req := s.request(tt.opts)
			req.Raw = true
			resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse("nntp://127.0.0.1/local.test/2"), req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(body) != tt.block {
				t.Errorf("raw body = %.200q, %v; want %.200q", body, err, tt.block)
			}
			if !strings.HasSuffix(s.conn.sent.String(), "QUIT\r\n") {
				t.Errorf("sent %q: no QUIT after an article read to its end", s.conn.sent.String())
			}
			if tt.name == "article" && resp.Info["subject"] != "Second" {
				t.Errorf("Info[subject] = %v, want the header parsed as without Raw", resp.Info["subject"])
			}
		})
	}
}

// A raw article cut before its "." line is a lost connection, as a
// decoded one is.
func TestRawArticleCut(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "211 3 1 3 local.test", "222 2 <b@example.org>") + "line one\r\nline t")
	req := s.request(proto.Options{BodyOnly: true})
	req.Raw = true
	resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse("nntp://127.0.0.1/local.test/2"), req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, proto.ErrProtocol) {
		t.Errorf("read = %v, want io.ErrUnexpectedEOF", err)
	}
}

// An article whose lines end in LF alone ends at its "." line, also after
// an empty line (RFC 3977 section 3.1.1).
func TestArticleBareLF(t *testing.T) {
	s := newScripted(script("201 hi", "201 ok", "211 3 1 3 local.test", "222 2 <b@example.org>") + "line one\n\n.\n")
	resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse("nntp://127.0.0.1/local.test/2"), s.request(proto.Options{BodyOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "line one\n\n" || err != nil {
		t.Errorf("body %q, %v", b, err)
	}
}

// A reply that is no NNTP reply is the server breaking the protocol
// (proto.ErrProtocol, exit 9); a reply cut by the end of the connection is
// a lost connection (io.ErrUnexpectedEOF, exit 5), never a protocol error.
// RFC 3977 section 3.1: a status line begins with a three-digit code;
// section 3.1.1: lines are at most 512 octets (this client allows
// Driver.MaxLineLength before it gives up).
func TestBrokenReplies(t *testing.T) {
	for _, tt := range []struct {
		name   string
		server string
		proto  bool // want proto.ErrProtocol; else io.ErrUnexpectedEOF
	}{
		{"greeting not a reply", "hello there\r\n", true},
		{"greeting code of two digits", "20 hi\r\n", true},
		{"greeting over the line limit", "200 " + strings.Repeat("x", DefaultMaxLineLength+10) + "\r\n", true},
		{"GROUP reply not a reply", script("200 hi", "200 ok") + "what\r\n", true},
		{"no greeting", "", false},
		{"greeting cut", "200 hel", false},
		{"GROUP reply cut", script("200 hi", "200 ok") + "21", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(tt.server)
			_, _, err := s.run(t, "nntp://127.0.0.1/local.test/2", proto.Options{})
			if got := errors.Is(err, proto.ErrProtocol); got != tt.proto {
				t.Errorf("Fetch = %v: errors.Is(err, proto.ErrProtocol) = %v, want %v", err, got, tt.proto)
			}
			if !tt.proto && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("Fetch = %v, want io.ErrUnexpectedEOF (a lost connection)", err)
			}
		})
	}
}
