package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// transcriptTests are the exact bytes sent for a URL (RFC 1738 section
// 3.4: "send the Gopher selector, followed by a tab and the search string
// (which may be empty), followed by a tab and the Gopher+ commands").
var transcriptTests = []struct {
	url  string
	want string
}{
	// RFC 1738 3.4.1: an empty gopher-path is type 1 and an empty selector.
	{"gopher://h/", "\r\n"},
	{"gopher://h", "\r\n"},
	// RFC 1738 3.4.1: the type character is not part of the selector.
	{"gopher://h/0a", "a\r\n"},
	// RFC 1738 3.4.1: a selector may start with a copy of the type.
	{"gopher://h/00/x", "0/x\r\n"},
	// RFC 1738 3.4.2: a search is the selector, a TAB and the search string.
	{"gopher://h/7srch%09two%20words", "srch\ttwo words\r\n"},
	// RFC 1738 3.4.3/3.4.4: "+" with an empty search field.
	{"gopher://h/0sel%09%09+", "sel\t\t+\r\n"},
	// RFC 1738 3.4.6: "$", all attributes of every item of a menu.
	{"gopher://h/1%09%09$", "\t\t$\r\n"},
	// RFC 1738 3.4.6: "!", all attributes of one item.
	{"gopher://h/0sel%09%09!", "sel\t\t!\r\n"},
	// RFC 1738 3.4.7: several attributes separated by a coded space.
	{"gopher://h/0sel%09%09!+ABSTRACT%20+SMELL", "sel\t\t!+ABSTRACT +SMELL\r\n"},
	// RFC 1738 3.4.8: an alternate view and language.
	{"gopher://h/0sel%09%09+application/postscript%20Es_ES", "sel\t\t+application/postscript Es_ES\r\n"},
	// RFC 1738 3.4.1: "Within the <gopher-path>, no characters are reserved."
	{"gopher://h/0a?b", "a?b\r\n"},
	{"gopher://h/0a%3Fb", "a?b\r\n"},
	{"gopher://h/0a;type=i", "a;type=i\r\n"},
	// A search that is present but empty.
	{"gopher://h/7srch%09", "srch\t\r\n"},
	// RFC 1738 3.4.9: a filled +ASK form, sent as is.
	{"gopher://h/0sel%09%09+%091%0D%0A+-1%0D%0Aone%0D%0Atwo%20words%0D%0A.%0D%0A",
		"sel\t\t+\t1\r\n+-1\r\none\r\ntwo words\r\n.\r\n"},
	{"gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0A.%0D%0A", "sel\t\t+\t1\r\n+-1\r\n.\r\n"},
}

