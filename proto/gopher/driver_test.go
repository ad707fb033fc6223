package gopher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

func fetchURL(t *testing.T, d *Driver, srv *fakeServer, raw string, req *proto.Request) (*proto.Response, []byte, error) {
	t.Helper()
	if req == nil {
		req = srv.request(nil)
	}
	u, err := uri.Parse(strings.ReplaceAll(raw, "SRV", srv.Addr))
	if err != nil {
		t.Fatalf("uri.Parse(%q) = %v", raw, err)
	}
	resp, err := d.Fetch(t.Context(), u, req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

const menuCRLF = "iWelcome\tfake\t(NULL)\t0\r\n" +
	"0About\t/about\tSRVHOST\tSRVPORT\t+\r\n" +
	"1Docs\t/docs\tSRVHOST\tSRVPORT\r\n" +
	"7Search\t/search\tSRVHOST\tSRVPORT\r\n" +
	"0Relative\t/rel\t\t\r\n" +
	"hWeb\tURL:http://example.org/\tSRVHOST\tSRVPORT\r\n" +
	"8BBS\tguest\tbbs.example\t23\r\n"

func menuFor(srv *fakeServer, m string) string {
	host, port, _ := net.SplitHostPort(srv.Addr)
	return strings.NewReplacer("SRVHOST", host, "SRVPORT", port).Replace(m)
}

func TestFetchMenu(t *testing.T) {
	srv := newFake(t, nil)
	for _, tc := range []struct{ name, sel, body string }{
		{"with dot", "/with", menuCRLF + ".\r\n"},
		{"without dot", "/without", menuCRLF},
		{"LF only", "/lf", strings.ReplaceAll(menuCRLF, "\r\n", "\n")},
	} {
		srv.handlers = map[string]handler{tc.sel: reply(menuFor(srv, tc.body))}
		t.Run(tc.name, func(t *testing.T) {
			resp, body, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1"+tc.sel, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Kind != proto.KindDirectory || resp.ItemType != "1" {
				t.Errorf("Kind, ItemType = %v, %q", resp.Kind, resp.ItemType)
			}
			if string(body) != menuFor(srv, tc.body) {
				t.Errorf("Body = %q, want the menu as sent", body)
			}
			var urls []string
			for _, e := range resp.Entries {
				urls = append(urls, e.URL)
			}
			want := []string{
				"",
				"gopher://" + srv.Addr + "/0/about",
				"gopher://" + srv.Addr + "/1/docs",
				"gopher://" + srv.Addr + "/7/search",
				"gopher://" + srv.Addr + "/0/rel", // no host: this server
				"http://example.org/",
				"telnet://guest@bbs.example/",
			}
			if !reflect.DeepEqual(urls, want) {
				t.Errorf("URLs =\n%q\nwant\n%q", urls, want)
			}
			if resp.Entries[1].Extra["plus"] != "+" || resp.Entries[0].Type != proto.EntryInfo {
				t.Errorf("entries = %+v", resp.Entries[:2])
			}
		})
	}
}

// TestFetchMenuEnd: Info[InfoMenuEnd] says how a menu's data ended, for a
// mirror to tell a cut menu from a whole one: its "." line (RFC 1436, or
// that of "+-1" data), a Gopher+ length, or the close (pygopherd's
// menus, "+-2", a menu cut between two lines, and one cut in the middle
// of a line twice alike). Raw menus are not parsed and have none.
func TestFetchMenuEnd(t *testing.T) {
	const menu = "0a\t/a\th\t70\r\n"
	srv := newFake(t, map[string]handler{
		"/dot":           reply(menu + ".\r\n"),
		"/dotlf":         reply("0a\t/a\th\t70\n.\n"),
		"/close":         reply(menu),
		"/midline":       reply(menu + "0b\t/b"),
		"/plus1\t\t+":    reply("+-1\r\n" + menu + ".\r\n"),
		"/plusN\t\t+":    reply(fmt.Sprintf("+%d\r\n%s", len(menu), menu)),
		"/plusNdot\t\t+": reply(fmt.Sprintf("+%d\r\n%s.\r\n", len(menu)+3, menu)),
		"/plus2\t\t+":    reply("+-2\r\n" + menu),
	})
	for _, tt := range []struct{ url, want string }{
		{"gopher://SRV/1/dot", MenuEndDot},
		{"gopher://SRV/1/dotlf", MenuEndDot},
		{"gopher://SRV/1/close", MenuEndClose},
		{"gopher://SRV/1/midline", MenuEndClose},
		{"gopher://SRV/1/plus1%09%09+", MenuEndDot},
		{"gopher://SRV/1/plusN%09%09+", MenuEndLength},
		{"gopher://SRV/1/plusNdot%09%09+", MenuEndDot},
		{"gopher://SRV/1/plus2%09%09+", MenuEndClose},
	} {
		t.Run(tt.url, func(t *testing.T) {
			resp, _, err := fetchURL(t, &Driver{}, srv, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Info[InfoMenuEnd]; got != tt.want {
				t.Errorf("Info[%q] = %v, want %q", InfoMenuEnd, got, tt.want)
			}
		})
	}
	req := srv.request(nil)
	req.Raw = true
	if resp, _, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1/dot", req); err != nil || resp.Info[InfoMenuEnd] != nil {
		t.Errorf("raw menu: Info %v, %v; want none", resp, err)
	}
}

// A menu whose data ends in the middle of a line is asked for again (a
// connection cut on the way ends a menu as the server's close does, and
// its last line may parse, as an item with a shorter selector): the same
// bytes twice are the menu, a second answer that ends with its line end
// replaces the first, two different cut answers are io.ErrUnexpectedEOF.
// A menu that ends with its line end, or its "." line, is asked once.
func TestFetchMenuCutMidLine(t *testing.T) {
	const whole = "0a\t/a.txt\th\t70\r\n0b\t/b.txt\th\t70\r\n"
	cut := whole[:len(whole)-10] // ends "0b\t/b.t": an item "/b.t" of this server
	for _, tc := range []struct {
		name    string
		answers []string
		want    string // selectors; "" for an error
		asked   int
	}{
		{"whole", []string{whole}, "/a.txt /b.txt", 1},
		{"with dot", []string{whole + ".\r\n"}, "/a.txt /b.txt", 1},
		{"cut then whole", []string{cut, whole}, "/a.txt /b.txt", 2},
		{"no final line end", []string{strings.TrimSuffix(whole, "\r\n")}, "/a.txt /b.txt", 2},
		{"cut twice", []string{cut, whole[:len(whole)-5]}, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := newFake(t, map[string]handler{
				"/m": func(c net.Conn) {
					i := min(int(n.Add(1)), len(tc.answers)) - 1
					c.Write([]byte(tc.answers[i]))
				},
			})
			resp, _, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1/m", nil)
			switch {
			case tc.want == "" && !errors.Is(err, io.ErrUnexpectedEOF):
				t.Errorf("Fetch = %v, want io.ErrUnexpectedEOF", err)
			case tc.want != "" && err != nil:
				t.Errorf("Fetch = %v", err)
			case tc.want != "":
				var sels []string
				for _, e := range resp.Entries {
					v, _ := uri.MustParse(e.URL).Gopher()
					sels = append(sels, v.Selector)
				}
				if got := strings.Join(sels, " "); got != tc.want {
					t.Errorf("selectors %q, want %q", got, tc.want)
				}
			}
			if got := int(n.Load()); got != tc.asked {
				t.Errorf("asked %d times, want %d", got, tc.asked)
			}
		})
	}
}

