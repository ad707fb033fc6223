package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
)

// patterned returns n bytes that differ from position to position.
func patterned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>11)
	}
	return b
}

// ftpBehind serves files on an in-process FTP server and puts a fault
// proxy (FTP mode) in front of it; it returns the proxy.
func ftpBehind(t *testing.T, files map[string][]byte, cfg faultproxy.Config) *faultproxy.Proxy {
	t.Helper()
	mem := afero.NewMemMapFs()
	for name, data := range files {
		if err := afero.WriteFile(mem, name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg.Target, cfg.Mode = srv.Addr(), faultproxy.FTP
	return startProxy(t, cfg)
}

// fetch get --retry: a data connection cut in the middle is taken up
// again from the byte it reached (REST), not from the start: the proxy
// carries each byte of the file once. Without --retry the same cut fails.
func TestGetRetryResumesAfterCut(t *testing.T) {
	content := patterned(300<<10 + 17)
	const cutAt = 100000
	for _, tc := range []struct {
		retry string
		code  int
	}{{"0", fetch.ExitNetwork}, {"3", fetch.ExitOK}} {
		t.Run("retry="+tc.retry, func(t *testing.T) {
			p := ftpBehind(t, map[string][]byte{"/pub/big.bin": content},
				faultproxy.Config{Faults: []faultproxy.Fault{{Kind: faultproxy.Cut, Data: true, Conn: 1, After: cutAt}}})
			out := filepath.Join(t.TempDir(), "big.bin")
			r := runArgs(t, nil, "", "get", "-v", "--retry", tc.retry, "-o", out, "ftp://"+p.Addr()+"/pub/big.bin")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.err)
			}
			if tc.code != fetch.ExitOK {
				assertOnly(t, filepath.Dir(out))
				return
			}
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("file differs from the source (%d of %d bytes, %v)", len(got), len(content), err)
			}
			if want := fmt.Sprintf("> REST %d", cutAt); !strings.Contains(r.err, want) {
				t.Errorf("the retry did not send %q:\n%s", want, r.err)
			}
			if st := p.Stats(); st.DataDown != int64(len(content)) || st.DataConns != 2 {
				t.Errorf("proxy carried %d data bytes on %d connections, want each of the %d bytes once on 2", st.DataDown, st.DataConns, len(content))
			}
			assertOnly(t, filepath.Dir(out), "big.bin")
		})
	}
}

// To stdout, a server that cannot resume sends from the start and the
// bytes already written are skipped: byte-exact all the same.
func TestGetRetryStdoutSkipsWhatItHas(t *testing.T) {
	content := patterned(200 << 10)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(content)))
		if n.Add(1) == 1 {
			// The first answer breaks off; no Range support at all.
			w.Write(content[:70000])
			panic(http.ErrAbortHandler)
		}
		w.Write(content)
	}))
	defer srv.Close()
	r := runArgs(t, nil, "", "get", "-s", "--retry", "2", srv.URL+"/f")
	if r.code != fetch.ExitOK || r.out != string(content) {
		t.Fatalf("exit %d, %d bytes of %d, equal %v\n%s", r.code, len(r.out), len(content), r.out == string(content), r.err)
	}
	if n.Load() != 2 {
		t.Errorf("%d requests, want 2", n.Load())
	}
}

// HTTP 503 with Retry-After is retried after the time the server asked
// for; 404 is not retried at all.
func TestGetRetryHonoursRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			n.Add(1)
			http.NotFound(w, r)
			return
		}
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	t0 := time.Now()
	r := runArgs(t, nil, "", "get", "--retry", "1", srv.URL+"/f")
	if r.code != fetch.ExitOK || r.out != "ok" {
		t.Fatalf("exit %d, %q\n%s", r.code, r.out, r.err)
	}
	if el := time.Since(t0); el < 2*time.Second {
		t.Errorf("retried after %v, before the 2 s of Retry-After", el)
	}
	n.Store(0)
	r = runArgs(t, nil, "", "get", "--retry", "3", srv.URL+"/missing")
	if r.code != fetch.ExitServer || n.Load() != 1 {
		t.Errorf("404: exit %d after %d requests, want %d after 1", r.code, n.Load(), fetch.ExitServer)
	}
}

