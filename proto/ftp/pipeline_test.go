package ftp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// RFC 2428 section 3: the reply to EPSV is 229 with the port between
// three delimiters and one, "(|||6446|)"; the delimiter is any printable
// character in the range 33-126 (the RFC recommends "|"), and the
// network protocol and address fields are left empty.
func TestParseEPSV(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		port int // 0: an error
	}{
		{"Entering Extended Passive Mode (|||6446|)", 6446},
		{"Entering Extended Passive Mode (|||6446|).", 6446},
		{"(|||1|)", 1},
		{"(|||65535|)", 65535},
		{"ok (!!!21!)", 21},              // another delimiter
		{"Entering (#\x23#2121#)", 2121}, // "#", written two ways
		{"Entering Extended Passive Mode (|||65536|)", 0},
		{"Entering Extended Passive Mode (|||0|)", 0},
		{"Entering Extended Passive Mode (||||)", 0},
		{"Entering Extended Passive Mode (|1|::1|6446|)", 0}, // fields must be empty
		{"Entering Extended Passive Mode (111211)", 0},       // a digit cannot delimit
		{"Entering Extended Passive Mode (   6446 )", 0},     // nor can a space
		{"Entering Extended Passive Mode (|||64a6|)", 0},
		{"Entering Extended Passive Mode (|||+6446|)", 0},
		{"Entering Extended Passive Mode (|||006446|)", 0}, // more than five digits
		{"Entering Extended Passive Mode |||6446|", 0},
		{"Entering Extended Passive Mode (|||6446|", 0},
		{"Entering Extended Passive Mode (||6446|)", 0},
		{"Entering Extended Passive Mode (|||6446:)", 0},
		{"", 0},
	} {
		port, err := parseEPSV(tt.msg)
		if tt.port == 0 {
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("parseEPSV(%q) = %d, %v; want a *proto.ProtocolError", tt.msg, port, err)
			}
			continue
		}
		if err != nil || port != tt.port {
			t.Errorf("parseEPSV(%q) = %d, %v; want %d", tt.msg, port, err, tt.port)
		}
	}
}

// FuzzParseEPSV: no reply makes the parser panic, a port is always in
// 1-65535, and the error names the reply.
func FuzzParseEPSV(f *testing.F) {
	for _, s := range []string{"Entering Extended Passive Mode (|||6446|)", "(!!!1!)", "(|||)", "((|||9|)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		port, err := parseEPSV(msg)
		if err != nil {
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, "EPSV reply") {
				t.Errorf("parseEPSV(%q): error %q is no protocol error naming what it parsed", msg, err)
			}
			return
		}
		if port < 1 || port > 65535 {
			t.Errorf("parseEPSV(%q) = %d", msg, port)
		}
		// The port is the number the reply ends its first (...) with
		// (RFC 2428 section 3: "(<d><d><d><tcp-port><d>)").
		open := strings.IndexByte(msg, '(')
		inner := msg[open : open+strings.IndexByte(msg[open:], ')')+1]
		d := inner[1:2]
		if !strings.HasPrefix(inner, "("+d+d+d) || !strings.HasSuffix(inner, d+")") ||
			strings.TrimLeft(inner[4:len(inner)-2], "0") != strconv.Itoa(port) {
			t.Errorf("parseEPSV(%q) = %d, not the reply's port", msg, port)
		}
	})
}

// startPiped starts f and returns a Driver that pipelines and keeps one
// connection (closed at the end of the test), with a request as a
// mirror's: no SIZE or MDTM, no type guess, short timeouts.
func startPiped(t *testing.T, f *fakeFTP) (*Driver, *proto.Request) {
	f.start()
	d := New(Config{PipelinePassive: true, MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1})
	t.Cleanup(d.CloseIdleConnections)
	req := quickReq()
	req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true}}
	return d, req
}