// A server that sends the "." line and then keeps the connection open is
// not waited for.
func TestFetchMenuDotThenSilence(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"": func(c net.Conn) {
			c.Write([]byte("0a\t/a\th\t70\r\n.\r\n"))
			<-readEOF(c)
		},
	})
	req := srv.request(nil)
	req.IdleTimeout = 10 * time.Second
	start := time.Now()
	resp, _, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/", req)
	if err != nil || len(resp.Entries) != 1 {
		t.Fatalf("Fetch = %v, %v", resp, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Fetch took %v: it waited for the close after the \".\" line", d)
	}
}

func TestFetchText(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"/dot":         reply("line\r\n..stuffed\r\n.\r\n"),
		"/nodot":       reply("line\r\n..stuffed\r\n"),
		"/plus-1\t\t+": reply("+-1\r\nline\r\n..stuffed\r\n.\r\n"),
		"/plusN\t\t+":  reply("+17\r\nline\r\n..stuffed\r\n"),
		"/plus-2\t\t+": reply("+-2\r\nline\r\n..stuffed\r\n"),
	})
	tests := []struct {
		url  string
		want string
		size int64
	}{
		{"gopher://SRV/0/dot", "line\r\n.stuffed\r\n", -1},
		// No "." line at the end: a server that sends files as they are
		// (pygopherd): its ".." is data.
		{"gopher://SRV/0/nodot", "line\r\n..stuffed\r\n", -1},
		{"gopher://SRV/0/plus-1%09%09+", "line\r\n.stuffed\r\n", -1},
		// With a length or "until close" the data is exact (gopherplus.txt 2.3).
		{"gopher://SRV/0/plusN%09%09+", "line\r\n..stuffed\r\n", 17},
		{"gopher://SRV/0/plus-2%09%09+", "line\r\n..stuffed\r\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			resp, body, err := fetchURL(t, &Driver{}, srv, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(body) != tt.want || resp.Size != tt.size || resp.MediaType != "text/plain" {
				t.Errorf("body %q size %d type %q; want %q size %d", body, resp.Size, resp.MediaType, tt.want, tt.size)
			}
		})
	}
	// Raw: the bytes as sent.
	req := srv.request(nil)
	req.Raw = true
	_, body, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/0/dot", req)
	if err != nil || string(body) != "line\r\n..stuffed\r\n.\r\n" {
		t.Errorf("Raw text = %q, %v", body, err)
	}
}