// A data connection that stalls is cut by --speed-limit/--speed-time and
// retried, resuming.
func TestGetRetryAfterStall(t *testing.T) {
	content := patterned(256 << 10)
	p := ftpBehind(t, map[string][]byte{"/pub/s.bin": content},
		faultproxy.Config{Faults: []faultproxy.Fault{{Kind: faultproxy.Stall, Data: true, Conn: 1, After: 80000}}})
	out := filepath.Join(t.TempDir(), "s.bin")
	r := runArgs(t, nil, "", "get", "--retry", "2", "--speed-limit", "10000", "--speed-time", "1", "-o", out, "ftp://"+p.Addr()+"/pub/s.bin")
	if r.code != fetch.ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	if !strings.Contains(r.err, "too slow") {
		t.Errorf("no note of the stall on stderr:\n%s", r.err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, content) {
		t.Fatalf("file differs from the source (%d of %d bytes)", len(got), len(content))
	}
	if st := p.Stats(); st.DataDown != int64(len(content)) {
		t.Errorf("proxy carried %d data bytes, want %d (resumed, not restarted)", st.DataDown, len(content))
	}
}

// mirrorFiles is a small tree with files above and below the mirror's
// resume threshold.
func mirrorFiles() map[string][]byte {
	files := map[string][]byte{}
	for i := range 6 {
		files[fmt.Sprintf("/pub/big%d.bin", i)] = patterned(150<<10 + i)
	}
	for i := range 12 {
		files[fmt.Sprintf("/pub/sub/small%02d.txt", i)] = []byte(strings.Repeat(fmt.Sprint(i), 100+i))
	}
	return files
}

func checkMirror(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(name, "/pub/")))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, want %d (%v)", name, len(got), len(want), err)
		}
	}
}

// A server that allows two connections: "fetch mirror -j 8" goes on with
// the two it has, completes every file, exits 0 and says so once, on
// stderr and in the report.
func TestMirrorServerAllowsTwoConnections(t *testing.T) {
	files := mirrorFiles()
	p := ftpBehind(t, files, faultproxy.Config{MaxConns: 2})
	dir := filepath.Join(t.TempDir(), "m")
	code, out, stderr := mirrorCLI(t, "mirror", "-j", "8", "--json", "ftp://"+p.Addr()+"/pub/", dir)
	if code != fetch.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	checkMirror(t, dir, files)
	if n := strings.Count(stderr, "too many connections"); n != 1 {
		t.Errorf("%d notices on stderr, want 1:\n%s", n, stderr)
	}
	var rep struct {
		New     int
		Failed  int
		Notices []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.New != len(files) || rep.Failed != 0 || len(rep.Notices) != 1 {
		t.Errorf("report: %+v, want %d new, none failed, one notice", rep, len(files))
	}
	if p.Stats().Refused == 0 {
		t.Error("the proxy refused no connection: the test tested nothing")
	}
}

// Each fault of the proxy, once, in the middle of a mirror: the default
// --retry finishes it in the same run, byte-exact.
func TestMirrorThroughFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault faultproxy.Fault
		args  []string
	}{
		// The first data connection that carries more than After
		// bytes (a big file, not a listing) is hit.
		{"cut data", faultproxy.Fault{Kind: faultproxy.Cut, Data: true, Count: 1, After: 70000}, nil},
		{"reset data", faultproxy.Fault{Kind: faultproxy.Reset, Data: true, Count: 1, After: 1000}, nil},
		{"stall data", faultproxy.Fault{Kind: faultproxy.Stall, Data: true, Count: 1, After: 50000}, []string{"--speed-time", "1", "--speed-limit", "1000"}},
		{"421 on a new connection", faultproxy.Fault{Kind: faultproxy.Refuse, Conn: 2}, nil},
		{"cut control", faultproxy.Fault{Kind: faultproxy.Cut, Conn: 1, After: 500}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := mirrorFiles()
			p := ftpBehind(t, files, faultproxy.Config{Faults: []faultproxy.Fault{tc.fault}})
			dir := filepath.Join(t.TempDir(), "m")
			args := append([]string{"mirror", "-j", "2"}, tc.args...)
			code, out, stderr := mirrorCLI(t, append(args, "ftp://"+p.Addr()+"/pub/", dir)...)
			if code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s%s", code, out, stderr)
			}
			checkMirror(t, dir, files)
			if st := p.Stats(); st.Faults != 1 {
				t.Errorf("%d faults injected, want 1: the test tested nothing", st.Faults)
			}
		})
	}
}

func TestRetryFlags(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--retry", "-1", "http://127.0.0.1:1/"},
		{"get", "--speed-limit", "-5", "http://127.0.0.1:1/"},
		{"get", "--retry-max-time", "soon", "http://127.0.0.1:1/"},
		{"mirror", "--retry", "-2", "ftp://127.0.0.1:1/", "d"},
	} {
		if r := runArgs(t, &netlog{refuse: true}, "", args...); r.code != fetch.ExitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, r.code, fetch.ExitUsage, r.err)
		}
	}
	// Either speed flag alone takes curl's default for the other.
	for _, tc := range []struct {
		o     getOptions
		limit int64
		time  time.Duration
	}{
		{getOptions{}, 0, 0},
		{getOptions{speedLimit: 500}, 500, 30 * time.Second},
		{getOptions{speedTime: 5 * time.Second}, 1, 5 * time.Second},
		{getOptions{speedLimit: 7, speedTime: time.Second}, 7, time.Second},
	} {
		if l, d := tc.o.speed(); l != tc.limit || d != tc.time {
			t.Errorf("speed(%d, %v) = %d, %v; want %d, %v", tc.o.speedLimit, tc.o.speedTime, l, d, tc.limit, tc.time)
		}
	}
}
