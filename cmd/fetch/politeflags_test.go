package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
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

// concServer answers every request after a short while, recording when
// each started and the most it served at once.
type concServer struct {
	*httptest.Server
	mu      sync.Mutex
	starts  []time.Time
	cur     int
	maxConc int
}

func startConcServer(t *testing.T) *concServer {
	s := &concServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.starts = append(s.starts, time.Now())
		s.cur++
		s.maxConc = max(s.maxConc, s.cur)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.cur--
			s.mu.Unlock()
		}()
		time.Sleep(30 * time.Millisecond)
		io.WriteString(w, r.URL.Path+"\n")
	}))
	t.Cleanup(s.Close)
	return s
}

// get -Z with --max-host-conns 2: six URLs at a time are served two at a
// time; with --wait, their requests start the wait apart, by the
// server's clock.
func TestGetParallelPolite(t *testing.T) {
	s := startConcServer(t)
	var urls []string
	for i := range 6 {
		urls = append(urls, fmt.Sprintf("%s/f%d", s.URL, i))
	}
	r := runArgs(t, nil, "", append([]string{"get", "-s", "-Z", "--parallel-max", "6", "--max-host-conns", "2"}, urls...)...)
	if r.code != 0 || len(strings.Split(strings.TrimSpace(r.out), "\n")) != 6 {
		t.Fatalf("get -Z --max-host-conns 2 = %d, %q (%s)", r.code, r.out, r.err)
	}
	s.mu.Lock()
	if s.maxConc > 2 {
		t.Errorf("get -Z --max-host-conns 2: the server served %d requests at once", s.maxConc)
	}
	s.maxConc, s.starts = 0, nil
	s.mu.Unlock()

	// The client spaces the starts of its requests; the server sees each
	// one late, by however long the machine took to deliver it, and a late
	// first request makes the others look early by as much: the span of
	// the four must hold at least half their three waits (a client that
	// does not wait starts them within milliseconds).
	const wait = 300 * time.Millisecond
	r = runArgs(t, nil, "", append([]string{"get", "-s", "-Z", "--parallel-max", "6", "--wait", "0.3"}, urls[:4]...)...)
	if r.code != 0 {
		t.Fatalf("get -Z --wait 0.3 = %d (%s)", r.code, r.err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slices.SortFunc(s.starts, func(a, b time.Time) int { return a.Compare(b) })
	if len(s.starts) != 4 {
		t.Fatalf("%d requests, want 4", len(s.starts))
	}
	if span := s.starts[3].Sub(s.starts[0]); span < 3*wait/2 {
		t.Errorf("get -Z --wait 0.3: 4 requests started within %v, want at least %v", span, 3*wait/2)
	}
}

// get -Z on one FTP server with --max-host-conns 2: at most 2 logins
// where --parallel-max 6 alone would allow 6, and the files are exact.
func TestGetParallelMaxHostConnsFTP(t *testing.T) {
	const n = 12
	srv := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(n)}
	startRaw(t, srv)
	dir := t.TempDir()
	args := []string{"get", "-s", "-Z", "--parallel-max", "6", "--max-host-conns", "2", "-O", "--output-dir", dir}
	for i := range n {
		args = append(args, fmt.Sprintf("ftp://%s/pub/f%02d.bin", srv.Addr(), i))
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 {
		t.Fatalf("get = %d (%s)", r.code, r.err)
	}
	for i := range n {
		name := fmt.Sprintf("f%02d.bin", i)
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, srv.Files["/pub/"+name]) {
			t.Errorf("%s differs (%v)", name, err)
		}
	}
	if logins := countVerb(srv.Commands(), "USER"); logins < 1 || logins > 2 {
		t.Errorf("%d logins with --max-host-conns 2, want 1 or 2", logins)
	}
}
