package ftp

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// parseActiveTests: the values of Options.FTP.Port. curl's --ftp-port takes an
// address, an interface or a host name, with ":PORT" or ":LOW-HIGH"
// (curl(1), --ftp-port); this driver takes "-" and IP literals only.
var parseActiveTests = []struct {
	in        string
	ip        string // "" means the control connection's local address
	low, high int
	ok        bool
}{
	{"-", "", 0, 0, true},                                      // curl: "-" is the control connection's address
	{"127.0.0.1", "127.0.0.1", 0, 0, true},                     // an IPv4 literal
	{"127.0.0.1:40000", "127.0.0.1", 40000, 40000, true},       // curl: ADDRESS:PORT
	{"127.0.0.1:40000-40009", "127.0.0.1", 40000, 40009, true}, // curl: ADDRESS:LOW-HIGH
	{"-:40000-40009", "", 40000, 40009, true},                  // the control address with a range
	{"::1", "::1", 0, 0, true},                                 // a bare IPv6 literal (RFC 2428 EPRT family 2)
	{"[::1]:40000", "::1", 40000, 40000, true},                 // IPv6 with a port, in brackets
	{"::ffff:127.0.0.1", "127.0.0.1", 0, 0, true},              // a mapped IPv4 address is IPv4
	{"", "", 0, 0, false},                                      // empty: not active mode, not a value
	{"eth0", "", 0, 0, false},                                  // interface names are not accepted
	{"ftp.example.org", "", 0, 0, false},                       // nor host names
	{"0.0.0.0", "", 0, 0, false},                               // no server can connect to it
	{"224.0.0.1", "", 0, 0, false},                             // multicast
	{"127.0.0.1:", "", 0, 0, false},                            // empty port
	{"127.0.0.1:0", "", 0, 0, false},                           // port out of range
	{"127.0.0.1:65536", "", 0, 0, false},                       // port out of range
	{"127.0.0.1:40009-40000", "", 0, 0, false},                 // LOW above HIGH
	{"127.0.0.1:+5", "", 0, 0, false},                          // not digits
	{"127.0.0.1\r\nDELE x", "", 0, 0, false},                   // CR LF (proto.CheckArg)
	{"[::1", "", 0, 0, false},                                  // unclosed bracket
	{"[::1]x", "", 0, 0, false},                                // junk after the bracket
	{"fe80::1%eth0", "", 0, 0, false},                          // a zone names an interface
}

func TestParseActivePort(t *testing.T) {
	for _, tt := range parseActiveTests {
		sp, err := parseActive(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("parseActive(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		ip := ""
		if sp.ip.IsValid() {
			ip = sp.ip.String()
		}
		if ip != tt.ip || sp.low != tt.low || sp.high != tt.high {
			t.Errorf("parseActive(%q) = %s %d-%d, want %s %d-%d", tt.in, ip, sp.low, sp.high, tt.ip, tt.low, tt.high)
		}
	}
}

func FuzzParseActivePort(f *testing.F) {
	for _, tt := range parseActiveTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := parseActive(s)
		if err != nil {
			return
		}
		// Whatever is accepted can go on the wire and names a
		// usable address and port range.
		if strings.ContainsAny(s, "\r\n\x00") {
			t.Fatalf("parseActive(%q) accepted CR, LF or NUL", s)
		}
		if sp.ip.IsValid() && (sp.ip.IsUnspecified() || sp.ip.Zone() != "" || sp.ip.Is4In6()) {
			t.Fatalf("parseActive(%q) = %v", s, sp.ip)
		}
		if sp.low < 0 || sp.high > 65535 || sp.low > sp.high || (sp.low == 0) != (sp.high == 0) {
			t.Fatalf("parseActive(%q): ports %d-%d", s, sp.low, sp.high)
		}
	})
}

// activeReq is a request in active mode on the control connection's own
// address.
func activeReq() *proto.Request {
	req := quickReq()
	req.Options.FTP = proto.FTPOptions{Port: "-", Stat: proto.StatNone, Binary: true}
	return req
}

