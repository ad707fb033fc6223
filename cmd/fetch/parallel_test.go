package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/internal/testrig/notify"
)

// parallelFiles is a tree of n files /pub/fNN.bin of different sizes (the
// first empty, the biggest 190 KiB) and contents, for RawFTP.
func parallelFiles(n int) map[string][]byte {
	files := map[string][]byte{}
	for i := range n {
		b := make([]byte, i*5000)
		for j := range b {
			b[j] = byte(i*31 + j*7 + j>>9)
		}
		files[fmt.Sprintf("/pub/f%02d.bin", i)] = b
	}
	return files
}

func countVerb(cmds []string, verb string) int {
	n := 0
	for _, c := range cmds {
		if v, _, _ := strings.Cut(c, " "); strings.EqualFold(v, verb) {
			n++
		}
	}
	return n
}

// Many URLs on one FTP server with -Z --parallel-max N: at most N logins
// (connections are shared by the workers), the passive-mode commands are
// pipelined (an EPSV goes out for the next file before the last one is
// due, so there are more EPSV than RETR), and every file is byte-exact.
func TestGetParallelFTP(t *testing.T) {
	const n, jobs = 40, 3
	srv := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(n)}
	startRaw(t, srv)
	dir := t.TempDir()
	args := []string{"get", "-s", "-Z", "--parallel-max", strconv.Itoa(jobs), "-O", "--output-dir", dir}
	var names []string
	for i := range n {
		name := fmt.Sprintf("f%02d.bin", i)
		names = append(names, name)
		args = append(args, "ftp://"+srv.Addr()+"/pub/"+name)
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 || r.err != "" {
		t.Fatalf("get -Z = %d, stderr %q", r.code, r.err)
	}
	for i, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if want := srv.Files["/pub/"+name]; err != nil || !bytes.Equal(got, want) {
			t.Errorf("file %d: %d bytes (%v), want %d", i, len(got), err, len(want))
		}
	}
	assertOnly(t, dir, names...)
	cmds := srv.Commands()
	logins, retrs, epsv := countVerb(cmds, "USER"), countVerb(cmds, "RETR"), countVerb(cmds, "EPSV")
	if logins < 1 || logins > jobs {
		t.Errorf("%d logins for %d URLs with --parallel-max %d, want 1 to %d", logins, n, jobs, jobs)
	}
	if retrs != n {
		t.Errorf("%d RETR, want %d", retrs, n)
	}
	if epsv <= retrs {
		t.Errorf("%d EPSV for %d RETR: the passive-mode commands were not pipelined", epsv, retrs)
	}
}

// A URL that fails among good ones: exit 8, the failure named on stderr,
// every other file complete, nothing left of the failed one.
func TestGetParallelPartial(t *testing.T) {
	srv := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(12)}
	startRaw(t, srv)
	dir := t.TempDir()
	base := "ftp://" + srv.Addr() + "/pub/"
	args := []string{"get", "-s", "-Z", "--parallel-max", "4", "-O", "--output-dir", dir}
	var names []string
	for i := range 12 {
		name := fmt.Sprintf("f%02d.bin", i)
		if i == 5 {
			args = append(args, base+"missing.bin")
		}
		names = append(names, name)
		args = append(args, base+name)
	}
	r := runArgs(t, nil, "", args...)
	if r.code != fetch.ExitPartial {
		t.Fatalf("get -Z with a missing file = %d, want %d (stderr %q)", r.code, fetch.ExitPartial, r.err)
	}
	if !strings.Contains(r.err, base+"missing.bin") || strings.Count(r.err, "\n") != 1 {
		t.Errorf("stderr %q: want one line naming %s", r.err, base+"missing.bin")
	}
	for _, name := range names {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Equal(got, srv.Files["/pub/"+name]) {
			t.Errorf("%s: %d bytes, want %d", name, len(got), len(srv.Files["/pub/"+name]))
		}
	}
	assertOnly(t, dir, names...)

	// Every URL failing the same way: that code, as without -Z.
	r = runArgs(t, nil, "", "get", "-s", "-Z", base+"no1", base+"no2", base+"no3")
	if r.code != fetch.ExitServer {
		t.Errorf("get -Z of three missing files = %d, want %d", r.code, fetch.ExitServer)
	}
}

