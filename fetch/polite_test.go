package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// fastServer serves n bytes at once, as fast as the connection takes them.
func fastServer(t *testing.T, n int) *httptest.Server {
	body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A rate limit below the speed limit does not make the client cut its own
// transfer: the time a body waits for LimitRate is left out of the speed
// check, which judges the server. Through Read and through io.Copy (the
// body's WriteTo), the bytes are exact and take at least the time the
// rate allows (a lower bound, which load cannot break). The speed time is
// a second, so that a process held up for a while on a loaded machine is
// no slow server (300 ms was cut once under -race), and the body takes
// about 3 s, more than two of them.
func TestLimitRateBelowSpeedLimit(t *testing.T) {
	const n, limit = 96 << 10, 32 << 10
	srv := fastServer(t, n)
	c := &fetch.Client{LimitRate: limit, SpeedLimit: 64 << 10, SpeedTime: time.Second}
	for _, how := range []string{"read", "copy"} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		t0 := time.Now()
		resp, err := c.Get(ctx, srv.URL+"/f")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if how == "read" {
			var b []byte
			b, err = io.ReadAll(resp.Body)
			buf.Write(b)
		} else {
			_, err = io.Copy(&buf, resp.Body)
		}
		resp.Body.Close()
		el := time.Since(t0)
		cancel()
		if err != nil || buf.Len() != n {
			t.Fatalf("%s: %d bytes, %v; want %d and no error (the limit cut its own transfer?)", how, buf.Len(), err, n)
		}
		if min := time.Duration(float64(n-limit/16) / limit * float64(time.Second) * 0.95); el < min {
			t.Errorf("%s: %d bytes at %d/s in %v, want at least %v", how, n, limit, el, min)
		}
	}
}

// A server that stops sending is still cut with a rate limit in force,
// above or below the speed limit: its stall is not time spent waiting for
// the limit.
func TestLimitRateStallStillCut(t *testing.T) {
	srv := slowServer(t, 1000, 100000)
	for _, rate := range []int64{1 << 20, 2000} {
		c := &fetch.Client{LimitRate: rate, SpeedLimit: 5000, SpeedTime: 300 * time.Millisecond}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		resp, err := c.Get(ctx, srv.URL+"/f")
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
		if !errors.Is(err, fetch.ErrTooSlow) {
			t.Errorf("LimitRate %d: err = %v, want a *SpeedError", rate, err)
		}
	}
}

// A rate-limited body waiting for its tokens ends with the fetch's
// context (MaxTime here), not after the wait.
func TestLimitRateHonoursContext(t *testing.T) {
	srv := fastServer(t, 64<<10)
	c := &fetch.Client{LimitRate: 1000, MaxTime: 300 * time.Millisecond}
	resp, err := c.Get(t.Context(), srv.URL+"/f")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil || n >= 64<<10 {
		t.Fatalf("copy = %d, %v; want the MaxTime to end it", n, err)
	}
	if el := time.Since(t0); el > 10*time.Second {
		t.Errorf("the wait went on %v after MaxTime", el)
	}
}

// politeTree is an HTTP index of n files of size bytes each, and a
// directory of two more, served by a handler that records the start of
// every request and the most requests it served at once; each file's
// answer takes a little while, so that requests overlap when they can.
type politeTree struct {
	mu      sync.Mutex
	starts  []time.Time
	cur     int
	maxConc int
}