func TestEncodeRequest(t *testing.T) {
	for _, tt := range transcriptTests {
		t.Run(tt.url, func(t *testing.T) {
			u := uri.MustParse(tt.url)
			g, err := u.Gopher()
			if err != nil {
				t.Fatal(err)
			}
			got, err := wireRequest{Selector: g.Selector, Search: g.Search, Plus: g.Plus}.encode()
			if err != nil {
				t.Fatalf("encode(%q) = %v", tt.url, err)
			}
			if string(got) != tt.want {
				t.Errorf("encode(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

// TestTranscript sends each URL to the fake server and compares the bytes
// it received.
func TestTranscript(t *testing.T) {
	attrs := reply("+-2\r\n+INFO: 0x\tsel\th\t70\t+\r\n+ABSTRACT:\r\n text\r\n")
	srv := newFake(t, map[string]handler{
		"\t\t$":                    attrs,
		"sel\t\t!":                 attrs,
		"sel\t\t!+ABSTRACT +SMELL": attrs,
	})
	srv.fallback = reply("iok\t\t\t0\r\n")
	d := &Driver{}
	for i, tt := range transcriptTests {
		t.Run(tt.url, func(t *testing.T) {
			resp, err := d.Fetch(t.Context(), uri.MustParse(tt.url), srv.request(nil))
			if err != nil {
				t.Fatalf("Fetch(%q) = %v", tt.url, err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			reqs := srv.Requests()
			if len(reqs) != i+1 {
				t.Fatalf("server saw %d requests, want %d", len(reqs), i+1)
			}
			if got := reqs[i]; got != tt.want {
				t.Errorf("Fetch(%q) sent %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

// unsafeTests put CR, LF, NUL or a TAB where they would change the
// request; the driver refuses them itself (DESIGN.md, Safety: "Every
// driver checks again at the wire").
var unsafeTests = []struct {
	name   string
	sel    string
	search *string
	plus   *string
}{
	{"CRLF in selector", "a\r\nINJECTED", nil, nil},
	{"LF in selector", "a\nINJECTED", nil, nil},
	{"CR in selector", "a\rINJECTED", nil, nil},
	{"NUL in selector", "a\x00INJECTED", nil, nil},
	{"TAB in selector", "a\tINJECTED", nil, nil},
	{"CRLF in search", "s", ptr("x\r\nINJECTED"), nil},
	{"TAB in search", "s", ptr("x\tINJECTED"), nil},
	{"NUL in search", "s", ptr("x\x00INJECTED"), nil},
	{"CRLF in plus", "s", ptr(""), ptr("+\r\nINJECTED")},
	{"form with trailing bytes", "s", ptr(""), ptr("+\t1\r\n+-1\r\nv\r\n.\r\nINJECTED\r\n")},
	{"form with dot line inside", "s", ptr(""), ptr("+\t1\r\n+-1\r\n.\r\nINJECTED\r\n.\r\n")},
	{"form with bare LF", "s", ptr(""), ptr("+\t1\r\n+-1\r\nv\nINJECTED\r\n.\r\n")},
	{"form with bare CR", "s", ptr(""), ptr("+\t1\r\n+-1\r\nv\rINJECTED\r\n.\r\n")},
	{"form with NUL", "s", ptr(""), ptr("+\t1\r\n+-1\r\nv\x00INJECTED\r\n.\r\n")},
	{"form without terminator", "s", ptr(""), ptr("+\t1\r\n+-1\r\nINJECTED\r\n")},
	{"form with other data flag", "s", ptr(""), ptr("+\t2\r\n+-1\r\nINJECTED\r\n.\r\n")},
	{"form with length block", "s", ptr(""), ptr("+\t1\r\n+8\r\nINJECTED\r\n.\r\n")},
	{"form with LF ends", "s", ptr(""), ptr("+\t1\n+-1\nINJECTED\n.\n")},
	{"form after view", "s", ptr(""), ptr("+text/plain\t1\r\n+-1\r\nINJECTED\r\n.\r\n")},
}

func ptr(s string) *string { return &s }

func TestUnsafeRefused(t *testing.T) {
	srv := newFake(t, nil)
	d := &Driver{}
	for _, tt := range unsafeTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wireRequest{Selector: tt.sel, Search: tt.search, Plus: tt.plus}.encode()
			if !errors.Is(err, proto.ErrUnsafeArgument) {
				t.Errorf("encode = %v, want ErrUnsafeArgument", err)
			}
			if strings.Contains(tt.sel, "\t") || tt.search != nil && strings.Contains(*tt.search, "\t") {
				return // a %09 in a URL is a field separator, not data
			}
			// The same through Fetch, with a URL built directly (a careless
			// caller bypassing uri.Parse and package safety).
			path := "/0" + uri.Escape(tt.sel, "/")
			if tt.search != nil || tt.plus != nil {
				s := ""
				if tt.search != nil {
					s = *tt.search
				}
				path += "%09" + uri.Escape(s, "")
			}
			if tt.plus != nil {
				path += "%09" + uri.Escape(*tt.plus, "+")
			}
			u := &uri.URL{Scheme: "gopher", HasAuthority: true, Host: "h", Path: path}
			dials := 0
			_, err = d.Fetch(t.Context(), u, srv.request(&dials))
			if !errors.Is(err, proto.ErrUnsafeArgument) {
				t.Errorf("Fetch(%q) = %v, want ErrUnsafeArgument", u, err)
			}
			if dials != 0 {
				t.Errorf("Fetch(%q) dialled %d times, want 0", u, dials)
			}
		})
	}
	if w := srv.Wire(); len(w) != 0 {
		t.Errorf("server received %q, want nothing", w)
	}
}

func TestPeekLine(t *testing.T) {
	tests := []struct {
		in      string
		limit   int
		want    string
		wantErr error
	}{
		{"+-1\r\nrest", 24, "+-1\r\n", nil},
		{"+5\n", 24, "+5\n", nil},
		{"+5", 24, "+5", io.EOF},
		{"", 24, "", io.EOF},
		{strings.Repeat("+", 100), 24, strings.Repeat("+", 24), bufio.ErrBufferFull},
	}
	for _, tt := range tests {
		br := bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(tt.in)), 64)
		got, err := peekLine(br, tt.limit)
		if string(got) != tt.want || !errors.Is(err, tt.wantErr) && err != tt.wantErr {
			t.Errorf("peekLine(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if br.Buffered() < len(got) {
			t.Errorf("peekLine(%q) consumed the line", tt.in)
		}
	}
}

func TestExactReader(t *testing.T) {
	r := &exactReader{r: strings.NewReader("hello world"), n: 5}
	got, err := io.ReadAll(r)
	if string(got) != "hello" || err != nil {
		t.Errorf("exactReader(5) = %q, %v; want \"hello\", nil", got, err)
	}
	r = &exactReader{r: strings.NewReader("hel"), n: 5}
	got, err = io.ReadAll(r)
	if string(got) != "hel" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("exactReader(5) of 3 bytes = %q, %v; want \"hel\", ErrUnexpectedEOF", got, err)
	}
	r = &exactReader{r: strings.NewReader("x"), n: 0}
	if got, err := io.ReadAll(r); len(got) != 0 || err != nil {
		t.Errorf("exactReader(0) = %q, %v; want empty", got, err)
	}
}

// TestReadLines: RFC 1436 section 4 (a menu or text ends with a line
// holding "." alone, or when the server closes the connection), the
// limits of a line and of the whole response on top.
func TestReadLines(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		lim     limits
		want    string
		dot     bool
		wantErr bool
	}{
		{"until close", "a\r\nb\r\n", limits{}, "a\r\nb\r\n", false, false},
		{"stops at dot", "a\r\n.\r\nnot read\r\n", limits{}, "a\r\n.\r\n", true, false},
		{"dot with LF", "a\n.\nz", limits{}, "a\n.\n", true, false},
		{"dot without line end", "a\n.", limits{}, "a\n.", false, false},
		{"last line without end", "a\r\nb", limits{}, "a\r\nb", false, false},
		{"line too long", strings.Repeat("x", 200) + "\n", limits{maxLine: 100}, "", false, true},
		{"too large", strings.Repeat("xxxxxxxxx\n", 100), limits{maxBytes: 500}, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dot, err := readLines(strings.NewReader(tt.in), tt.lim)
			if tt.wantErr {
				var pe *proto.ProtocolError
				if !errors.As(err, &pe) {
					t.Errorf("readLines = %v, want *proto.ProtocolError", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, []byte(tt.want)) || dot != tt.dot {
				t.Errorf("readLines = %q, %v, %v; want %q, %v", got, dot, err, tt.want, tt.dot)
			}
		})
	}
}

// FuzzReadLines: readLines gives the input up to and including its first
// "." line (dot true) or, without one, all of it; no line is lost, added or
// read past the "." line. It fails, with a *proto.ProtocolError, exactly
// when a line before that end is over the line limit or the bytes up to
// it are over the byte limit.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\r\n.\r\nnot read\r\n"), 8, 64)
	f.Add([]byte("a\n."), 1, 3)
	f.Add([]byte("xxxxxxxxx\n.\r"), 9, 12)
	f.Fuzz(func(t *testing.T, in []byte, maxLine, maxBytes int) {
		lim := limits{maxLine: 1 + abs(maxLine)%64, maxBytes: int64(1 + abs(maxBytes)%256)}
		var want []byte
		long, dot := false, false
		for l := range bytes.Lines(in) {
			want = append(want, l...)
			long = long || len(lineproto.TrimEnd(l)) > lim.maxLine
			if dot = len(l) > 1 && string(trimEOL(l)) == "."; dot {
				break
			}
		}
		got, gotDot, err := readLines(bytes.NewReader(in), lim)
		if tooMuch := long || int64(len(want)) > lim.maxBytes; tooMuch {
			if pe := (*proto.ProtocolError)(nil); !errors.As(err, &pe) {
				t.Fatalf("readLines(%q, %+v) = %q, %v; want a *proto.ProtocolError", in, lim, got, err)
			}
			return
		}
		if err != nil || !bytes.Equal(got, want) || gotDot != dot {
			t.Fatalf("readLines(%q, %+v) = %q, %v, %v; want %q, %v", in, lim, got, gotDot, err, want, dot)
		}
	})
}

func abs(n int) int { return max(n, -n) }