// To stdout, the outputs come in the order of the URLs even when the
// transfers end in another order. The server makes the first URL wait
// until every other request has arrived (which only a parallel run can
// do) and the other URLs' bodies are long enough to be held in a file
// once memory is spent.
func TestGetParallelStdoutOrder(t *testing.T) {
	const n = 6
	var arrived sync.WaitGroup
	arrived.Add(n - 1)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	body := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("url %d\n", i)), 1000*(i+1)) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if i == 0 {
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				http.Error(w, "the other URLs never came", http.StatusServiceUnavailable)
				return
			}
		} else {
			arrived.Done()
		}
		w.Write(body(i))
	}))
	defer srv.Close()
	args := []string{"get", "-Z", "--parallel-max", strconv.Itoa(n)}
	var want bytes.Buffer
	for i := range n {
		args = append(args, srv.URL+"/"+strconv.Itoa(i))
		want.Write(body(i))
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 || r.out != want.String() {
		t.Fatalf("get -Z to stdout = %d, %d bytes (want %d in URL order), stderr %q", r.code, len(r.out), want.Len(), r.err)
	}
}

// ordered itself: the head writes through, the others are held (in a
// file beyond the memory limit) and written out in order.
func TestOrderedWriter(t *testing.T) {
	var out bytes.Buffer
	o := newOrdered(&out, 4)
	o.memMax = 10
	w := func(i int, s string) {
		if _, err := io.WriteString(o.slot(i), s); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	w(2, "c1")
	w(1, "b1-longer-than-ten") // spills to a file
	w(0, "a1")
	if out.String() != "a1" {
		t.Fatalf("the head wrote %q, want a1 at once", out.String())
	}
	o.finish(2)
	w(3, "d1")
	if out.String() != "a1" {
		t.Fatalf("after a later URL ended: %q", out.String())
	}
	o.finish(0) // 1 becomes the head: its held data goes out
	if out.String() != "a1b1-longer-than-ten" {
		t.Fatalf("after the head ended: %q", out.String())
	}
	w(1, "b2")
	o.finish(1) // 2 was done; 3 becomes the head
	w(3, "d2")
	o.finish(3)
	if want := "a1b1-longer-than-tenb2c1d1d2"; out.String() != want {
		t.Errorf("ordered output %q, want %q", out.String(), want)
	}
	if o.mem != 0 {
		t.Errorf("%d bytes still counted in memory", o.mem)
	}
}

// Cancelling the run (Ctrl-C) stops every transfer: the command returns
// promptly, and no file, partial or temporary, is left in the directory.
func TestGetParallelCancel(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(bytes.Repeat([]byte("x"), 10000))
		w.(http.Flusher).Flush()
		started.Done()
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer srv.Close()
	defer close(stop)
	dir := t.TempDir()
	args := []string{"get", "-s", "-Z", "-O", "--output-dir", dir}
	for i := range n {
		args = append(args, fmt.Sprintf("%s/f%d.bin", srv.URL, i))
	}
	e, _, errb := newEnv("", &netlog{})
	// Cancel once every transfer has taken its first 10,000 bytes and
	// come back for more: it has written them to its file by then.
	var drained notify.Counter
	dial := e.dial
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &drainConn{Conn: c, body: 10000, drained: &drained}, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		started.Wait()
		drained.AtLeast(n, 10*time.Second)
		cancel()
	}()
	done := make(chan int, 1)
	go func() { done <- execute(ctx, args, e) }()
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("a cancelled run exited 0 (stderr %q)", errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop after the cancellation")
	}
	assertOnly(t, dir)
}

