package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// Integration tests against nginx and the fixture tree of scripts/servers.sh
// (see internal/testrig/servertest). They skip locally and fail under CI=true when
// the servers are not running.

func sha(t *testing.T, path string) string {
	t.Helper()
	return servertest.SHA256File(t, path)
}

// Issue 3 acceptance: exact bytes over http from nginx and over file: from
// the same tree, for a 5 MiB binary, a name with a space and an empty file.
func TestIntegrationExactBytes(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	www := filepath.Join(s.Root, "www")
	for _, base := range []string{"http://" + s.Addr, "file://" + www} {
		dir := t.TempDir()
		r := runArgs(t, nil, "", "get", "-s", "-R", "-O", "--output-dir", dir,
			base+"/bin5m.bin", base+"/with%20space.txt", base+"/empty.txt", base+"/hello.txt")
		if r.code != 0 {
			t.Fatalf("get from %s = %d (%s)", base, r.code, r.err)
		}
		if got := sha(t, filepath.Join(dir, "bin5m.bin")); got != servertest.Bin5MSHA256 {
			t.Errorf("%s/bin5m.bin: sha256 %s, want %s", base, got, servertest.Bin5MSHA256)
		}
		for _, name := range []string{"with space.txt", "empty.txt", "hello.txt"} {
			if got, want := sha(t, filepath.Join(dir, name)), sha(t, filepath.Join(www, name)); got != want {
				t.Errorf("%s/%s: sha256 %s, want %s", base, name, got, want)
			}
		}
		if fi, err := os.Stat(filepath.Join(dir, "hello.txt")); err != nil || !fi.ModTime().Equal(servertest.LaterTime) {
			t.Errorf("%s/hello.txt with -R: %v, %v; want mtime %v", base, fi.ModTime(), err, servertest.LaterTime)
		}
		assertOnly(t, dir, "bin5m.bin", "empty.txt", "hello.txt", "with space.txt")
	}
}

// Directory listings: nginx's autoindex page is data (the mirror parses its
// links); file: directories are listed like ls -l.
func TestIntegrationListing(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	r := runArgs(t, nil, "", "get", "http://"+s.Addr+"/dir/")
	if r.code != 0 || !strings.Contains(r.out, `<a href="a.txt">a.txt</a>`) || !strings.Contains(r.out, `<a href="sub/">`) {
		t.Errorf("get http://nginx/dir/ = %d %q", r.code, r.out)
	}
	r = runArgs(t, nil, "", "get", "file://"+filepath.Join(s.Root, "www", "dir")+"/")
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if r.code != 0 || len(lines) != 3 ||
		lines[0] != "-rw-r--r-- 6 "+servertest.FixtureTime.Local().Format("2006-01-02 15:04")+" a.txt" ||
		!strings.HasPrefix(lines[1], "drwxr-xr-x - ") || !strings.HasSuffix(lines[1], " empty") {
		t.Errorf("get file://.../dir/ = %d\n%s", r.code, r.out)
	}
}

// Issue 3 acceptance: nginx redirects to file:///etc/passwd and to a port on
// the bad-port list are refused with exit 4.
func TestIntegrationRedirects(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	for path, rule := range map[string]string{"/redir-file": "redirect-to-file", "/redir-badport": "port-other-protocol"} {
		n := &netlog{}
		r := runArgs(t, n, "", "get", "http://"+s.Addr+path)
		if r.code != fetch.ExitRefused || !strings.Contains(r.err, ": "+rule+": ") || r.out != "" || n.dials.Load() != 1 {
			t.Errorf("get %s = %d, %d dials, stderr %q", path, r.code, n.dials.Load(), r.err)
		}
	}
	r := runArgs(t, nil, "", "get", "http://"+s.Addr+"/redir-ok")
	if r.code != 0 || !strings.Contains(r.out, "a.txt") {
		t.Errorf("get /redir-ok = %d (%s)", r.code, r.err)
	}
}

// cutConn ends the connection after limit bytes have been read, as a
// network failure in the middle of a transfer would.
type cutConn struct {
	net.Conn
	left *atomic.Int64
}

func (c *cutConn) Read(p []byte) (int, error) {
	if c.left.Load() <= 0 {
		c.Conn.Close()
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: errCut}
	}
	if int64(len(p)) > c.left.Load() {
		p = p[:c.left.Load()]
	}
	n, err := c.Conn.Read(p)
	c.left.Add(-int64(n))
	return n, err
}

var errCut = &net.AddrError{Err: "connection cut by the test"}

// Issue 3 acceptance: -C - resumes a cut transfer to the same sha256.
func TestIntegrationResume(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	raw := "http://" + s.Addr + "/bin5m.bin"
	dir := t.TempDir()
	out := filepath.Join(dir, "bin5m.bin")

	var left atomic.Int64
	left.Store(2<<20 + 123)
	e, _, errb := newEnv("", &netlog{})
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &cutConn{Conn: c, left: &left}, nil
	}
	if code := runIn(t, e, "get", "-C", "-", "-o", out, raw); code != fetch.ExitNetwork {
		t.Fatalf("cut transfer = %d, want 5 (%s)", code, errb.String())
	}
	fi, err := os.Stat(out + partSuffix)
	if err != nil || fi.Size() == 0 || fi.Size() >= servertest.Bin5MSize {
		t.Fatalf("after the cut: %v, %v", fi, err)
	}
	assertOnly(t, dir, "bin5m.bin.part") // HTTP: no FILE.part.type (ftptype.go)

	r := runArgs(t, nil, "", "get", "-v", "-C", "-", "-o", out, raw)
	if r.code != 0 || !strings.Contains(r.err, "> Range: bytes=") || !strings.Contains(r.err, "< HTTP/1.1 206 Partial Content") {
		t.Fatalf("resume = %d\n%s", r.code, r.err)
	}
	if got := sha(t, out); got != servertest.Bin5MSHA256 {
		t.Errorf("resumed file sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}
	assertOnly(t, dir, "bin5m.bin")
}

// The same 5 MiB file over ftp (vsftpd) and gopher (pygopherd), and an ftp
// listing rendered like ls -l with its symbolic link.
func TestIntegrationFTPGopher(t *testing.T) {
	f := servertest.Get(t, servertest.FTP)
	g := servertest.Get(t, servertest.Gopher)
	dir := t.TempDir()
	for _, raw := range []string{"ftp://" + f.Addr + "/pub/bin5m.bin", "gopher://" + g.Addr + "/9/bin5m.bin"} {
		out := filepath.Join(dir, "out.bin")
		r := runArgs(t, nil, "", "get", "-o", out, raw)
		if got := sha(t, out); r.code != 0 || got != servertest.Bin5MSHA256 {
			t.Errorf("get %s = %d (%s), sha256 %s", raw, r.code, r.err, got)
		}
	}
	r := runArgs(t, nil, "", "get", "ftp://"+f.Addr+"/pub/")
	if r.code != 0 || !strings.Contains(r.out, " link-to-hello.txt -> hello.txt\n") || !strings.Contains(r.out, "-rw-r--r-- 5242880 ") {
		t.Errorf("ftp listing = %d\n%s", r.code, r.out)
	}
	r = runArgs(t, nil, "", "get", "gopher://"+g.Addr+"/1/dir")
	if r.code != 0 || !strings.Contains(r.out, "0    one  gopher://"+g.Addr+"/0/dir/one.txt\n") {
		t.Errorf("gopher menu = %d\n%s", r.code, r.out)
	}
}