// TestFetchDotDataCut: Gopher+ data announced by "+-1" ends with a "."
// line (gopherplus.txt section 2.3); data that ends at the close without
// it was cut, even at the end of a line, and is io.ErrUnexpectedEOF for a
// document, a menu and attribute blocks alike. It was taken as whole: a
// mirror, which fetches every Gopher+ item through the "+" view, stored
// the first lines of a document and exited 0. "+-2" data ends at the
// close.
func TestFetchDotDataCut(t *testing.T) {
	const menu = "0a\t/a\th\t70\t+\r\n0b\t/b\th\t70\t+\r\n"
	const attrs = "+INFO: 0a\t/a\th\t70\t+\r\n+ADMIN:\r\n Admin: x <x@h>\r\n"
	srv := newFake(t, map[string]handler{
		"/text\t\t+":     reply("+-1\r\nline1\r\nline2\r\n"),
		"/bin\t\t+":      reply("+-1\r\n\x00\x01\r\n"),
		"/menu\t\t+":     reply("+-1\r\n" + menu),
		"/a\t\t!":        reply("+-1\r\n" + attrs),
		"/menu\t\t$":     reply("+-1\r\n" + attrs),
		"/text2\t\t+":    reply("+-2\r\nline1\r\nline2\r\n"),
		"/menu2\t\t+":    reply("+-2\r\n" + menu),
		"/a2\t\t!":       reply("+-2\r\n" + attrs),
		"/textdot\t\t+":  reply("+-1\r\nline1\r\nline2\r\n.\r\n"),
		"/menudot\t\t+":  reply("+-1\r\n" + menu + ".\r\n"),
		"/adot\t\t!":     reply("+-1\r\n" + attrs + ".\r\n"),
		"/menudot2\t\t$": reply("+-1\r\n" + attrs + ".\r\n"),
	})
	for _, tt := range []struct {
		url string
		cut bool
	}{
		{"gopher://SRV/0/text%09%09+", true},
		{"gopher://SRV/9/bin%09%09+", true},
		{"gopher://SRV/1/menu%09%09+", true},
		{"gopher://SRV/0/a%09%09!", true},
		{"gopher://SRV/1/menu%09%09$", true},
		{"gopher://SRV/0/text2%09%09+", false},
		{"gopher://SRV/1/menu2%09%09+", false},
		{"gopher://SRV/0/a2%09%09!", false},
		{"gopher://SRV/0/textdot%09%09+", false},
		{"gopher://SRV/1/menudot%09%09+", false},
		{"gopher://SRV/0/adot%09%09!", false},
		{"gopher://SRV/1/menudot2%09%09$", false},
	} {
		t.Run(tt.url, func(t *testing.T) {
			_, body, err := fetchURL(t, &Driver{}, srv, tt.url, nil)
			if tt.cut && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("Fetch = %q, %v; want io.ErrUnexpectedEOF", body, err)
			}
			if !tt.cut && err != nil {
				t.Errorf("Fetch = %v", err)
			}
		})
	}
}

func TestFetchBinary(t *testing.T) {
	data := make([]byte, 300<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	copy(data[1000:], "\r\n.\r\n..\r\n") // looks like a terminator; binary is raw
	srv := newFake(t, map[string]handler{
		"/bin":            reply(string(data)),
		"/short\t\t+":     reply("+100\r\nonly this"),
		"/bin-plus1\t\t+": reply("+-1\r\n..a\r\nb\r\n.\r\n"),
	})
	resp, body, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/9/bin", nil)
	if err != nil || !bytes.Equal(body, data) {
		t.Fatalf("binary: %d bytes, %v; want %d bytes exact", len(body), err, len(data))
	}
	if resp.Name != "bin" || resp.MediaType != "application/octet-stream" {
		t.Errorf("Name, MediaType = %q, %q", resp.Name, resp.MediaType)
	}
	// io.Copy goes through body.WriteTo: into a ReaderFrom and into a plain
	// writer, for raw, length-limited and unstuffed bodies.
	for _, raw := range []string{"/9/bin", "/9/bin-plus1%09%09+", "/0/bin"} {
		for _, plain := range []bool{false, true} {
			resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse("gopher://"+srv.Addr+raw), srv.request(nil))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			var w io.Writer = &buf
			if plain {
				w = struct{ io.Writer }{&buf}
			}
			_, err = io.Copy(w, resp.Body)
			resp.Body.Close()
			want := data
			if raw == "/9/bin-plus1%09%09+" {
				want = []byte("..a\r\nb\r\n")
			}
			if err != nil || (raw != "/0/bin" && !bytes.Equal(buf.Bytes(), want)) || buf.Len() == 0 {
				t.Errorf("io.Copy of %s (plain writer %v): %d bytes, %v", raw, plain, buf.Len(), err)
			}
		}
	}
	// A "+<n>" length that the server does not keep is a lost connection.
	_, _, err = fetchURL(t, &Driver{}, srv, "gopher://SRV/9/short%09%09+", nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short Gopher+ body: %v, want io.ErrUnexpectedEOF", err)
	}
	// "+-1" binary: cut at the "." line, not unstuffed.
	_, body, err = fetchURL(t, &Driver{}, srv, "gopher://SRV/9/bin-plus1%09%09+", nil)
	if err != nil || string(body) != "..a\r\nb\r\n" {
		t.Errorf("+-1 binary = %q, %v", body, err)
	}
}

