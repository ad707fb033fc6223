package ftp

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// With Options.FTP.DirectCWD (the mirror's), a connection changes
// directory with one CWD to the absolute path when PWD gave a Unix path:
// no return to the login directory and no CWD per segment. A refused CWD
// is tried segment by segment, so the error names the missing one. A path
// that is not plain segments (a null segment) keeps to RFC 1738's CWDs,
// and a request without DirectCWD (fetch get) sends them always. A file
// is retrieved by its absolute path, with no CWD, unless the connection
// is in its directory already.
func TestDirectCWD(t *testing.T) {
	f := newFake(t)
	f.pwd = `"/home/ftp"`
	f.files = map[string][]byte{"a": []byte("a"), "b": []byte("b"), "/home/ftp/x/y/a": []byte("a"), "/home/ftp/x/y/b": []byte("b"),
		"/home/ftp/q/r/a": []byte("a"), "/home/ftp/q/r/s/b": []byte("b")}
	f.lists["LIST"] = []byte("-rw-r--r--   1 ftp  ftp  1 Jan 01  2020 a\r\n")
	f.replies["CWD /home/ftp/q/missing"] = "550 no such directory"
	f.replies["CWD missing"] = "550 no such directory"
	d, req := startPiped(t, f)
	req.Options.FTP.DirectCWD = true
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"/x/y/a", true},
		{"/x/y/b", true},
		{"/q/r/", true},    // a listing: one CWD
		{"/q/r/a", true},   // in its directory: RETR a
		{"/q/r/s/", true},  // below: one CWD, the rest of the path
		{"/q/r/s/b", true}, // in its directory
		{"/x/y/b", true},   // by the path again
		{"/q/missing/", false},
		{"/x//a", true}, // a null segment: one CWD each
	} {
		_, _, err := get(t, d, f.url(tc.path), req)
		if tc.ok && err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if !tc.ok && !errors.Is(err, proto.ErrNotFound) {
			t.Fatalf("%s: %v, want not found", tc.path, err)
		}
	}
	d.CloseIdleConnections()
	// The first URL's CWDs, SYST and EPSV go with PASS (login).
	waitSent(t, f, commands(anonLogin+
		"CWD x/y|SYST|EPSV|TYPE I|RETR a|EPSV|RETR b|EPSV|"+
		"CWD /home/ftp/q/r|LIST|EPSV|RETR a|EPSV|"+
		"CWD s|LIST|EPSV|RETR b|EPSV|RETR /home/ftp/x/y/b|EPSV|"+
		"CWD /home/ftp/q/missing|CWD /home/ftp|CWD q|CWD missing|NOOP|"+
		"CWD /home/ftp|CWD x|CWD |RETR a|EPSV|QUIT"))

	g := newFake(t)
	g.pwd = `"/home/ftp"`
	g.files = map[string][]byte{"a": []byte("a")}
	d, req = startPiped(t, g)
	for _, p := range []string{"/x/y/a", "/q/r/a"} {
		if _, _, err := get(t, d, g.url(p), req); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	d.CloseIdleConnections()
	waitSent(t, g, commands(anonLogin+"CWD x|CWD y|TYPE I|EPSV|RETR a|EPSV|CWD /home/ftp|CWD q|CWD r|RETR a|EPSV|QUIT"))
}

// An idle connection already in the directory of a URL serves it before
// one used more recently elsewhere: a URL in that directory sends no CWD.
func TestIdleInDirectory(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("in x"), "b": []byte("in y")}
	f.start()
	d := New(Config{PipelinePassive: true, MaxConnsPerHost: 2, MaxIdleConnsPerHost: 2})
	defer d.CloseIdleConnections()
	req := quickReq()
	req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true}}
	fetch := func(p string) io.ReadCloser {
		t.Helper()
		u, err := uri.Parse(f.url(p))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := d.Fetch(t.Context(), u, req)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return resp.Body
	}
	a := fetch("/x/a") // the first connection, into x
	b := fetch("/y/b") // a second, into y
	for _, body := range []io.ReadCloser{a, b} {
		// x's connection goes back first: y's is the most recent.
		if _, err := io.Copy(io.Discard, body); err != nil {
			t.Fatal(err)
		}
		body.Close()
	}
	body := fetch("/x/a")
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || string(got) != "in x" {
		t.Fatalf("x/a again: %q, %v", got, err)
	}
	d.CloseIdleConnections()
	f.changed.Until(2*time.Second, func() bool { return strings.Count(f.sent(), "QUIT") == 2 })
	if n := strings.Count(f.sent(), "CWD"); n != 2 {
		t.Errorf("%d CWDs, want 2 (x and y, none for x again):\n%s", n, f.sent())
	}
	if n := f.connCount(); n != 2 {
		t.Errorf("%d control connections, want 2", n)
	}
}