// With PipelinePassive, the EPSV of the next retrieval goes out before the
// 226 of the current one is read. The fake sends its 226 only once the
// next command has arrived, so a client that waits for it first fails
// with a timeout.
func TestPipelinedRetrieval(t *testing.T) {
	f := newFake(t)
	f.holdDone = true
	f.files = map[string][]byte{"a": []byte("first"), "b": []byte("second file"), "c": {}}
	d, req := startPiped(t, f)
	for _, name := range []string{"a", "b", "c"} {
		_, body, err := get(t, d, f.url("/"+name), req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(body, f.files[name]) {
			t.Fatalf("%s: got %q, want %q", name, body, f.files[name])
		}
	}
	d.CloseIdleConnections()
	want := commands(anonLogin + "TYPE I|EPSV|RETR a|EPSV|RETR b|EPSV|RETR c|EPSV|QUIT")
	waitSent(t, f, want)
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// waitSent waits (briefly) for the fake to have recorded want, and
// reports the difference.
func waitSent(t *testing.T, f *fakeFTP, want string) {
	t.Helper()
	f.changed.Until(2*time.Second, func() bool { return f.sent() == want })
	if got := f.sent(); got != want {
		t.Errorf("sent:\n%s\nwant:\n%s", got, want)
	}
}

// Without PipelinePassive the 226 is read first, as RFC 959 section 5.4
// draws the exchange: against the holding fake, the second retrieval never
// starts and the first one ends with a timeout.
func TestUnpipelinedWaitsForCompletion(t *testing.T) {
	f := newFake(t)
	f.holdDone = true
	f.files = map[string][]byte{"a": []byte("first")}
	f.start()
	d := New(Config{MaxIdleConnsPerHost: 1})
	defer d.CloseIdleConnections()
	req := &proto.Request{ConnectTimeout: time.Second, IdleTimeout: 300 * time.Millisecond}
	req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true}}
	if _, _, err := get(t, d, f.url("/a"), req); err == nil || !isTimeout(err) {
		t.Fatalf("got %v, want a timeout waiting for the 226", err)
	}
}