func TestFetchSearch(t *testing.T) {
	results := "0Result one\t/r1\th\t70\r\n0Result two\t/r2\th\t70\r\n.\r\n"
	srv := newFake(t, map[string]handler{
		"/srch\tgopher protocol": reply(results),
	})
	d := &Driver{}
	// The search string in the URL.
	resp, _, err := fetchURL(t, d, srv, "gopher://SRV/7/srch%09gopher%20protocol", nil)
	if err != nil || len(resp.Entries) != 2 || resp.Kind != proto.KindDirectory {
		t.Fatalf("search in URL: %+v, %v", resp, err)
	}
	// From Request.Search.
	req := srv.request(nil)
	req.Search = "gopher protocol"
	if resp, _, err := fetchURL(t, d, srv, "gopher://SRV/7/srch", req); err != nil || len(resp.Entries) != 2 {
		t.Errorf("Request.Search: %v", err)
	}
	// From the prompt.
	req = srv.request(nil)
	p := &fakePrompter{answers: []string{"gopher protocol"}}
	req.Prompt = p
	if resp, _, err := fetchURL(t, d, srv, "gopher://SRV/7/srch", req); err != nil || len(resp.Entries) != 2 {
		t.Errorf("prompt: %v", err)
	}
	if len(p.asked) != 1 || !p.echo[0] {
		t.Errorf("prompted %q echo %v", p.asked, p.echo)
	}
	// Neither: ErrNeedInput, and nothing dialled.
	dials := 0
	req = srv.request(&dials)
	if _, _, err := fetchURL(t, d, srv, "gopher://SRV/7/srch", req); !errors.Is(err, proto.ErrNeedInput) || dials != 0 {
		t.Errorf("no search: %v (%d dials), want ErrNeedInput and no dial", err, dials)
	}
}

func TestFetchErrors(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"/gone\t\t+":   reply("--1\r\n1 Admin <a@h>\r\nNo such item\r\n.\r\n"),
		"/busy\t\t+":   reply("--2\r\n2 <a@h>\r\nMy load is too high\r\n"),
		"/moved\t\t+":  reply("-28\r\n3 0Here\t/new\tnewhost\t7070\r\n"),
		"/moved2\t\t+": reply("--2\r\n3 somewhere\r\nno descriptor\r\n"),
		"/custom\t\t+": reply("--2\r\n9 odd\r\n"),
		"/plain":       reply("3'/plain' does not exist\t\terror.host\t1\r\n"),
		"/menu":        reply("3No such menu\t\terror.host\t1\r\niSorry\t\terror.host\t1\r\n.\r\n"),
		"/3text":       reply("3 is a number\tbut\tthis\tis text\r\nand it goes on\r\n" + strings.Repeat("x", 5000)),
	})
	d := &Driver{}
	var se *ServerError
	_, _, err := fetchURL(t, d, srv, "gopher://SRV/0/gone%09%09+", nil)
	if !errors.Is(err, proto.ErrNotFound) || !errors.As(err, &se) || se.Code != 1 || se.Admin != "a@h" {
		t.Errorf("--1 code 1: %v, want ErrNotFound", err)
	}
	_, _, err = fetchURL(t, d, srv, "gopher://SRV/0/busy%09%09+", nil)
	if !errors.As(err, &se) || !se.Temporary() || errors.Is(err, proto.ErrNotFound) {
		t.Errorf("code 2: %v, want a temporary *ServerError", err)
	}
	var rd *proto.Redirect
	_, _, err = fetchURL(t, d, srv, "gopher://SRV/0/moved%09%09+", nil)
	if !errors.As(err, &rd) || rd.URL != "gopher://newhost:7070/0/new" {
		t.Errorf("code 3: %v, want a *proto.Redirect to gopher://newhost:7070/0/new", err)
	}
	_, _, err = fetchURL(t, d, srv, "gopher://SRV/0/moved2%09%09+", nil)
	if !errors.As(err, &se) || se.Code != 3 {
		t.Errorf("code 3 without a descriptor: %v", err)
	}
	_, _, err = fetchURL(t, d, srv, "gopher://SRV/0/custom%09%09+", nil)
	if !errors.As(err, &se) || se.Code != 9 {
		t.Errorf("code 9: %v", err)
	}
	for _, u := range []string{"gopher://SRV/0/plain", "gopher://SRV/9/plain", "gopher://SRV/1/menu"} {
		_, _, err = fetchURL(t, d, srv, u, nil)
		if !errors.Is(err, proto.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", u, err)
		}
	}
	// A long text that happens to start like an error line is text.
	if _, body, err := fetchURL(t, d, srv, "gopher://SRV/0/3text", nil); err != nil || len(body) < 5000 {
		t.Errorf("text starting with 3: %d bytes, %v", len(body), err)
	}
}

