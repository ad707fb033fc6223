package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// get -Z against vsftpd: 50 files of pub/many by URL, byte-exact, through
// at most --parallel-max logins (counted in vsftpd's protocol log, for
// this test's own loopback address).
func TestIntegrationParallelFTP(t *testing.T) {
	f := servertest.Get(t, servertest.FTP)
	ip := servertest.UniqueLoopback(t)
	since := servertest.FTPLogOffset(t)
	const n, jobs = 50, 8
	dir := t.TempDir()
	args := []string{"get", "-s", "-Z", "--parallel-max", fmt.Sprint(jobs), "-O", "--output-dir", dir}
	var names []string
	for i := range n {
		name := fmt.Sprintf("f%04d.txt", i*37)
		names = append(names, name)
		args = append(args, "ftp://"+f.Addr+"/pub/many/"+name)
	}
	e, _, errb := newEnv("", &netlog{})
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	e.dial = d.DialContext
	if code := runIn(t, e, args...); code != 0 {
		t.Fatalf("get -Z of %d ftp URLs = %d (%s)", n, code, errb.String())
	}
	for i, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if want := fmt.Sprintf("file %04d\n", i*37); err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
	assertOnly(t, dir, names...)
	cmds := servertest.FTPCommandsFrom(t, since, ip.String())
	logins, retrs := countVerb(cmds, "USER"), countVerb(cmds, "RETR")
	if logins < 1 || logins > jobs || retrs != n {
		t.Errorf("%d logins and %d RETR for %d URLs with --parallel-max %d", logins, retrs, n, jobs)
	}
}

// get -Z against nginx: 50 URLs to stdout, the bytes of each file in the
// order of the URLs (the 5 MiB file among small ones).
func TestIntegrationParallelHTTP(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	www := filepath.Join(s.Root, "www")
	files := []string{"hello.txt", "lines.txt", "dir/a.txt", "dir/sub/b.txt", "dir/sub/deeper/d.bin", "empty.txt", "page.html"}
	args := []string{"get", "-s", "-Z", "--parallel-max", "8"}
	var want bytes.Buffer
	for i := range 50 {
		name := files[i%len(files)]
		if i == 20 {
			name = "bin5m.bin"
		}
		b, err := os.ReadFile(filepath.Join(www, name))
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
		args = append(args, "http://"+s.Addr+"/"+name)
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 || r.out != want.String() {
		t.Fatalf("get -Z of 50 http URLs = %d, %d bytes (want %d, same order), stderr %q", r.code, len(r.out), want.Len(), r.err)
	}
	if strings.Contains(r.err, "fetch:") {
		t.Errorf("stderr %q", r.err)
	}
}