func newPoliteTree(t *testing.T, n, size int) (*politeTree, *httptest.Server) {
	src := t.TempDir()
	if err := os.Mkdir(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("f%02d.bin", i)
		if i >= n-2 {
			name = filepath.Join("sub", name)
		}
		if err := os.WriteFile(filepath.Join(src, name), bytes.Repeat([]byte{byte('a' + i%26)}, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pt := &politeTree{}
	fs := http.FileServer(http.Dir(src))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pt.mu.Lock()
		pt.starts = append(pt.starts, time.Now())
		pt.cur++
		pt.maxConc = max(pt.maxConc, pt.cur)
		pt.mu.Unlock()
		defer func() {
			pt.mu.Lock()
			pt.cur--
			pt.mu.Unlock()
		}()
		time.Sleep(20 * time.Millisecond)
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return pt, srv
}

func mirrorTree(t *testing.T, c *fetch.Client, url string, jobs, want int) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	t0 := time.Now()
	sum, err := c.Mirror(ctx, url, t.TempDir(), fetch.MirrorOptions{Jobs: jobs})
	if err != nil || sum.New != want {
		t.Fatalf("Mirror = %v, %+v", err, sum)
	}
	return time.Since(t0)
}

// With --wait, the requests of a mirror with 4 jobs (listings and files)
// reach the server spaced by the wait, by the server's own clock.
func TestMirrorWait(t *testing.T) {
	const wait = 250 * time.Millisecond
	pt, srv := newPoliteTree(t, 6, 100)
	c := &fetch.Client{Wait: wait}
	mirrorTree(t, c, srv.URL+"/", 4, 6)
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if len(pt.starts) < 8 { // 2 listings, 6 files
		t.Fatalf("%d requests, want 8 or more", len(pt.starts))
	}
	checkSpaced(t, "request", pt.starts, wait)
}

// checkSpaced checks that the last of times (sorted here) came at least
// half of len(times)-1 waits after the first. The client spaces the
// starts of its requests; the server sees each one later, by a delay of
// its own (login, connection, scheduling on a loaded machine), and a late
// first request makes every later one look early: by as much as that
// delay, which no bound per request can allow for. Half the waits allow
// it hundreds of milliseconds; a client that did not wait puts all the
// requests within a few.
func checkSpaced(t *testing.T, what string, times []time.Time, wait time.Duration) {
	t.Helper()
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	n := len(times) - 1
	if span, want := times[n].Sub(times[0]), time.Duration(n)*wait/2; span < want {
		t.Errorf("%d %ss came within %v, want at least %v (half of %d waits of %v)", n+1, what, span, want, n, wait)
	}
}

// --max-host-conns caps the mirror's jobs: the server never serves more
// than N requests at once, where 8 jobs alone would make it serve more.
func TestMirrorMaxHostConns(t *testing.T) {
	pt, srv := newPoliteTree(t, 24, 100)
	mirrorTree(t, &fetch.Client{MaxHostConns: 2}, srv.URL+"/", 8, 24)
	pt.mu.Lock()
	got := pt.maxConc
	pt.mu.Unlock()
	if got > 2 {
		t.Errorf("the server served %d requests at once, want at most 2", got)
	}
	t.Logf("at most %d at once", got)
}

// The fetches of one client share MaxHostConns, whoever makes them: 6
// goroutines fetching from one host at once are served 2 at a time.
func TestGetMaxHostConns(t *testing.T) {
	pt, srv := newPoliteTree(t, 6, 100)
	c := &fetch.Client{MaxHostConns: 2}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get(t.Context(), fmt.Sprintf("%s/f%02d.bin", srv.URL, i))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.maxConc > 2 {
		t.Errorf("the server served %d requests at once, want at most 2", pt.maxConc)
	}
}

// --limit-rate-total holds a whole mirror, 4 jobs together, to the rate:
// total bytes / elapsed <= rate * (1 + tolerance). A lower bound on the
// time taken, which load cannot break.
func TestMirrorLimitRateTotal(t *testing.T) {
	const files, size, limit = 8, 40 << 10, 320 << 10 // 320 KiB at 320 KiB/s: about a second
	_, srv := newPoliteTree(t, files, size)
	el := mirrorTree(t, &fetch.Client{LimitRateTotal: limit}, srv.URL+"/", 4, files)
	total := float64(files * size)
	if got := total / el.Seconds(); got > limit*1.1 {
		t.Errorf("%.0f bytes in %v: %.0f bytes/s, want at most %d (+10%%)", total, el, got, limit)
	}
	t.Logf("%.0f bytes in %v", total, el)
}

// openLog is a file system that records when each file or directory is
// opened: by an FTP server, once per retrieval (RETR) and once per
// listing (LIST, MLSD), while CWD, SIZE and MDTM only stat.
type openLog struct {
	afero.Fs
	mu    sync.Mutex
	opens []time.Time
}

func (o *openLog) note() {
	o.mu.Lock()
	o.opens = append(o.opens, time.Now())
	o.mu.Unlock()
}

func (o *openLog) Open(name string) (afero.File, error) {
	o.note()
	return o.Fs.Open(name)
}

func (o *openLog) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	o.note()
	return o.Fs.OpenFile(name, flag, perm)
}

// The FTP mirror with --wait and 4 jobs: each retrieval and each listing
// is one request, spaced by the wait, by the server's clock; the commands
// around them (CWD, SIZE, EPSV) are not spaced.
func TestMirrorWaitFTP(t *testing.T) {
	const wait = 200 * time.Millisecond
	mem := afero.NewMemMapFs()
	for _, name := range []string{"/pub/a.txt", "/pub/b.txt", "/pub/c.txt", "/pub/sub/d.txt", "/pub/sub/e.txt"} {
		if err := afero.WriteFile(mem, name, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := &openLog{Fs: mem}
	srv, err := fetchtest.StartFTP(log, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := &fetch.Client{Wait: wait}
	defer c.CloseIdleConnections()
	mirrorTree(t, c, "ftp://"+srv.Addr()+"/pub/", 4, 5)
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.opens) < 7 { // 2 listings, 5 files
		t.Fatalf("%d opens, want 7 or more", len(log.opens))
	}
	checkSpaced(t, "open", log.opens, wait)
}