const pygopherdAttrs = "+-2\r\n" +
	"+INFO: 0hello.txt\t/hello.txt\t127.0.0.1\t70\t+\r\n" +
	"+ADMIN:\r\n" +
	" Admin: Unconfigured Pygopherd Admin <pygopherd@nowhere.nowhere>\r\n" +
	" Mod-Date: Sat Nov 21 11:57:23 2026 <20261121115723>\r\n" +
	"+VIEWS:\r\n" +
	" text/plain: <0k>\r\n" +
	"+ABSTRACT:\r\n" +
	" An abstract\r\n" +
	" line two\r\n"

func TestFetchAttributes(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"/hello.txt\t\t!": reply(pygopherdAttrs),
		// pygopherd answers named blocks with the document itself.
		"/hello.txt\t\t!+ABSTRACT +SMELL": reply("hello\nworld\n"),
		"/good\t\t!+VIEWS":                reply("+-1\r\n+INFO: 0g\t/good\th\t70\t+\r\n+VIEWS:\r\n text/plain: <1k>\r\n.\r\n"),
		"\t\t$":                           reply("+-2\r\n" + dollarExample),
	})
	d := &Driver{}
	resp, body, err := fetchURL(t, d, srv, "gopher://SRV/0/hello.txt%09%09!", nil)
	if err != nil {
		t.Fatal(err)
	}
	attrs, ok := resp.Info["attributes"].([]Attributes)
	if !ok || len(attrs) != 1 || attrs[0].Abstract != "An abstract\nline two" {
		t.Fatalf("attributes = %#v", resp.Info["attributes"])
	}
	if !bytes.Contains(body, []byte("+ABSTRACT:\n An abstract\n line two\n")) || bytes.HasPrefix(body, []byte("+-2")) {
		t.Errorf("Body = %q, want the blocks without the header", body)
	}

	// Named blocks: the server's fallback is detected, "!" asked, the
	// blocks filtered.
	resp, body, err = fetchURL(t, d, srv, "gopher://SRV/0/hello.txt%09%09!+ABSTRACT%20+SMELL", nil)
	if err != nil {
		t.Fatal(err)
	}
	attrs = resp.Info["attributes"].([]Attributes)
	if got := blockNames(attrs[0]); !reflect.DeepEqual(got, []string{"INFO", "ABSTRACT"}) {
		t.Errorf("blocks = %v, want INFO and ABSTRACT", got)
	}
	if attrs[0].Info == nil || attrs[0].Abstract != "An abstract\nline two" {
		t.Errorf("filtered attributes = %+v", attrs[0])
	}
	if bytes.Contains(body, []byte("ADMIN")) {
		t.Errorf("Body = %q, holds a block not asked for", body)
	}
	reqs := srv.Requests()
	if n := len(reqs); n < 2 || reqs[n-2] != "/hello.txt\t\t!+ABSTRACT +SMELL\r\n" || reqs[n-1] != "/hello.txt\t\t!\r\n" {
		t.Errorf("requests = %q", reqs)
	}

	// A server that honours the names: one request, its answer kept.
	resp, _, err = fetchURL(t, d, srv, "gopher://SRV/0/good%09%09!+VIEWS", nil)
	if err != nil || len(resp.Info["attributes"].([]Attributes)[0].Views) != 1 {
		t.Errorf("!+VIEWS: %v", err)
	}

	// "$": every item of a menu.
	resp, _, err = fetchURL(t, d, srv, "gopher://SRV/1%09%09$", nil)
	if err != nil {
		t.Fatal(err)
	}
	if attrs := resp.Info["attributes"].([]Attributes); len(attrs) != 2 || attrs[0].Abstract != "A great recipe for making salmon" {
		t.Errorf("$ attributes = %+v", attrs)
	}
}

func TestFetchView(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"/doc\t\t+application/postscript Es_ES": reply("+11\r\n%!PS-Adobe\n"),
		"/dir\t\t+":                             reply("+-1\r\n0a\t/a\th\t70\t+\r\n.\r\n"),
	})
	resp, body, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/0/doc%09%09+application/postscript%20Es_ES", nil)
	if err != nil || string(body) != "%!PS-Adobe\n" || resp.MediaType != "application/postscript" || resp.Size != 11 {
		t.Errorf("view: %q %q %d %v", body, resp.MediaType, resp.Size, err)
	}
	// "+" on a menu: a Gopher+ menu, the header parsed, not an item.
	resp, _, err = fetchURL(t, &Driver{}, srv, "gopher://SRV/1/dir%09%09+", nil)
	if err != nil || len(resp.Entries) != 1 || resp.Entries[0].Name != "a" {
		t.Errorf("Gopher+ menu: %+v, %v", resp, err)
	}
}