// A command of the library (CWD to another directory, a listing) after a
// prefetched EPSV first reads the 229 owed to it, so every reply still
// goes to the command that asked for it.
func TestPipelinedThenOtherCommands(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("in root"), "b": []byte("in sub")}
	f.lists = map[string][]byte{"LIST": []byte("-rw-r--r-- 1 u g 7 Jan 01 2024 a\r\n")}
	d, req := startPiped(t, f)
	if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "in root" {
		t.Fatalf("a: %q, %v", body, err)
	}
	if _, body, err := get(t, d, f.url("/sub/b"), req); err != nil || string(body) != "in sub" {
		t.Fatalf("sub/b: %q, %v", body, err)
	}
	resp, _, err := get(t, d, f.url("/"), quickReq())
	if err != nil || len(resp.Entries) != 1 || resp.Entries[0].Name != "a" {
		t.Fatalf("listing: %+v, %v", resp, err)
	}
	// SIZE and MDTM through the library, after a prefetch.
	resp, body, err := get(t, d, f.url("/a"), quickReq())
	if err != nil || string(body) != "in root" || resp.Size != 7 {
		t.Fatalf("a with SIZE: %q, %+v, %v", body, resp, err)
	}
	d.CloseIdleConnections()
	// The EPSV sent ahead serves the next transfer across CWD and SYST:
	// none is sent again. (A listing sends none ahead.)
	want := commands(anonLogin + "TYPE I|EPSV|RETR a|EPSV|CWD sub|RETR b|EPSV|CWD /|SYST|LIST|" +
		"SIZE a|MDTM a|EPSV|RETR a|EPSV|QUIT")
	waitSent(t, f, want)
	if n := f.connCount(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// A server that refuses EPSV: the retrieval goes on with PASV, through the
// library, and later retrievals on the connection do not try EPSV again.
func TestPipelinedEPSVRefused(t *testing.T) {
	f := newFake(t)
	f.noEPSV = true
	f.files = map[string][]byte{"a": []byte("one"), "b": []byte("two")}
	d, req := startPiped(t, f)
	for _, name := range []string{"a", "b"} {
		if _, body, err := get(t, d, f.url("/"+name), req); err != nil || !bytes.Equal(body, f.files[name]) {
			t.Fatalf("%s: %q, %v", name, body, err)
		}
	}
	d.CloseIdleConnections()
	// Ours, then the library's own EPSV, then PASV from then on.
	want := commands(anonLogin + "TYPE I|EPSV|EPSV|PASV|RETR a|PASV|RETR b|QUIT")
	waitSent(t, f, want)
}

// A refused RETR, a transfer cut short and a reply that answers twice are
// errors that name RETR, and a later retrieval still gets the right bytes:
// with the next EPSV sent after the data, and with it sent along with the
// RETR (a vsftpd greeting).
func TestPipelinedFailures(t *testing.T) {
	for _, greeting := range []string{"220 fake ready", "220 (vsFTPd 3.0.3)"} {
		t.Run(greeting, func(t *testing.T) { testPipelinedFailures(t, greeting) })
	}
}

func testPipelinedFailures(t *testing.T, greeting string) {
	t.Run("refused", func(t *testing.T) {
		f := newFake(t)
		f.greeting = greeting
		f.files = map[string][]byte{"a": []byte("one")}
		d, req := startPiped(t, f)
		_, _, err := get(t, d, f.url("/missing"), req)
		if code := replyCode(err); code != StatusFileUnavailable {
			t.Fatalf("missing: %v (code %d), want 550", err, code)
		}
		if cmd := failedCmd(err); cmd != "RETR missing" {
			t.Errorf("error %q names command %q, want RETR missing", err, cmd)
		}
		if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "one" {
			t.Fatalf("a after a refusal: %q, %v", body, err)
		}
		if n := f.connCount(); n != 1 {
			t.Errorf("%d control connections, want 1 (the refusal does not end the connection)", n)
		}
	})
	t.Run("cut", func(t *testing.T) {
		f := newFake(t)
		f.greeting = greeting
		f.cutAt = 3
		f.files = map[string][]byte{"a": []byte("0123456789"), "b": []byte("01")}
		d, req := startPiped(t, f)
		_, body, err := get(t, d, f.url("/a"), req)
		if replyCode(err) != StatusTransferAborted || failedCmd(err) != "RETR a" {
			t.Fatalf("a: %q, %v; want the 426 of RETR a", body, err)
		}
		if _, body, err := get(t, d, f.url("/b"), req); err != nil || string(body) != "01" {
			t.Fatalf("b after a cut transfer: %q, %v", body, err)
		}
	})
	t.Run("answers twice", func(t *testing.T) {
		f := newFake(t)
		f.greeting = greeting
		f.epsvJunk = "200 unasked"
		f.files = map[string][]byte{"a": []byte("one")}
		d, req := startPiped(t, f)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		u := mustParse(t, f.url("/a"))
		resp, err := d.Fetch(ctx, u, req)
		if err == nil {
			resp.Body.Close()
			t.Fatal("a server that answered EPSV twice: no error")
		}
	})
}

// A server that names itself vsftpd in its greeting reads no command
// during a transfer: the next EPSV goes out as soon as the 150 has come,
// before the data. Any other server gets it only once the data has ended.
func TestPipelinedEarlyEPSV(t *testing.T) {
	for _, tt := range []struct {
		greeting string
		hold     time.Duration
		early    bool
	}{
		{"220 (vsFTPd 3.0.3)", 5 * time.Second, true},
		{"220 fake ready", 200 * time.Millisecond, false},
	} {
		t.Run(tt.greeting, func(t *testing.T) {
			f := newFake(t)
			f.greeting = tt.greeting
			f.holdData = tt.hold
			f.files = map[string][]byte{"a": []byte("first"), "b": []byte("second file")}
			d, req := startPiped(t, f)
			start := time.Now()
			for _, name := range []string{"a", "b"} {
				if _, body, err := get(t, d, f.url("/"+name), req); err != nil || !bytes.Equal(body, f.files[name]) {
					t.Fatalf("%s: %q, %v", name, body, err)
				}
			}
			d.CloseIdleConnections()
			waitSent(t, f, commands(anonLogin+"TYPE I|EPSV|RETR a|EPSV|RETR b|EPSV|QUIT"))
			f.mu.Lock()
			mid := strings.Join(f.midXfer, ",")
			f.mu.Unlock()
			switch {
			case tt.early && mid != "EPSV,EPSV":
				t.Errorf("commands during the transfers: %q, want EPSV,EPSV", mid)
			case tt.early && time.Since(start) > 3*time.Second:
				t.Errorf("took %v: the early EPSV did not reach the server", time.Since(start))
			case !tt.early && mid != "":
				t.Errorf("commands during the transfers: %q, want none", mid)
			}
		})
	}
}

// A listing on a pipelining driver is read by the driver itself: it uses
// the EPSV prefetched by the retrieval before it (the library would have
// dropped that one and sent its own), and the listing, longer than one
// read, comes back whole and parsed. LIST, MLSD (when FEAT lists MLST,
// RFC 3659 section 7) and NLST (;type=d, RFC 1738 section 3.2.2) alike.
func TestPipelinedListing(t *testing.T) {
	var ls, mlsd, nlst strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&ls, "-rw-r--r--    1 0        0              %d Feb 03  2001 f%04d.txt\r\n", i, i)
		fmt.Fprintf(&mlsd, "type=file;size=%d;modify=20010203040506; f%04d.txt\r\n", i, i)
		fmt.Fprintf(&nlst, "f%04d.txt\r\n", i)
	}
	for _, tt := range []struct {
		name, path, verb string
		mlst             bool
		body             string
	}{
		{"LIST", "/", "LIST", false, ls.String()},
		{"MLSD", "/", "MLSD", true, mlsd.String()},
		{"NLST", "/;type=d", "NLST", false, nlst.String()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			if tt.mlst {
				f.feat = append(f.feat, "MLST type*;size*;modify*;")
			}
			f.files = map[string][]byte{"a": []byte("one")}
			f.lists = map[string][]byte{tt.verb: []byte(tt.body)}
			d, req := startPiped(t, f)
			if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "one" {
				t.Fatalf("a: %q, %v", body, err)
			}
			resp, body, err := get(t, d, f.url(tt.path), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Entries) != 3000 || resp.Entries[2999].Name != "f2999.txt" {
				t.Fatalf("%d entries, want 3000 ending in f2999.txt", len(resp.Entries))
			}
			if tt.verb != "NLST" {
				if e := resp.Entries[1234]; e.Size != 1234 || e.ModTime.Year() != 2001 {
					t.Errorf("entry 1234: %+v", e)
				}
				if string(body) != tt.body {
					t.Errorf("the listing's bytes differ from what the server sent")
				}
			}
			if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "one" {
				t.Fatalf("a after the listing: %q, %v", body, err)
			}
			d.CloseIdleConnections()
			// Before its first LIST (not MLSD or NLST) a connection asks
			// SYST once; the EPSV prefetched before it serves the listing
			// all the same.
			list := tt.verb
			if tt.verb == "LIST" {
				list = "SYST|LIST"
			}
			waitSent(t, f, commands(anonLogin+"TYPE I|EPSV|RETR a|EPSV|"+list+"|EPSV|RETR a|EPSV|QUIT"))
			if n := f.connCount(); n != 1 {
				t.Errorf("%d control connections, want 1", n)
			}
		})
	}
}