// A URL elsewhere than every idle connection takes the one with an EPSV
// sent ahead, so that its port serves a transfer, and a retrieval with
// Options.FTP.NoSendAhead sends none ahead: two connections, three files,
// three EPSV (four, one unused, when the URL took the connection idle the
// longest).
func TestIdleWithEPSVAhead(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("a"), "b": []byte("b"), "/y/c": []byte("c")}
	f.start()
	d := New(Config{PipelinePassive: true, MaxConnsPerHost: 2, MaxIdleConnsPerHost: 2})
	defer d.CloseIdleConnections()
	fetch := func(p string, last bool) io.ReadCloser {
		t.Helper()
		req := quickReq()
		req.Options = proto.Options{FTP: proto.FTPOptions{Stat: proto.StatNone, Binary: true, DirectCWD: true, NoSendAhead: last}}
		resp, err := d.Fetch(t.Context(), uri.MustParse(f.url(p)), req)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return resp.Body
	}
	drain := func(body io.ReadCloser) {
		t.Helper()
		if _, err := io.Copy(io.Discard, body); err != nil {
			t.Fatal(err)
		}
		body.Close()
	}
	a := fetch("/x/a", true) // the first connection: nothing sent ahead
	b := fetch("/x/b", false)
	drain(a) // idle the longest
	drain(b) // with an EPSV ahead
	drain(fetch("/y/c", true))
	d.CloseIdleConnections()
	f.changed.Until(2*time.Second, func() bool { return strings.Count(f.sent(), "QUIT") == 2 })
	if n := strings.Count(f.sent(), "EPSV"); n != 3 {
		t.Errorf("%d EPSV, want 3:\n%s", n, f.sent())
	}

	// A URL in the directory of an idle connection without an EPSV takes
	// the one elsewhere with an EPSV: x/b goes on y/c's, by its path.
	f = newFake(t)
	f.files = map[string][]byte{"a": []byte("a"), "c": []byte("c"), "/x/b": []byte("b")}
	f.start()
	d = New(Config{PipelinePassive: true, MaxConnsPerHost: 2, MaxIdleConnsPerHost: 2})
	defer d.CloseIdleConnections()
	a = fetch("/x/a", true)
	c := fetch("/y/c", false)
	drain(a)
	drain(c)
	drain(fetch("/x/b", true))
	d.CloseIdleConnections()
	f.changed.Until(2*time.Second, func() bool { return strings.Count(f.sent(), "QUIT") == 2 })
	if n := strings.Count(f.sent(), "EPSV"); n != 3 || !strings.Contains(f.sent(), "RETR /x/b") {
		t.Errorf("%d EPSV and not RETR /x/b, want 3 and it:\n%s", n, f.sent())
	}
}

// With Options.FTP.ListAhead, a listing from vsftpd sends the EPSV of
// the connection's next transfer with its LIST, before the listing's 226
// (which the fake holds until the next command has come), and the
// retrieval that follows uses it.
func TestListAhead(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.holdDone, f.holdList = true, true
	f.lists["LIST"] = []byte("-rw-r--r--   1 ftp  ftp  1 Jan 01  2020 a\r\n")
	f.files = map[string][]byte{"a": []byte("a")}
	d, req := startPiped(t, f)
	req.Options.FTP.ListAhead = true
	for _, p := range []string{"/x/", "/x/a"} {
		if _, _, err := get(t, d, f.url(p), req); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD x|SYST|EPSV|LIST|EPSV|RETR a|EPSV|QUIT"))
}

// A listing that sent the EPSV ahead judges its own completion reply,
// though the 229 that follows it came in the same read: vsftpd's 226 for
// a directory it could not read is still a failure.
func TestListAheadUnreadable(t *testing.T) {
	f := newFake(t)
	f.greeting = "220 (vsFTPd 3.0.3)"
	f.holdDone, f.holdList = true, true
	f.lists["LIST"] = []byte{}
	f.listDone = "226 Transfer done (but failed to open directory)."
	d, req := startPiped(t, f)
	req.Options.FTP.ListAhead = true
	if _, _, err := get(t, d, f.url("/dark/"), req); !errors.Is(err, proto.ErrPermission) {
		t.Fatalf("listing: %v, want proto.ErrPermission", err)
	}
}
