package ftp

import (
	"errors"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// With Options.FTP.DirectCWD (the mirror's), a connection changes
// directory with one CWD to the absolute path when PWD gave a Unix path:
// no return to the login directory and no CWD per segment. A refused CWD
// is tried segment by segment, so the error names the missing one. A path
// that is not plain segments (a null segment) keeps to RFC 1738's CWDs,
// and a request without DirectCWD (fetch get) sends them always.
func TestDirectCWD(t *testing.T) {
	f := newFake(t)
	f.pwd = `"/home/ftp"`
	f.files = map[string][]byte{"a": []byte("a"), "b": []byte("b")}
	f.replies["CWD /home/ftp/q/missing"] = "550 no such directory"
	f.replies["CWD missing"] = "550 no such directory"
	d, req := startPiped(t, f)
	req.Options.FTP.DirectCWD = true
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"/x/y/a", true},
		{"/x/y/b", true},   // same directory: no CWD
		{"/q/r/a", true},   // elsewhere: one CWD
		{"/q/r/s/b", true}, // below: one CWD, the rest of the path
		{"/q/missing/a", false},
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
	waitSent(t, f, commands(anonLogin+
		"CWD /home/ftp/x/y|TYPE I|EPSV|RETR a|EPSV|RETR b|EPSV|"+
		"CWD /home/ftp/q/r|RETR a|EPSV|"+
		"CWD s|RETR b|EPSV|"+
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