// HTTP URLs on one server share kept-alive connections. net/http may dial
// a connection for a request and then give it an idle one that came back
// meanwhile (keeping the new one), so the bound is twice --parallel-max,
// far below one connection per URL.
func TestGetParallelHTTPKeepAlive(t *testing.T) {
	s := startServer(t)
	args := []string{"get", "-Z", "--parallel-max", "3"}
	for range 30 {
		args = append(args, s.url("/hello.txt"))
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 || r.out != strings.Repeat("hello\n", 30) {
		t.Fatalf("get -Z = %d %q, stderr %q", r.code, r.out, r.err)
	}
	if c := s.ln.n.Load(); c < 1 || c > 6 {
		t.Errorf("%d connections for 30 URLs with --parallel-max 3", c)
	}
}

// Gopher (and the other schemes) simply run at the same time.
func TestGetParallelGopher(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 10 {
		fsys[fmt.Sprintf("f%d.bin", i)] = &fstest.MapFile{Data: bytes.Repeat([]byte{byte(i)}, 3000*i+1)}
	}
	srv, err := fetchtest.StartGopher(fsys)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	args := []string{"get", "-Z", "--parallel-max", "4"}
	var want bytes.Buffer
	for i := range 10 {
		args = append(args, fmt.Sprintf("gopher://%s/9/f%d.bin", srv.Addr(), i))
		want.Write(fsys[fmt.Sprintf("f%d.bin", i)].Data)
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 || r.out != want.String() {
		t.Errorf("get -Z gopher = %d, %d bytes (want %d), stderr %q", r.code, len(r.out), want.Len(), r.err)
	}
}

// The progress bar: one for the whole run on a terminal, none with -s.
func TestGetParallelBar(t *testing.T) {
	s := startServer(t)
	for _, tt := range []struct {
		args []string
		bar  bool
	}{
		{[]string{"get", "-Z"}, true},
		{[]string{"get", "-Z", "-s"}, false},
	} {
		e, out, errb := newEnv("", &netlog{})
		e.stderrTTY = true
		code := runIn(t, e, append(tt.args, s.url("/hello.txt"), s.url("/big.bin"), s.url("/500"))...)
		if code != fetch.ExitPartial || out.Len() != len("hello\n")+len(bigBody) {
			t.Errorf("%v: exit %d, %d bytes", tt.args, code, out.Len())
		}
		stderr := errb.String()
		if got := strings.Contains(stderr, "URLs") && strings.Contains(stderr, "/ 3"); got != tt.bar {
			t.Errorf("%v: bar drawn %v, want %v; stderr %q", tt.args, got, tt.bar, stderr)
		}
		if !strings.Contains(stderr, s.url("/500")) {
			t.Errorf("%v: stderr %q does not name the failed URL", tt.args, stderr)
		}
	}
}

// Flags -Z cannot take are usage errors.
func TestGetParallelFlags(t *testing.T) {
	for _, args := range [][]string{
		{"get", "-Z", "--parallel-max", "0", "http://127.0.0.1:1/"},
		{"get", "-Z", "--parallel-max", "301", "http://127.0.0.1:1/"},
		{"get", "-Z", "--interactive", "telnet://127.0.0.1:2323/"},
		{"get", "-Z", "-C", "-", "-O", "http://127.0.0.1:1/a/x.bin", "http://127.0.0.1:1/b/x.bin"},
	} {
		n := &netlog{}
		if r := runArgs(t, n, "", args...); r.code != fetch.ExitUsage || n.dials.Load() != 0 {
			t.Errorf("%v = %d after %d dials, want %d and none", args, r.code, n.dials.Load(), fetch.ExitUsage)
		}
	}
}

// drainConn counts once in drained when a Read begins after the bytes
// read so far hold a response header and at least body bytes after it:
// the reader has consumed them all and asks for more.
type drainConn struct {
	net.Conn
	body    int
	drained *notify.Counter
	got     []byte
	done    bool
}

func (c *drainConn) Read(p []byte) (int, error) {
	if !c.done {
		if i := bytes.Index(c.got, []byte("\r\n\r\n")); i >= 0 && len(c.got)-i-4 >= c.body {
			c.done = true
			c.drained.Add()
		}
	}
	n, err := c.Conn.Read(p)
	if !c.done {
		c.got = append(c.got, p[:n]...)
	}
	return n, err
}