// A listing refused, one longer than Driver.MaxListing and a server that
// refuses EPSV: the errors name the listing command; a refusal keeps the
// connection, an overlong listing ends it (its completion reply is still
// owed), and without EPSV the library lists after PASV.
func TestPipelinedListingFailures(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		f := newFake(t)
		f.files = map[string][]byte{"a": []byte("one")}
		d, req := startPiped(t, f)
		_, _, err := get(t, d, f.url("/missing/"), req)
		if replyCode(err) != StatusFileUnavailable || !strings.HasPrefix(failedCmd(err), "LIST") {
			t.Fatalf("got %v, want the 550 of LIST", err)
		}
		if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "one" {
			t.Fatalf("a after a refused listing: %q, %v", body, err)
		}
		if n := f.connCount(); n != 1 {
			t.Errorf("%d control connections, want 1 (a refusal keeps the connection)", n)
		}
	})
	t.Run("too long", func(t *testing.T) {
		f := newFake(t)
		f.files = map[string][]byte{"a": []byte("one")}
		f.lists = map[string][]byte{"LIST": bytes.Repeat([]byte("-rw-r--r-- 1 u g 7 Jan 01 2024 a\r\n"), 1000)}
		d, req := startPiped(t, f)
		d.MaxListing = 4096
		_, _, err := get(t, d, f.url("/"), req)
		var pe *proto.ProtocolError
		if !errors.As(err, &pe) || !strings.HasPrefix(failedCmd(err), "LIST") || pe.Msg != "listing longer than 4096 bytes" {
			t.Fatalf("got %v, want LIST: listing longer than 4096 bytes", err)
		}
		if _, body, err := get(t, d, f.url("/a"), req); err != nil || string(body) != "one" {
			t.Fatalf("a after an overlong listing: %q, %v", body, err)
		}
		if n := f.connCount(); n != 2 {
			t.Errorf("%d control connections, want 2 (the first one ends with the overlong listing)", n)
		}
	})
	t.Run("over the request's ListingCap", func(t *testing.T) {
		f := newFake(t)
		f.lists = map[string][]byte{"LIST": bytes.Repeat([]byte("-rw-r--r-- 1 u g 7 Jan 01 2024 a\r\n"), 1000)}
		d, req := startPiped(t, f)
		req.Options.ListingCap = 4096
		if _, _, err := get(t, d, f.url("/"), req); !errors.Is(err, proto.ErrProtocol) {
			t.Fatalf("got %v, want proto.ErrProtocol", err)
		}
		req.Options.ListingCap = 0
		if resp, _, err := get(t, d, f.url("/"), req); err != nil || len(resp.Entries) != 1000 {
			t.Fatalf("without the cap: %v", err)
		}
	})
	t.Run("EPSV refused", func(t *testing.T) {
		f := newFake(t)
		f.noEPSV = true
		f.lists = map[string][]byte{"LIST": []byte("-rw-r--r-- 1 u g 7 Jan 01 2024 a\r\n")}
		d, req := startPiped(t, f)
		resp, _, err := get(t, d, f.url("/"), req)
		if err != nil || len(resp.Entries) != 1 {
			t.Fatalf("listing: %+v, %v", resp, err)
		}
		d.CloseIdleConnections()
		waitSent(t, f, commands(anonLogin+"SYST|EPSV|EPSV|PASV|LIST|QUIT"))
	})
}