var eprtLine = regexp.MustCompile(`EPRT \|1\|127\.0\.0\.1\|[0-9]+\|\r\n`)
var portLine = regexp.MustCompile(`PORT 127,0,0,1,[0-9]+,[0-9]+\r\n`)

// waitActive waits (briefly) for the fake to have recorded the commands
// of want ("|"-separated, as for commands), with the address and port of
// each EPRT and PORT left out, and reports the difference.
func waitActive(t *testing.T, f *fakeFTP, want string) {
	t.Helper()
	want = commands(want)
	norm := func() string {
		return portLine.ReplaceAllString(eprtLine.ReplaceAllString(f.sent(), "EPRT\r\n"), "PORT\r\n")
	}
	f.changed.Until(2*time.Second, func() bool { return norm() == want })
	if got := norm(); got != want {
		t.Errorf("sent:\n%s\nwant:\n%s", got, want)
	}
}

// RFC 2428 section 2: EPRT names the address and port the client listens
// on; then the transfer command, and the server connects. Servers differ
// on whether the 150 comes before or after they connect.
func TestActiveRetrieval(t *testing.T) {
	for _, late := range []bool{false, true} {
		f := newFake(t)
		f.activeLate = late
		f.files = map[string][]byte{"a": []byte("first file"), "b": bytes.Repeat([]byte("x"), 100000)}
		f.start()
		d := &Driver{}
		req := activeReq()
		for _, name := range []string{"a", "b"} {
			_, body, err := get(t, d, f.url("/"+name), req)
			if err != nil {
				t.Fatalf("late=%v %s: %v", late, name, err)
			}
			if !bytes.Equal(body, f.files[name]) {
				t.Fatalf("late=%v %s: got %d bytes, want %d", late, name, len(body), len(f.files[name]))
			}
		}
		d.CloseIdleConnections()
		waitActive(t, f, anonLogin+"TYPE I|EPRT|RETR a|EPRT|RETR b|QUIT")
	}
}

// A server that refuses EPRT (RFC 2428 section 2: 500 or 502) gets PORT
// (RFC 959 section 4.1.2), and PORT from then on for that connection.
func TestActiveEPRTRefused(t *testing.T) {
	f := newFake(t)
	f.noEPRT = true
	f.files = map[string][]byte{"a": []byte("aaa"), "b": []byte("bbbb")}
	f.start()
	d := &Driver{}
	req := activeReq()
	for _, name := range []string{"a", "b"} {
		_, body, err := get(t, d, f.url("/"+name), req)
		if err != nil || !bytes.Equal(body, f.files[name]) {
			t.Fatalf("%s: %q, %v", name, body, err)
		}
	}
	d.CloseIdleConnections()
	waitActive(t, f, anonLogin+"TYPE I|EPRT|PORT|RETR a|PORT|RETR b|QUIT")
}

// RFC 2577 section 3: a data connection from another address than the
// server's is refused, and the transfer fails with a *DataPeerError. The
// fake connects from 127.0.0.2 (its source address) to the client's
// listener on 127.0.0.1: nothing is sent to 127.0.0.2.
func TestActiveWrongPeer(t *testing.T) {
	f := newFake(t)
	f.activeFrom = "127.0.0.2"
	f.files = map[string][]byte{"a": []byte("secret")}
	f.start()
	d := &Driver{}
	t.Cleanup(d.CloseIdleConnections)
	_, body, err := get(t, d, f.url("/a"), activeReq())
	var pe *DataPeerError
	if !errors.As(err, &pe) {
		t.Fatalf("got %q, %v; want a *DataPeerError", body, err)
	}
	if !strings.HasPrefix(pe.From, "127.0.0.2:") || pe.Want != "127.0.0.1" {
		t.Errorf("DataPeerError = %+v", pe)
	}
}

