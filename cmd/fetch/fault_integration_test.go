package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// Issue 17: a mirror from the real servers (vsftpd, nginx) through each
// fault of internal/testrig/faultproxy finishes in the same run, byte-exact, with
// the mirror's default --retry.

// sameFiles checks that every regular file of src is in dst with the same
// bytes, leaving out what skip names (relative, slash-separated); it
// returns the number of files compared.
func sameFiles(t *testing.T, src, dst string, skip func(rel string) bool) int {
	t.Helper()
	n := 0
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if err != nil || rel == "." {
			return nil
		}
		if skip(rel) || strings.HasPrefix(filepath.Base(rel), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes in the mirror, %d in the fixture (%v)", rel, len(got), len(want), err)
		}
		n++
		return nil
	})
	return n
}

// faultCases are the faults of the proxy, each hitting one connection in
// the middle of the 5 MiB file (or, for the refusal, a new connection).
var faultCases = []struct {
	name  string
	fault faultproxy.Fault
	args  []string
}{
	{"cut", faultproxy.Fault{Kind: faultproxy.Cut, Count: 1, After: 1234567}, nil},
	{"stall", faultproxy.Fault{Kind: faultproxy.Stall, Count: 1, After: 1234567}, []string{"--speed-limit", "1000", "--speed-time", "1"}},
	{"refused", faultproxy.Fault{Kind: faultproxy.Refuse, Conn: 2}, nil},
	{"reset", faultproxy.Fault{Kind: faultproxy.Reset, Count: 1, After: 1234567}, nil},
}

func TestFaultsMirrorVsftpd(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	pub := servertest.Fixture(t, "ftp/pub")
	skip := func(rel string) bool {
		return rel == "many" || rel == "noaccess" || rel == "noread.txt" || strings.HasPrefix(rel, "scratch-")
	}
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fault
			f.Data = f.Kind != faultproxy.Refuse
			p, err := faultproxy.Start(faultproxy.Config{Target: s.Addr, Mode: faultproxy.FTP, Faults: []faultproxy.Fault{f}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			dir := filepath.Join(t.TempDir(), "m")
			args := append([]string{"mirror", "-s", "-j", "4",
				"--exclude", "many", "--exclude", "noaccess", "--exclude", "noread.txt", "--exclude", "scratch-*"}, tc.args...)
			r := runArgs(t, nil, "", append(args, "ftp://"+p.Addr()+"/pub/", dir)...)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
			}
			if n := sameFiles(t, pub, dir, skip); n < 15 {
				t.Errorf("compared %d files", n)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1", st.Faults)
			}
		})
	}
}

func TestFaultsMirrorNginx(t *testing.T) {
	s := servertest.Get(t, servertest.NGINX)
	www := servertest.Fixture(t, "www")
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := faultproxy.Start(faultproxy.Config{Target: s.Addr, Mode: faultproxy.HTTP, Faults: []faultproxy.Fault{tc.fault}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			dir := filepath.Join(t.TempDir(), "m")
			args := append([]string{"mirror", "-s", "-j", "4"}, tc.args...)
			r := runArgs(t, nil, "", append(args, "http://"+p.Addr()+"/", dir)...)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.out, r.err)
			}
			if n := sameFiles(t, www, dir, func(string) bool { return false }); n < 10 {
				t.Errorf("compared %d files", n)
			}
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1", st.Faults)
			}
		})
	}
}

// fetch get --retry 3 through a cut resumes: vsftpd's log shows REST at
// the byte the cut left, and the proxy carried each byte of the file once.
func TestFaultsGetRetryVsftpd(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	const cutAt = 2345678
	p, err := faultproxy.Start(faultproxy.Config{Target: s.Addr, Mode: faultproxy.FTP,
		Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Data: true, Count: 1, After: cutAt}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out := filepath.Join(t.TempDir(), "bin5m.bin")
	since := servertest.FTPLogOffset(t)
	r := runArgs(t, nil, "", "get", "-s", "--retry", "3", "-o", out, "ftp://"+p.Addr()+"/pub/bin5m.bin")
	if r.code != fetch.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	if got := sha(t, out); got != servertest.Bin5MSHA256 {
		t.Errorf("sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}
	if cmds := servertest.FTPCommands(t, since); !slices.Contains(cmds, fmt.Sprintf("REST %d", cutAt)) {
		t.Errorf("vsftpd saw no REST %d: %q", cutAt, cmds)
	}
	if st := p.Stats(); st.DataDown != servertest.Bin5MSize || st.Faults != 1 {
		t.Errorf("proxy: %d data bytes, %d faults; want %d (each byte once), 1", st.DataDown, st.Faults, servertest.Bin5MSize)
	}
}
