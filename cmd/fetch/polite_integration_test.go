package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// get --limit-rate --wait from vsftpd: two files byte-exact, in at least
// the wait before the second plus the time the rate allows for its 5 MiB
// (lower bounds: load can only make the run longer).
func TestIntegrationPoliteFTP(t *testing.T) {
	f := servertest.Get(t, servertest.FTP)
	dir := t.TempDir()
	const rate = 4 << 20 // 5 MiB in about 1.25 s
	t0 := time.Now()
	r := runArgs(t, nil, "", "get", "-s", "-O", "--output-dir", dir, "--limit-rate", "4M", "--wait", "0.8",
		"ftp://"+f.Addr+"/pub/hello.txt", "ftp://"+f.Addr+"/pub/bin5m.bin")
	el := time.Since(t0)
	if r.code != 0 {
		t.Fatalf("get = %d (%s)", r.code, r.err)
	}
	if got := sha(t, filepath.Join(dir, "bin5m.bin")); got != servertest.Bin5MSHA256 {
		t.Errorf("bin5m.bin: sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}
	if got, want := sha(t, filepath.Join(dir, "hello.txt")), sha(t, filepath.Join(f.Root, "ftp", "pub", "hello.txt")); got != want {
		t.Errorf("hello.txt: sha256 %s, want %s", got, want)
	}
	min := 800*time.Millisecond + time.Duration(float64(5<<20-64<<10)/rate*0.95*float64(time.Second))
	if el < min {
		t.Errorf("get took %v, want at least %v", el, min)
	}
	t.Logf("%v (at least %v)", el, min)
}
