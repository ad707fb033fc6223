package main

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// listen6 listens on the IPv6 loopback address [::1] (RFC 3986 section
// 3.2.2 writes it in brackets in a URL); a machine without it skips the
// test, saying so.
func listen6(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// fetch get and fetch mirror over IPv6 to [::1]: FTP (passive mode by
// EPSV, RFC 2428, the only one that can name an IPv6 data port), HTTP, and
// gopher, whose menu names the host as "::1" (its items become
// gopher://[::1]:PORT/... URLs).
func TestIPv6Loopback(t *testing.T) {
	listen6(t) // skips when there is none
	t.Run("ftp", func(t *testing.T) {
		mem := afero.NewMemMapFs()
		afero.WriteFile(mem, "/pub/a.txt", []byte("over IPv6\n"), 0o644)
		afero.WriteFile(mem, "/pub/sub/b.txt", []byte("b\n"), 0o644)
		srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{Host: "::1"})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		if !strings.HasPrefix(srv.Addr(), "[::1]:") {
			t.Fatalf("server at %s", srv.Addr())
		}
		checkGet6(t, "ftp://"+srv.Addr()+"/pub/a.txt", "over IPv6\n")
		checkMirror6(t, "ftp://"+srv.Addr()+"/pub/", map[string]string{"a.txt": "over IPv6\n", "sub/b.txt": "b\n"})
	})
	t.Run("http", func(t *testing.T) {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "a.txt"), []byte("over IPv6\n"), 0o644)
		ln := listen6(t)
		go http.Serve(ln, http.FileServer(http.Dir(root)))
		checkGet6(t, "http://"+ln.Addr().String()+"/a.txt", "over IPv6\n")
		checkMirror6(t, "http://"+ln.Addr().String()+"/", map[string]string{"a.txt": "over IPv6\n"})
	})
	t.Run("gopher", func(t *testing.T) {
		ln := listen6(t)
		port := ln.Addr().(*net.TCPAddr).Port
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					sel, _ := bufio.NewReader(c).ReadString('\n')
					switch strings.TrimRight(sel, "\r\n") {
					case "", "/":
						c.Write([]byte("0a text\t/a.txt\t::1\t" + strconv.Itoa(port) + "\r\n.\r\n"))
					case "/a.txt":
						c.Write([]byte("over IPv6\n")) // as pygopherd serves a file: its bytes, then the close
					}
				}()
			}
		}()
		checkGet6(t, "gopher://"+ln.Addr().String()+"/0/a.txt", "over IPv6\n")
		checkMirror6(t, "gopher://"+ln.Addr().String()+"/1/", map[string]string{"a.txt": "over IPv6\n"})
	})
}

func checkGet6(t *testing.T, u, want string) {
	t.Helper()
	if r := runArgs(t, nil, "", "get", u); r.code != fetch.ExitOK || r.out != want {
		t.Errorf("get %s = %d, %q\n%s", u, r.code, r.out, r.err)
	}
}

func checkMirror6(t *testing.T, u string, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if r := runArgs(t, nil, "", "mirror", "-s", u, dir); r.code != fetch.ExitOK {
		t.Fatalf("mirror %s = %d\n%s%s", u, r.code, r.out, r.err)
	}
	for rel, want := range files {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || string(b) != want {
			t.Errorf("mirror %s: %s = %q, %v; want %q", u, rel, b, err, want)
		}
	}
}
