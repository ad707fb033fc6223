package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// A bad politeness flag is a usage error (exit 2) that names the flag and
// the value, before anything is fetched.
func TestPoliteFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"get", "--limit-rate", "1x", "http://127.0.0.1:1/"}, []string{"--limit-rate", `"1x"`}},
		{[]string{"get", "--limit-rate", "-5k", "http://127.0.0.1:1/"}, []string{"--limit-rate", `"-5k"`}},
		{[]string{"get", "--limit-rate", "99999999999T", "http://127.0.0.1:1/"}, []string{"--limit-rate", `"99999999999T"`, "too large"}},
		{[]string{"get", "--limit-rate-total", "k", "http://127.0.0.1:1/"}, []string{"--limit-rate-total", `"k"`}},
		{[]string{"get", "--wait", "-1", "http://127.0.0.1:1/"}, []string{"--wait", `"-1"`}},
		{[]string{"get", "--wait", "soon", "http://127.0.0.1:1/"}, []string{"--wait", `"soon"`}},
		{[]string{"get", "--max-host-conns", "-1", "http://127.0.0.1:1/"}, []string{"--max-host-conns", "-1"}},
		{[]string{"get", "--max-host-conns", "two", "http://127.0.0.1:1/"}, []string{"--max-host-conns", `"two"`}},
		{[]string{"get", "--random-wait", "http://127.0.0.1:1/"}, []string{"--random-wait", "--wait"}},
		{[]string{"mirror", "--limit-rate", "1.k", "http://127.0.0.1:1/", "d"}, []string{"--limit-rate", `"1.k"`}},
		{[]string{"mirror", "--max-host-conns", "-3", "http://127.0.0.1:1/", "d"}, []string{"--max-host-conns", "-3"}},
		{[]string{"mirror", "--random-wait", "http://127.0.0.1:1/", "d"}, []string{"--random-wait"}},
	} {
		n := &netlog{}
		r := runArgs(t, n, "", tc.args...)
		if r.code != fetch.ExitUsage {
			t.Errorf("%q = %d, want %d (stderr %q)", tc.args, r.code, fetch.ExitUsage, r.err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.err, w) {
				t.Errorf("%q: stderr %q does not name %s", tc.args, r.err, w)
			}
		}
		if n.dials.Load() != 0 {
			t.Errorf("%q: dialled with a bad flag", tc.args)
		}
	}
}

// get --limit-rate --wait with two URLs: the bytes are exact, and the run
// takes at least the wait before the second URL plus the time the rate
// allows for its body (lower bounds, which load cannot break).
func TestGetLimitRateWait(t *testing.T) {
	s := startServer(t)
	t0 := time.Now()
	r := runArgs(t, nil, "", "get", "-s", "--limit-rate", "1M", "--wait", "0.5", s.url("/hello.txt"), s.url("/big.bin"))
	el := time.Since(t0)
	if r.code != 0 || r.out != "hello\n"+string(bigBody) {
		t.Fatalf("get = %d, %d bytes, stderr %q", r.code, len(r.out), r.err)
	}
	// 0.5 s before big.bin starts, then 1 MiB at 1 MiB/s less the 64 KiB
	// burst.
	if min := 500*time.Millisecond + time.Duration(float64(len(bigBody)-64<<10)/(1<<20)*0.95*float64(time.Second)); el < min {
		t.Errorf("get took %v, want at least %v", el, min)
	}
}

// The politeness flags of mirror reach the client: a mirror with all of
// them is complete, and takes at least the shortest random wait between
// its two requests (the index page, a.txt).
func TestMirrorPoliteFlags(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	t0 := time.Now()
	r := runArgs(t, nil, "", "mirror", "-s", "-j", "8", "--max-host-conns", "2", "--wait", "0.2", "--random-wait",
		"--limit-rate", "10M", "--limit-rate-total", "512k", s.url("/dir/"), dir)
	el := time.Since(t0)
	if r.code != 0 {
		t.Fatalf("mirror = %d (%s)", r.code, r.err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || len(got) == 0 {
		t.Fatalf("a.txt: %q, %v", got, err)
	}
	if el < 100*time.Millisecond {
		t.Errorf("mirror with --wait 0.2 --random-wait took %v, want at least 100ms", el)
	}
}