const askAttrs = "+-1\r\n" +
	"+INFO: 1Order\t/order\th\t70\t?\r\n" +
	"+ASK:\r\n" +
	" Note: Fill this in\r\n" +
	" Ask: Your name?\r\n" +
	" AskP: Password?\r\n" +
	" Choose: Size?\tsmall\tlarge\r\n" +
	" AskL: Comments\r\n" +
	".\r\n"

func TestFetchAskForm(t *testing.T) {
	wantForm := "/order\t\t+\t1\r\n+-1\r\nAnn\r\nhunter2\r\nlarge\r\n2\r\nfirst\r\nsecond\r\n.\r\n"
	srv := newFake(t, map[string]handler{
		"/order\t\t!":    reply(askAttrs),
		"/order\t\t+\t1": reply("+-1\r\n0Your order\t/receipt\th\t70\r\n.\r\n"),
	})
	var trace bytes.Buffer
	req := srv.request(nil)
	req.Trace = &trace
	req.Form = map[string]string{"1": "Ann", "Password?": "hunter2", "3": "2", "Comments": "first\nsecond"}
	resp, _, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1/order%09%09?", req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 1 || resp.Entries[0].Name != "Your order" {
		t.Errorf("entries = %+v", resp.Entries)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0] != "/order\t\t!\r\n" || reqs[1] != wantForm {
		t.Errorf("requests =\n%q\nwant\n%q", reqs, []string{"/order\t\t!\r\n", wantForm})
	}
	if strings.Contains(trace.String(), "hunter2") {
		t.Errorf("trace shows a form answer:\n%s", trace.String())
	}
	if !strings.Contains(trace.String(), "> /order\\t\\t+\\t1\n") {
		t.Errorf("trace =\n%s", trace.String())
	}

	// The same through the prompt: AskP without echo.
	p := &fakePrompter{answers: []string{"Bob", "pw", "small", "only line", "."}}
	req = srv.request(nil)
	req.Prompt = p
	if _, _, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1/order%09%09?", req); err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, true, true, true}; !reflect.DeepEqual(p.echo, want) {
		t.Errorf("echo = %v, want %v", p.echo, want)
	}
	reqs = srv.Requests()
	if got, want := reqs[len(reqs)-1], "/order\t\t+\t1\r\n+-1\r\nBob\r\npw\r\nsmall\r\n1\r\nonly line\r\n.\r\n"; got != want {
		t.Errorf("form sent %q, want %q", got, want)
	}

	// No answers and no terminal: ErrNeedInput after the "!" only.
	n := srv.Conns()
	if _, _, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1/order%09%09?", nil); !errors.Is(err, proto.ErrNeedInput) {
		t.Errorf("no answers: %v, want ErrNeedInput", err)
	}
	if got := srv.Conns() - n; got != 1 {
		t.Errorf("%d connections, want 1 (the \"!\")", got)
	}
}

func TestFetchFilledForm(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"sel\t\t+\t1": reply("+5\r\nthank"),
	})
	resp, body, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/0sel%09%09+%091%0D%0A+-1%0D%0Ayes%0D%0A.%0D%0A", nil)
	if err != nil || string(body) != "thank" || resp.Size != 5 {
		t.Fatalf("filled form: %q, %v", body, err)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0] != "sel\t\t+\t1\r\n+-1\r\nyes\r\n.\r\n" {
		t.Errorf("requests = %q", reqs)
	}
}

func TestFetchRedirects(t *testing.T) {
	d := &Driver{}
	tests := []struct{ url, want string }{
		{"gopher://bbs.example:2323/8guest", "telnet://guest@bbs.example:2323/"},
		{"gopher://bbs.example/8", "telnet://bbs.example:70/"},
		{"gopher://ibm.example:23/Tuser", "tn3270://user@ibm.example/"},
		{"gopher://h/hURL:http://example.org/x", "http://example.org/x"},
	}
	for _, tt := range tests {
		dials := 0
		req := &proto.Request{Dial: func(context.Context, string, string) (net.Conn, error) {
			dials++
			return nil, errors.New("no dial expected")
		}}
		_, err := d.Fetch(t.Context(), uri.MustParse(tt.url), req)
		var rd *proto.Redirect
		if !errors.As(err, &rd) || rd.URL != tt.want || dials != 0 {
			t.Errorf("Fetch(%q) = %v (%d dials), want redirect to %q", tt.url, err, dials, tt.want)
		}
	}
}