// vsftpd's data connections are half-closed by the client as soon as they
// are open, for a file and for a listing alike, and the bytes still come
// whole; any other server's are left open both ways until the end.
func TestPipelinedHalfClose(t *testing.T) {
	for _, tt := range []struct {
		greeting string
		half     bool
	}{
		{"220 (vsFTPd 3.0.3)", true},
		{"220 fake ready", false},
	} {
		t.Run(tt.greeting, func(t *testing.T) {
			f := newFake(t)
			f.greeting = tt.greeting
			f.peekHalf = true
			f.files = map[string][]byte{"a": bytes.Repeat([]byte("0123456789"), 10000)}
			f.lists = map[string][]byte{"LIST": []byte("-rw-r--r-- 1 u g 100000 Jan 01 2024 a\r\n")}
			d, req := startPiped(t, f)
			if _, body, err := get(t, d, f.url("/a"), req); err != nil || !bytes.Equal(body, f.files["a"]) {
				t.Fatalf("a: %d bytes, %v", len(body), err)
			}
			if resp, _, err := get(t, d, f.url("/"), req); err != nil || len(resp.Entries) != 1 {
				t.Fatalf("listing: %+v, %v", resp, err)
			}
			f.mu.Lock()
			halves := fmt.Sprint(f.halves)
			f.mu.Unlock()
			if want := fmt.Sprint([]bool{tt.half, tt.half}); halves != want {
				t.Errorf("half-closed data connections (file, listing): %s, want %s", halves, want)
			}
		})
	}
}