// The wait for the server's connection ends with the caller's context,
// and with the idle timeout.
func TestActiveAcceptCancelled(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("never sent")}
	f.replies["RETR a"] = "150 opening data connection" // and never connects
	f.start()
	d := &Driver{}
	t.Cleanup(d.CloseIdleConnections)

	req := activeReq()
	req.IdleTimeout = time.Minute
	u, _ := uri.Parse(f.url("/a"))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := d.Fetch(ctx, u, req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cancelled after 300 ms, returned after %v", el)
	}

	req = activeReq()
	req.IdleTimeout = 300 * time.Millisecond
	start = time.Now()
	_, err = d.Fetch(t.Context(), u, req)
	if !isTimeout(err) {
		t.Errorf("idle timeout: err = %v, want a timeout", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("idle timeout of 300 ms, returned after %v", el)
	}
}

// Listings, name lists and resumed retrievals go through active mode too;
// REST comes right before RETR (RFC 959 section 4.1.3), after EPRT.
func TestActiveListingAndResume(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("0123456789")}
	f.lists = map[string][]byte{
		"LIST": []byte("-rw-r--r-- 1 u g 10 Jan 1 2020 a\r\n"),
		"NLST": []byte("a\r\n"),
	}
	f.start()
	d := &Driver{}
	resp, _, err := get(t, d, f.url("/"), activeReq())
	if err != nil || len(resp.Entries) != 1 || resp.Entries[0].Name != "a" {
		t.Fatalf("LIST: %v, %+v", err, resp)
	}
	_, body, err := get(t, d, f.url("/;type=d"), activeReq())
	if err != nil || string(body) != "a\n" {
		t.Fatalf("NLST: %q, %v", body, err)
	}
	req := activeReq()
	req.Offset = 4
	resp, body, err = get(t, d, f.url("/a"), req)
	if err != nil || string(body) != "456789" || resp.Offset != 4 {
		t.Fatalf("resume: %q, %v", body, err)
	}
	d.CloseIdleConnections()
	waitActive(t, f, anonLogin+"SYST|EPRT|LIST|EPRT|NLST|EPRT|REST 4|RETR a|QUIT")
}

// The mirror's driver (PipelinePassive) sends no EPSV ahead in active
// mode, neither when warming its connections nor between files.
func TestActivePipelinedDriver(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.files = map[string][]byte{"a": []byte("1"), "b": []byte("22"), "c": []byte("333")}
	f.lists = map[string][]byte{"LIST": []byte("-rw-r--r-- 1 u g 1 Jan 1 2020 a\r\n")}
	d, _ := startPiped(t, f)
	req := activeReq()
	u, _ := uri.Parse(f.url("/"))
	d.Warm(t.Context(), u, req, 1)
	if _, _, err := proto.ListAll(t.Context(), d, u, req); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		_, body, err := get(t, d, f.url("/"+name), req)
		if err != nil || !bytes.Equal(body, f.files[name]) {
			t.Fatalf("%s: %q, %v", name, body, err)
		}
	}
	d.CloseIdleConnections()
	waitActive(t, f, anonLogin+"SYST|EPRT|LIST|EPRT|RETR a|EPRT|RETR b|EPRT|RETR c|QUIT")
}

// A LIST answer that fits no layout, in active mode: the NLST of the
// fallback is made in active mode too, as every transfer of the request.
func TestActiveNLSTFallback(t *testing.T) {
	f := newFake(t)
	f.lists = map[string][]byte{"LIST": []byte("???\r\n"), "NLST": []byte("a\r\n")}
	f.replies["CWD a"] = "550 not a directory"
	f.start()
	d := &Driver{}
	resp, _, err := get(t, d, f.url("/"), activeReq())
	if err != nil || len(resp.Entries) != 1 || !resp.Listing.Fallback {
		t.Fatalf("LIST: %v, %+v", err, resp)
	}
	d.CloseIdleConnections()
	waitActive(t, f, anonLogin+"SYST|EPRT|LIST|EPRT|NLST|PWD|CWD a|SIZE a|MDTM a|QUIT")
}
