package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// Issue 4 acceptance: an FTP transfer cut in the middle leaves no file
// under its final name, only FILE.part; "fetch get -C -" then resumes it
// with REST and completes it to the same sha256.
func TestGetFTPCutAndResume(t *testing.T) {
	content := make([]byte, 3<<20+777)
	for i := range content {
		content[i] = byte(i*31 + i>>11)
	}
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/big.bin", content, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, ctrlPort, _ := net.SplitHostPort(srv.Addr())
	raw := "ftp://" + srv.Addr() + "/pub/big.bin"
	dir := t.TempDir()
	out := filepath.Join(dir, "big.bin")

	// The first data connection is cut after 1 MiB and a bit; the control
	// connection is left alone.
	var left atomic.Int64
	left.Store(1<<20 + 4321)
	var cut atomic.Bool
	e, _, errb := newEnv("", &netlog{})
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if _, port, _ := net.SplitHostPort(addr); port != ctrlPort && cut.CompareAndSwap(false, true) {
			return &cutConn{Conn: c, left: &left}, nil
		}
		return c, nil
	}
	if code := runIn(t, e, "get", "-C", "-", "-o", out, raw); code != fetch.ExitNetwork {
		t.Fatalf("cut transfer = %d, want %d (%s)", code, fetch.ExitNetwork, errb.String())
	}
	fi, err := os.Stat(out + partSuffix)
	if err != nil || fi.Size() == 0 || fi.Size() >= int64(len(content)) {
		t.Fatalf("after the cut, %s: %v, %v", out+partSuffix, fi, err)
	}
	assertOnly(t, dir, "big.bin.part", "big.bin.part.type") // the type the .part was written in (ftptype.go)

	r := runArgs(t, nil, "", "get", "-v", "-C", "-", "-o", out, raw)
	if r.code != fetch.ExitOK {
		t.Fatalf("resume = %d\n%s", r.code, r.err)
	}
	if want := fmt.Sprintf("> REST %d", fi.Size()); !strings.Contains(r.err, want) {
		t.Errorf("the resume did not send %q:\n%s", want, r.err)
	}
	got, err := os.ReadFile(out)
	if err != nil || sha256.Sum256(got) != sha256.Sum256(content) {
		t.Fatalf("resumed file differs from the source (%d of %d bytes, %v)", len(got), len(content), err)
	}
	assertOnly(t, dir, "big.bin")
}

// fetch -C - of an FTP file that changed size on the server since its
// .part was written resumed it with REST all the same: the output was the
// old file's start and the new one's end, exit 0. FILE.part.type records
// the file's size with its type; a resumed retrieval whose SIZE differs
// fails, naming both sizes, and keeps the .part.
func TestGetFTPResumeChangedFile(t *testing.T) {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/f.bin", bytes.Repeat([]byte("A"), 1<<20), 0o644)
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, ctrlPort, _ := net.SplitHostPort(srv.Addr())
	raw := "ftp://" + srv.Addr() + "/pub/f.bin"
	out := filepath.Join(t.TempDir(), "f.bin")
	var left atomic.Int64
	left.Store(300000)
	var cut atomic.Bool
	e, _, errb := newEnv("", &netlog{})
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if _, port, _ := net.SplitHostPort(addr); err == nil && port != ctrlPort && cut.CompareAndSwap(false, true) {
			return &cutConn{Conn: c, left: &left}, nil
		}
		return c, err
	}
	if code := runIn(t, e, "get", "-C", "-", "-o", out, raw); code != fetch.ExitNetwork {
		t.Fatalf("cut transfer = %d (%s)", code, errb.String())
	}
	part, _ := os.ReadFile(out + partSuffix)
	afero.WriteFile(mem, "/pub/f.bin", bytes.Repeat([]byte("B"), 1<<20+100), 0o644)
	r := runArgs(t, nil, "", "get", "-C", "-", "-o", out, raw)
	if r.code == fetch.ExitOK || !strings.Contains(r.err, "1048576") || !strings.Contains(r.err, "1048676") {
		t.Errorf("resume after the file changed = %d (%s), want a failure naming both sizes", r.code, r.err)
	}
	if b, err := os.ReadFile(out + partSuffix); err != nil || !bytes.Equal(b, part) {
		t.Errorf("the .part was not kept as it was: %d bytes, %v", len(b), err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists: %v", out, err)
	}
}