// vsftpd answers an EPSV with "500 OOPS: vsf_sysutil_bind" and ends the
// session when it finds no free passive port. That is no refusal of EPSV:
// the retrieval goes on, with EPSV, on a new connection (the library's
// PASV is never tried on the dead one).
func TestPipelinedVsftpdOOPS(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.oopsEPSV = 2 // the EPSV sent with RETR a, for b
	f.files = map[string][]byte{"a": []byte("one"), "b": []byte("two")}
	d, req := startPiped(t, f)
	var trace bytes.Buffer
	req.Trace = &trace
	for _, name := range []string{"a", "b"} {
		if _, body, err := get(t, d, f.url("/"+name), req); err != nil || !bytes.Equal(body, f.files[name]) {
			t.Fatalf("%s: %q, %v", name, body, err)
		}
	}
	d.CloseIdleConnections()
	if strings.Contains(f.sent(), "PASV") || strings.Contains(trace.String(), "EPSV refused") {
		t.Errorf("the OOPS was taken for a refusal of EPSV:\n%s", trace.String())
	}
	if n := f.connCount(); n != 2 {
		t.Errorf("%d control connections, want 2", n)
	}
}

// vsftpd's "500 OOPS" to the EPSV of a new session is the server failing
// for now (no free passive port), not a break of the protocol: the error
// wraps proto.ErrBusy (exit 5, tried again), never proto.ErrProtocol
// (exit 9).
func TestVsftpdOOPSNotProtocol(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.oopsEPSV = 1
	f.files = map[string][]byte{"a": []byte("one")}
	d, req := startPiped(t, f)
	_, _, err := get(t, d, f.url("/a"), req)
	if !errors.Is(err, proto.ErrBusy) || errors.Is(err, proto.ErrProtocol) {
		t.Errorf("Fetch = %v, want proto.ErrBusy and not proto.ErrProtocol", err)
	}
}

// TestListingLean: with Options.FTP.Lean (the mirror's listings) the
// entries hold no URL and no Extra but "unique" and "vms_version": a map
// for each entry was most of the memory of a listing of many; the body
// is the listing's bytes all the same.
func TestListingLean(t *testing.T) {
	f := newFake(t)
	// The last line is ls in German, read with the whole listing
	// (months.go): lean too.
	list := "-rw-r--r-- 1 u g 7 Jan 01 2024 a\r\ndrwxr-xr-x 2 u g 4096 Jan 01 2024 d\r\n-rw-r--r-- 1 u g 9  5. Okt 2019 o\r\n"
	f.lists = map[string][]byte{"LIST": []byte(list)}
	d, req := startPiped(t, f)
	resp, body, err := get(t, d, f.url("/"), req)
	if err != nil || len(resp.Entries) != 3 || resp.Entries[0].URL == "" || resp.Entries[0].Extra["perm"] == "" || resp.Entries[2].Extra["perm"] == "" || string(body) != list {
		t.Fatalf("without Lean: %+v, body %q, %v; want URL and perm", resp, body, err)
	}
	req.Options.FTP.Lean = true
	resp, body, err = get(t, d, f.url("/"), req)
	if err != nil || len(resp.Entries) != 3 || string(body) != list {
		t.Fatalf("Lean: %+v, body %q, %v", resp, body, err)
	}
	for _, e := range resp.Entries {
		if e.URL != "" || e.Extra != nil || e.Name == "" || e.Size < 0 {
			t.Errorf("Lean entry %+v, want a name and size, no URL, no Extra", e)
		}
	}
}