func TestFetchHostile(t *testing.T) {
	done := t.Context().Done()
	srv := newFake(t, map[string]handler{
		"/silent":            silent(done),
		"/endless-menu":      endless("", "0item\t/x\th\t70\r\n"),
		"/long-line":         endless("0", "x"),
		"/endless-attr\t\t!": endless("+-2\r\n+INFO: 0a\t/a\th\t70\r\n", "+X:\r\n y\r\n"),
		"/endless-text":      endless("", "text line\r\n"),
		"/long-header\t\t+":  endless("+", "1"),
	})
	d := &Driver{MaxMenuBytes: 1 << 20, MaxLine: 1 << 10}
	short := func() *proto.Request {
		r := srv.request(nil)
		r.IdleTimeout = 300 * time.Millisecond
		return r
	}
	var pe *proto.ProtocolError

	start := time.Now()
	_, _, err := fetchURL(t, d, srv, "gopher://SRV/1/silent", short())
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("silent server: %v, want a timeout", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("silent server took %v", time.Since(start))
	}
	if _, _, err := fetchURL(t, d, srv, "gopher://SRV/1/endless-menu", nil); !errors.As(err, &pe) {
		t.Errorf("endless menu: %v, want *proto.ProtocolError", err)
	}
	if _, _, err := fetchURL(t, d, srv, "gopher://SRV/1/long-line", nil); !errors.As(err, &pe) {
		t.Errorf("over-long menu line: %v, want *proto.ProtocolError", err)
	}
	if _, _, err := fetchURL(t, d, srv, "gopher://SRV/0/endless-attr%09%09!", nil); !errors.As(err, &pe) {
		t.Errorf("endless attributes: %v, want *proto.ProtocolError", err)
	}
	if _, _, err := fetchURL(t, d, srv, "gopher://SRV/1/long-header%09%09+", nil); !errors.As(err, &pe) {
		t.Errorf("endless header line: %v, want *proto.ProtocolError", err)
	}

	// Endless text streams: read 2 MiB, then close.
	u := uri.MustParse("gopher://" + srv.Addr + "/0/endless-text")
	resp, err := d.Fetch(t.Context(), u, srv.request(nil))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyN(io.Discard, resp.Body, 2<<20)
	if n != 2<<20 || err != nil {
		t.Errorf("endless text: read %d, %v", n, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	resp.Body.Close()

	// Cancelling the context stops a body.
	ctx, cancel := context.WithCancel(t.Context())
	resp, err = d.Fetch(ctx, u, srv.request(nil))
	if err != nil {
		t.Fatal(err)
	}
	io.CopyN(io.Discard, resp.Body, 1<<16)
	cancel()
	errc := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); errc <- err }()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("body read after cancel ended without error")
		}
	case <-time.After(5 * time.Second):
		t.Error("body read did not stop after cancel")
	}
	resp.Body.Close()
}

func TestList(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"":     reply("1Sub\t/sub\th\t70\r\n0File\t/f\th\t70\r\n"),
		"/txt": reply("just text\r\n"),
	})
	req := srv.request(nil)
	req.Raw = true // List parses whatever the caller's Raw says
	entries, _, err := proto.ListAll(t.Context(), &Driver{}, uri.MustParse("gopher://"+srv.Addr+"/"), req)
	if err != nil || len(entries) != 2 || entries[0].Type != proto.EntryDir {
		t.Errorf("List = %+v, %v", entries, err)
	}
	if _, _, err := proto.ListAll(t.Context(), &Driver{}, uri.MustParse("gopher://"+srv.Addr+"/0/txt"), srv.request(nil)); err == nil {
		t.Error("List of a text item succeeded")
	}
}

func TestRawMenu(t *testing.T) {
	menu := "+-1\r\n0a\t/a\th\t70\r\n.\r\n"
	srv := newFake(t, map[string]handler{"\t\t+": reply(menu)})
	req := srv.request(nil)
	req.Raw = true
	resp, body, err := fetchURL(t, &Driver{}, srv, "gopher://SRV/1%09%09+", req)
	if err != nil || resp.Kind != proto.KindData || string(body) != "0a\t/a\th\t70\r\n" {
		t.Errorf("raw menu: kind %v body %q, %v", resp.Kind, body, err)
	}
}

func TestConformance(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"small":   reply("hello\r\n..world\r\n.\r\n"),
		"endless": endless("", strings.Repeat("z", 1000)+"\r\n"),
	})
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Small:   "gopher://" + srv.Addr + "/0small",
		Want:    []byte("hello\r\n.world\r\n"),
		Endless: "gopher://" + srv.Addr + "/9endless",
		Unsafe: func(payload string) *uri.URL {
			return &uri.URL{Scheme: "gopher", HasAuthority: true, Host: "127.0.0.1", Port: portOf(srv.Addr),
				Path: "/0" + uri.Escape(payload, "")}
		},
		Wire: srv.Wire,
	})
	// The search and the gopher+_string are checked as well.
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Endless: "gopher://" + srv.Addr + "/9endless",
		Unsafe: func(payload string) *uri.URL {
			return &uri.URL{Scheme: "gopher", HasAuthority: true, Host: "127.0.0.1", Port: portOf(srv.Addr),
				Path: "/7s%09" + uri.Escape(payload, "") + "%09" + uri.Escape("+"+payload, "")}
		},
		Wire: srv.Wire,
	})
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