// TestLean: lean keeps of Extra what the mirror reads, the MLSD unique
// fact (RFC 3659 section 7.5.2) and the VMS version, and nothing else.
func TestLean(t *testing.T) {
	for _, tc := range []struct {
		extra, want map[string]string
	}{
		{nil, nil},
		{map[string]string{"perm": "-rw-r--r--", "owner": "u"}, nil},
		{map[string]string{"unique": "802U1", "perm": "r"}, map[string]string{"unique": "802U1"}},
		{map[string]string{"vms_version": "3", "blocks": "1"}, map[string]string{"vms_version": "3"}},
	} {
		e := proto.Entry{Extra: tc.extra}
		lean(&e)
		if !maps.Equal(e.Extra, tc.want) || (tc.want == nil) != (e.Extra == nil) {
			t.Errorf("lean(%v) = %v, want %v", tc.extra, e.Extra, tc.want)
		}
	}
}

// TestListingChunks: a listing of several MiB is read in chunks of whole
// lines (capture): every entry keeps its whole name, a line longer than
// a chunk too, wherever the reads cut the data, and the body is the
// listing byte for byte.
func TestListingChunks(t *testing.T) {
	f := newFake(t)
	var b strings.Builder
	var want []string
	for i := range 40_000 {
		name := fmt.Sprintf("f%d-%s", i, strings.Repeat("x", i%97))
		if i == 20_000 {
			name = strings.Repeat("L", captureChunk+captureChunk/2)
		}
		fmt.Fprintf(&b, "-rw-r--r-- 1 u g %d Jan 01 2024 %s\r\n", i, name)
		want = append(want, name)
	}
	list := b.String()
	f.lists = map[string][]byte{"LIST": []byte(list)}
	d, req := startPiped(t, f)
	req.Options.FTP.Lean = true
	resp, body, err := get(t, d, f.url("/"), req)
	if err != nil || string(body) != list || resp.Size != int64(len(list)) {
		t.Fatalf("%v; body of %d bytes (size %d), want %d", err, len(body), resp.Size, len(list))
	}
	if len(resp.Entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(resp.Entries), len(want))
	}
	for i, e := range resp.Entries {
		if e.Name != want[i] || e.Size != int64(i) {
			t.Fatalf("entry %d: %d bytes of name, size %d; want %d, %d", i, len(e.Name), e.Size, len(want[i]), i)
		}
	}
}

// failedCmd returns the command a *CommandError in err's chain names
// ("RETR a", "LIST"), or "".
func failedCmd(err error) string {
	var ce *CommandError
	if errors.As(err, &ce) {
		return ce.Cmd
	}
	return ""
}

// The EPSV sent ahead after a retrieval serves the next one in another
// directory: its port stays open across the CWDs (RFC 959 section 4.1.2),
// so no EPSV is sent and thrown away. A server that closes the port on
// CWD costs one more EPSV, not a failed retrieval.
func TestEPSVAheadAcrossCWD(t *testing.T) {
	for _, shuts := range []bool{false, true} {
		f := newFake(t)
		f.files = map[string][]byte{"a": []byte("in x"), "b": []byte("in y")}
		f.cwdShuts = shuts
		d, req := startPiped(t, f)
		for _, u := range []string{"/x/a", "/y/b", "/x/a"} {
			if _, _, err := get(t, d, f.url(u), req); err != nil {
				t.Fatalf("shuts %v: %s: %v", shuts, u, err)
			}
		}
		d.CloseIdleConnections()
		want := "CWD x|TYPE I|EPSV|RETR a|EPSV|CWD /|CWD y|RETR b|EPSV|CWD /|CWD x|RETR a|EPSV|QUIT"
		if shuts {
			want = "CWD x|TYPE I|EPSV|RETR a|EPSV|CWD /|CWD y|EPSV|RETR b|EPSV|CWD /|CWD x|EPSV|RETR a|EPSV|QUIT"
		}
		waitSent(t, f, commands(anonLogin+want))
	}
}

// A mirror's listing from vsftpd, on a connection whose EPSV went ahead,
// sends its one CWD (the segment below the connection's directory, or
// the absolute path) in the write of its LIST: a listing costs one round
// trip, not two. A refused CWD drops the listing that went with it (of
// the directory the connection was in: no entry is handed over), and the
// directory is entered the plain way: the listing is that of the
// directory, or the refusal its error.
func TestListLeadCWD(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.lists["LIST"] = []byte("-rw-r--r--   1 ftp  ftp  1 Jan 01  2020 a\r\n")
	f.replies["CWD /gone"] = "550 no such directory"
	f.replies["CWD gone"] = "550 no such directory"
	f.replies["CWD /alt"] = "550 not by that path" // but segment by segment
	d, req := startPiped(t, f)
	w := &writeLog{}
	req.Dial = w.dial
	req.Options.FTP.ListAhead, req.Options.FTP.DirectCWD = true, true
	list := func(p string) (int, error) {
		n := 0
		_, err := d.List(t.Context(), uri.MustParse(f.url(p)), req, func(proto.Entry) error { n++; return nil })
		return n, err
	}
	for _, p := range []string{"/x/", "/x/y/", "/z/", "/alt/"} {
		if n, err := list(p); err != nil || n != 1 {
			t.Fatalf("%s: %d entries, %v", p, n, err)
		}
	}
	if n, err := list("/gone/"); !errors.Is(err, proto.ErrNotFound) || n != 0 {
		t.Errorf("/gone/: %d entries, %v; want none and proto.ErrNotFound", n, err)
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD x|SYST|EPSV|LIST|EPSV|CWD y|LIST|EPSV|CWD /z|LIST|EPSV|CWD /alt|LIST|EPSV|CWD /alt|CWD /|CWD alt|LIST|EPSV|CWD /gone|LIST|EPSV|CWD /gone|CWD /|CWD gone|NOOP|QUIT"))
	for _, want := range []string{"CWD y\r\nLIST\r\nEPSV\r\n", "CWD /z\r\nLIST\r\nEPSV\r\n", "CWD /gone\r\nLIST\r\nEPSV\r\n"} {
		if !w.has(want) {
			t.Errorf("no write of %q:\n%q", want, w.all())
		}
	}
}

// A listing whose CWD was to go with its LIST, on a connection whose
// EPSV sent ahead was refused, sends the CWD first and lists without
// pipelining (EPSV, then LIST): the listing is of its own directory.
func TestListLeadEPSVRefused(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.refuseEPSV = 2 // the one sent with the first LIST
	f.lists["LIST"] = []byte("-rw-r--r--   1 ftp  ftp  1 Jan 01  2020 a\r\n")
	d, req := startPiped(t, f)
	req.Options.FTP.ListAhead, req.Options.FTP.DirectCWD = true, true
	for _, p := range []string{"/x/", "/y/"} {
		if _, _, err := proto.ListAll(t.Context(), d, uri.MustParse(f.url(p)), req); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD x|SYST|EPSV|LIST|EPSV|CWD /y|EPSV|LIST|QUIT"))
}

// writeLog records the writes of the connections its dial opens.
type writeLog struct {
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return loggedConn{c, w}, nil
}

func (w *writeLog) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.writes)
}

// has reports whether one write was s.
func (w *writeLog) has(s string) bool { return slices.Contains(w.all(), s) }

type loggedConn struct {
	net.Conn
	w *writeLog
}

func (c loggedConn) Write(p []byte) (int, error) {
	c.w.mu.Lock()
	c.w.writes = append(c.w.writes, string(p))
	c.w.mu.Unlock()
	return c.Conn.Write(p)
}