func TestItemName(t *testing.T) {
	tests := []struct{ typ, sel, want string }{
		{"9", "/pub/file.bin", "file.bin"},
		{"0", "/docs/", "docs"},
		{"0", "readme", "readme"},
		{"1", "/dir", ""},
		{"7", "/search", ""},
		{"0", "", ""},
		{"0", "/", ""},
		{"0", "/a/..", ""},
		{"0", "/evil\x1b[2J", ""},
		{"0", "/win\\name", ""},
		{"0", "/caf\u00e9.txt", "caf\u00e9.txt"},
	}
	for _, tt := range tests {
		if got := itemName(tt.typ, tt.sel); got != tt.want {
			t.Errorf("itemName(%q, %q) = %q, want %q", tt.typ, tt.sel, got, tt.want)
		}
	}
}

// Gophernicus answers a selector it cannot serve with one line of text
// ("Error: File or directory not found! (null)"), for a menu as for a
// document, not with a type 3 item (RFC 1436 section 3.8): that whole
// response is ErrNotFound too, not a menu of one info line nor a document
// that says so. A document that begins with such a line and goes on is a
// document.
func TestGophernicusErrorLine(t *testing.T) {
	const notFound = "Error: File or directory not found! (null)\r\n"
	srv := newFake(t, map[string]handler{
		"/gone":   reply(notFound),
		"/denied": reply("Error: Access denied! File or directory not world-readable\r\n"),
		"/longer": reply(notFound + "and the rest of a real document\r\n"),
		"/other":  reply("Error: something else\r\n"),
	})
	d := &Driver{}
	for _, u := range []string{"gopher://SRV/0/gone", "gopher://SRV/1/gone", "gopher://SRV/9/gone", "gopher://SRV/0/denied"} {
		if _, _, err := fetchURL(t, d, srv, u, nil); !errors.Is(err, proto.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", u, err)
		}
	}
	for u, want := range map[string]string{
		"gopher://SRV/0/longer": notFound + "and the rest of a real document\r\n",
		"gopher://SRV/0/other":  "Error: something else\r\n",
	} {
		if _, body, err := fetchURL(t, d, srv, u, nil); err != nil || string(body) != want {
			t.Errorf("%s: %q, %v; want the document", u, body, err)
		}
	}
}

// A menu that gives no item is an error, unless it says it is empty: its
// "." line alone (RFC 1436, appendix: Menu ::= {DirEntity} Lastline) or a
// Gopher+ length. Nothing at all is ErrEmptyMenu; a menu of lines that are
// no menu lines (binary garbage) is a *proto.ProtocolError; a menu with
// some such lines gives its items, and the lines in Info[InfoUnparsed].
func TestFetchMenuWithoutItems(t *testing.T) {
	srv := newFake(t, map[string]handler{
		"/nothing":    reply(""),
		"/blank":      reply("\r\n\r\n"),
		"/dot":        reply(".\r\n"),
		"/plus0\t\t+": reply("+0\r\n"),
		"/nul":        reply(strings.Repeat("\x00\x00\x00\r\n", 20)),
		"/nuldot":     reply("\x00\x00\r\n.\r\n"),
		"/badport":    reply("0a\t/a\th\tabc\r\n"),
		"/some":       reply("0a\t/a\th\tabc\r\n0b\t/b\th\t70\r\n\x00\r\n.\r\n"),
		"/info":       reply("iJust words\tfake\t(NULL)\t0\r\n"),
		"/find\tzzz":  reply(""),
		"/find\tnul":  reply("\x00\r\n"),
	})
	for _, tt := range []struct {
		url      string
		err      error // errors.Is; nil: success
		items    int
		unparsed []string
	}{
		{"gopher://SRV/1/nothing", ErrEmptyMenu, 0, nil},
		{"gopher://SRV/1/blank", ErrEmptyMenu, 0, nil},
		{"gopher://SRV/1/dot", nil, 0, nil},
		{"gopher://SRV/1/plus0%09%09+", nil, 0, nil},
		{"gopher://SRV/1/nul", proto.ErrProtocol, 0, nil},
		{"gopher://SRV/1/nuldot", proto.ErrProtocol, 0, nil},
		{"gopher://SRV/1/badport", proto.ErrProtocol, 0, nil},
		{"gopher://SRV/1/some", nil, 1, []string{"0a\t/a\th\tabc", "\x00"}},
		{"gopher://SRV/1/info", nil, 1, nil},
		// A search that finds nothing: no hits, not a broken server.
		{"gopher://SRV/7/find%09zzz", nil, 0, nil},
		{"gopher://SRV/7/find%09nul", proto.ErrProtocol, 0, nil},
	} {
		t.Run(tt.url, func(t *testing.T) {
			resp, _, err := fetchURL(t, &Driver{}, srv, tt.url, nil)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !errors.Is(err, proto.ErrProtocol) {
					t.Fatalf("Fetch = %v, want %v (proto.ErrProtocol)", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := resp.Info[InfoUnparsed].([]string)
			if len(resp.Entries) != tt.items || !reflect.DeepEqual(got, tt.unparsed) {
				t.Errorf("%d entries, Info[%q] = %q; want %d, %q", len(resp.Entries), InfoUnparsed, got, tt.items, tt.unparsed)
			}
		})
	}
}
